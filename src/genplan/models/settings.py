"""One base for the torch families' settings (PlanGPT, SymT, diffusion): a config model entry
without the keys that never decide the trained weights, as nested dataclasses.

The keys left out are `SCHEDULING_KEYS` (every family's: which family, seeds, strategies, splits and
domains to run) and the family's own planning-only keys (`PLANNING_KEYS` in its package's
`__init__.py`, which its `family.py` hands to the registry, set on its settings class as
`planning_keys`). A family's settings class is a dataclass subclass of `Settings` whose `network` and `train` fields have dataclass defaults (`field(default_factory=...)`):
`from_entry` builds them from the entry's mappings. `TrainSettings` holds what every family's
training shares, and its loop configuration (genplan.training.LoopConfig)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, is_dataclass
from typing import ClassVar

from genplan.errors import GenplanError

# keys of every model entry that schedule jobs, never a parameter of the weights (`domain_settings`
# holds per-domain values of the other keys and of `seeds`: genplan.registry.entry_for merges them)
SCHEDULING_KEYS = ("family", "seeds", "strategies", "strategy_splits", "domains", "domain_settings")


@dataclass
class TrainSettings:
    """The shared loop's settings of every sequence family (a family's subclass adds its own)."""
    epochs: int = 20
    batch_size: int = 32
    lr: float = 3e-4
    warmup_steps: int = 50
    weight_decay: float = 0.01
    grad_clip: float | None = 1.0
    patience: int | None = 5  # selections without a better score before stopping (None: never)
    checkpoint_every: int = 1  # epochs between partial states
    keep: str = "best"  # best: the weights of the best selection score | last: the last step's (scores still logged)
    time_limit_s: float | None = None  # wall seconds of training: no epoch starts that would end past it
    cpu_bf16: bool = False  # bfloat16 autocast on a CPU too (CUDA always; a throughput setting, not the papers')
    decay_epochs: int | None = None  # the cosine decays over this many epochs (None: `epochs`); more: cut short
    compile: bool = False  # torch.compile the network's training calls (a throughput setting: the same training,
    # the numbers a compiled kernel gives, not bytes equal to eager's; genplan.training.loop)

    def loop_config(self, **more):
        """AdamW with linear warmup, then cosine decay to lr / 10; `more`: other LoopConfig fields."""
        from genplan.training import LoopConfig

        return LoopConfig(epochs=self.epochs, lr=self.lr, schedule="cosine", warmup_steps=self.warmup_steps,
                          min_lr=self.lr / 10, weight_decay=self.weight_decay, grad_clip=self.grad_clip,
                          checkpoint_every=self.checkpoint_every, patience=self.patience, keep=self.keep,
                          time_limit_s=self.time_limit_s, cpu_bf16=self.cpu_bf16, decay_epochs=self.decay_epochs,
                          compile=self.compile, **more)

    def steps_per_epoch(self, examples: int) -> int:
        return -(-examples // self.batch_size)


@dataclass
class Settings:
    """Base of a family's settings dataclass (see the module docstring)."""
    label: ClassVar[str] = "model"  # the family's name in messages
    planning_keys: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def from_entry(cls, entry: dict):
        """From a config model entry (scheduling and planning keys ignored); GenplanError for an
        unknown key or a value `problems` refuses."""
        skip = SCHEDULING_KEYS + cls.planning_keys
        values = {k: v for k, v in entry.items() if k not in skip}
        try:
            for f in fields(cls):
                if is_dataclass(f.default_factory):  # nested settings, from a mapping (or none: defaults)
                    values[f.name] = f.default_factory(**(values.get(f.name) or {}))
            settings = cls(**values)
        except TypeError as exc:
            raise GenplanError(f"invalid {cls.label} settings: {exc}") from None
        problems = settings.problems() + _keep_problems(getattr(settings, "train", None))
        if problems:
            raise GenplanError(f"invalid {cls.label} settings: " + "; ".join(problems))
        return settings

    def problems(self) -> list[str]:
        """What is wrong with the values (a family overrides it); [] when nothing."""
        return []

    def to_dict(self) -> dict:
        return drop_unset_train_keys(asdict(self))


def drop_defaults(d: dict, defaults: dict) -> dict:
    """`d` without the keys of `defaults` that hold their default value: settings added after models were
    trained are stored only where set, so that checkpoints and resume keys stay as before they existed."""
    for key, value in defaults.items():
        if key in d and d[key] == value:
            del d[key]
    return d


def drop_unset_train_keys(d: dict) -> dict:
    """`train.keep: best`, `train.time_limit_s: None`, `train.cpu_bf16: False`, `train.decay_epochs: None` and
    `train.compile: False` (the defaults) left out of the stored settings: checkpoints and resume keys as before
    the keys existed."""
    train = d.get("train") if "train" in d else d
    if isinstance(train, dict):
        drop_defaults(train, {"keep": "best", "time_limit_s": None, "cpu_bf16": False, "decay_epochs": None,
                              "compile": False})
    return d


def _keep_problems(train) -> list[str]:
    if train is None or not hasattr(train, "keep"):
        return []
    if train.keep not in ("best", "last"):
        return [f"train.keep {train.keep!r} is not best or last"]
    if train.keep == "last" and train.patience:
        return [f"train.keep: last keeps the last step's weights, so patience ({train.patience}) would never "
                "stop training: set train.patience: null"]
    return []
