"""The shared training loop of the torch families (`loop`) and its partial states (`checkpoint`)."""

from genplan.training.loop import LoopConfig, copy_weights, fit, lr_at, validation_loss

__all__ = ["LoopConfig", "copy_weights", "fit", "lr_at", "validation_loss"]
