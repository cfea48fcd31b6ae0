"""The optimiser and learning-rate schedule of the shared training loop (`genplan.training.loop`):
`LoopConfig` (every setting of the loop), `lr_at` (constant, or linear warmup then cosine decay to
`min_lr`) and `make_optimizer` (AdamW, weight decay on matrices only, as nanoGPT; fused or multi-tensor)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import nn

SCHEDULES = ("cosine", "constant")
@dataclass
class LoopConfig:
    epochs: int = 1
    max_steps: int | None = None          # stop after this many optimizer steps (mid-epoch too)
    lr: float = 1e-3
    schedule: str = "cosine"              # "cosine" (warmup, cosine decay to min_lr) or "constant"
    warmup_steps: int = 0
    min_lr: float = 0.0
    decay_steps: int | None = None        # None: decay_epochs x steps_per_epoch, else max_steps, else epochs x it
    decay_epochs: int | None = None       # the cosine's length in epochs where it differs from `epochs`
    betas: tuple[float, float] = (0.9, 0.999)
    eps: float = 1e-8
    weight_decay: float = 0.0             # on parameters of 2 or more dimensions
    grad_clip: float | None = None        # max gradient norm; None: no clipping
    bf16: bool = True                     # bfloat16 autocast on CUDA
    cpu_bf16: bool = False                # bfloat16 autocast on a CPU as well (oneDNN; faster where the CPU has bf16)
    select_every: int | None = None       # steps between selections; None: after each epoch
    higher_is_better: bool = False        # the selection score's direction (coverage: True)
    checkpoint_every: int | None = 1      # epochs between partial states; None or 0: never
    partial_every_steps: int | None = None  # a partial state inside an epoch too, after this many steps ...
    partial_every_s: float | None = 600.0   # ... or this many seconds, whichever comes first (a job
                                            # killed for its wall clock loses minutes, not an epoch)
    spike_factor: float | None = 10.0     # None: no spike detection
    spike_after_epochs: int = 1
    patience: int | None = None           # stop after this many selections without a better score
    keep: str = "best"                    # best: the weights of the best selection | last: the last step's
    time_limit_s: float | None = None     # no epoch starts that would end past this many seconds of training
    compile: bool = False                 # torch.compile the model's training forward (and its backward)
    defer_sync: bool | None = None        # losses and norms read every `sync_every` steps, not every step, and a
                                          # non-finite step skipped on the device; None: on CUDA only
    sync_every: int = 100                 # steps between reads of the deferred values (and at every selection,
                                          # partial state and epoch end)

    def __post_init__(self):
        if self.schedule not in SCHEDULES:
            raise ValueError(f"Unknown value {self.schedule=}. Must be from {list(SCHEDULES)}")
        if self.keep not in ("best", "last"):
            raise ValueError(f"Unknown value {self.keep=}. Must be best or last")
        if self.epochs < 1 or self.lr <= 0:
            raise ValueError(f"need epochs >= 1 and lr > 0, got {self.epochs=}, {self.lr=}")
        if self.decay_epochs is not None and self.decay_epochs < 1:
            raise ValueError(f"need decay_epochs >= 1 or None, got {self.decay_epochs=}")
        if self.time_limit_s is not None and self.time_limit_s <= 0:
            raise ValueError(f"need time_limit_s > 0 or None, got {self.time_limit_s=}")
        if self.sync_every < 1:
            raise ValueError(f"need sync_every >= 1, got {self.sync_every=}")
        self.betas = tuple(self.betas)


def lr_at(cfg: LoopConfig, step: int, decay_steps: int | None = None) -> float:
    """The learning rate of optimizer step `step` (0-based): `constant`, or a linear warmup over
    `warmup_steps` to `lr`, then a cosine decay reaching `min_lr` at `decay_steps` and staying."""
    if cfg.schedule == "constant":
        return cfg.lr
    if step < cfg.warmup_steps:
        return cfg.lr * (step + 1) / cfg.warmup_steps
    total = decay_steps if decay_steps is not None else cfg.decay_steps
    if total is None:
        raise ValueError("the cosine schedule needs decay_steps, max_steps or steps_per_epoch")
    ratio = min(1.0, (step - cfg.warmup_steps) / max(1, total - cfg.warmup_steps))
    return cfg.min_lr + 0.5 * (1.0 + math.cos(math.pi * ratio)) * (cfg.lr - cfg.min_lr)


def make_optimizer(model: nn.Module, cfg: LoopConfig, fused: bool = False) -> torch.optim.Optimizer:
    """AdamW over the model's trainable parameters. `fused`: torch's fused kernel (one launch for every
    parameter; it also skips a step on the device, `found_inf`), else the multi-tensor (`foreach`) one,
    which on a CPU gives the bytes of the per-parameter loop AdamW runs there by default (checked by
    tests/test_step_identity.py) in far fewer operator calls."""
    params = [p for p in model.parameters() if p.requires_grad]
    if cfg.weight_decay == 0:
        groups = [{"params": params}]
    else:
        groups = [g for g in ({"params": [p for p in params if p.dim() >= 2], "weight_decay": cfg.weight_decay},
                              {"params": [p for p in params if p.dim() < 2], "weight_decay": 0.0}) if g["params"]]
    kind = {"fused": True} if fused else {"foreach": True}
    return torch.optim.AdamW(groups, lr=cfg.lr, betas=cfg.betas, eps=cfg.eps, weight_decay=cfg.weight_decay, **kind)
