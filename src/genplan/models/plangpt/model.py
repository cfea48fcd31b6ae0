"""PlanGPT (plangpt.md): a GPT-2-shaped causal transformer over word-level tokens of the problem
and the plan, the loss on plan tokens only; one object-token pool, objects renamed per example.

`PlanGPT` holds what planning needs: the vocabulary, the network (genplan.nn.Transformer), the
renaming settings and the model's identity; it goes in and out of the checkpoint envelope of
genplan.checkpoint (family "plangpt", vocabulary = `Vocabulary.to_dict()`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from genplan.datasets.domain_text import domain_of_text
from genplan.errors import GenplanError
from genplan.models import settings as base
from genplan.models.plangpt import PLANNING_KEYS

STOPS = ("ce", "ces")  # cross-entropy early stopping on validation loss; planning coverage (CES)


@dataclass
class NetworkSettings:
    d_model: int = 128
    n_heads: int = 4
    n_layers: int = 2
    max_len: int = 512
    dropout: float = 0.0


@dataclass
class TrainSettings(base.TrainSettings):
    batch_size: int = 16
    stop: str = "ce"  # ce | ces
    examples: int = 2000  # symt protocol: states sampled from the training state spaces
    sample_by: str = "state"  # state-space draws: state (uniform over the states, the papers' reading) | problem | h
    suffixes: bool = True  # plangpt protocol: every suffix of every plan too
    ces_problems: int = 20  # CES: validation problems planned (greedy) per selection
    track_coverage: bool = False  # CE too plans the validation problems every epoch (logged, not selected on)
    length_window: int | None = None  # batches of similar length from runs of this many batches (None: random)


@dataclass
class PlanGPTSettings(base.Settings):
    label: ClassVar[str] = "PlanGPT"
    planning_keys: ClassVar[tuple[str, ...]] = PLANNING_KEYS
    data: str = "symt"  # symt | plangpt (genplan.models.plangpt.data.PROTOCOLS)
    object_pool: int | dict = 32  # object tokens: a global pool o0..oK-1, or {type: K}
    per_type: bool = False  # rename per type (PlanGPT) or from one pool
    rename: str = "random"  # random: fresh names per example and epoch; once: drawn once per example (PlanGPT); sorted: pool order
    atom_order: str = "canonical"  # canonical | shuffled
    # learned: every token's row trained; fixed: object tokens' rows fixed distinct random vectors plus one
    # learned shift (genplan.nn.transformer.Transformer.token_table; not in the paper: experiments/sequence-recipe.md)
    object_embeddings: str = "learned"
    max_tokens: int = 500  # generation cap, as SymT
    network: NetworkSettings = field(default_factory=NetworkSettings)
    train: TrainSettings = field(default_factory=TrainSettings)

    def to_dict(self) -> dict:
        out = base.drop_defaults(super().to_dict(), {"object_embeddings": "learned"})
        base.drop_defaults(out["train"], {"length_window": None})  # stored only where set: older keys unchanged
        return out


class PlanGPT:
    family = "plangpt"
    system = "plangpt"

    def __init__(self, identity: dict, vocab, net, settings: PlanGPTSettings, domain_info):
        self.identity, self.vocab, self.net, self.settings = identity, vocab, net, settings
        self.domain_info = domain_info
        self.name, self.domain, self.seed = identity["name"], identity["domain"], identity["seed"]

    @property
    def variant(self) -> str:
        """How the weights were chosen: `ce` or `ces` (PlanGPT Table 1's rows)."""
        return self.settings.train.stop

    @classmethod
    def from_envelope(cls, env: dict, path) -> "PlanGPT":

        from genplan.nn.transformer import Transformer, TransformerConfig
        from genplan.tokens.vocab import Vocabulary

        try:
            settings = PlanGPTSettings.from_entry(env["config"]["settings"])
            vocab = Vocabulary.from_dict(env["vocabulary"])
            net = Transformer(TransformerConfig(**env["config"]["network"]))
            net.load_state_dict(env["weights"])
            net.eval()
            domain_info = domain_of_text(env["config"]["domain_pddl"])
        except GenplanError:
            raise
        except Exception as exc:  # torch and the tokens layer raise their own errors
            raise GenplanError(f"corrupt PlanGPT checkpoint: {type(exc).__name__}: {str(exc)[:200]}", path) from None
        return cls(env["identity"], vocab, net, settings, domain_info)

