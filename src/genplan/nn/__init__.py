"""Neural building blocks shared by the model families (one transformer core, genplan.nn.transformer)."""

from genplan.nn.transformer import (
    GPT2_SMALL,
    POSITIONS,
    Transformer,
    TransformerConfig,
    TransformerOutput,
    init_weights,
    parameter_count,
    reorder_cache,
)

__all__ = ["GPT2_SMALL", "POSITIONS", "Transformer", "TransformerConfig", "TransformerOutput",
           "init_weights", "parameter_count", "reorder_cache"]
