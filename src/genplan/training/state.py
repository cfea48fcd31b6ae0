"""The typed state of the shared training loop: `TrainState` (what `fit` returns and a partial
state holds; `RESUMED` names the fields a partial state restores) and `EpochTally` (one epoch's
steps)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

# the fields of TrainState a partial state restores (besides weights, optimizer, scheduler and generators)
RESUMED = ("epoch", "step", "best_epoch", "best_step", "best_score", "best_weights", "history", "selections",
           "divergences", "divergence_events", "in_divergence", "skipped_steps", "loss_min", "last_selected_step",
           "train_time_s")


@dataclass
class TrainState:
    """Where training stands: counters, the best selection so far (its weights a copy), the history
    (a dict per epoch), selections and divergences; `RESUMED` fields go into partial states."""
    best_score: float
    best_weights: dict
    epoch: int = 0
    step: int = 0
    best_epoch: int = 0
    best_step: int = 0
    history: list[dict] = field(default_factory=list)
    selections: list[dict] = field(default_factory=list)  # {epoch, step, score}
    divergences: int = 0
    divergence_events: list[dict] = field(default_factory=list)  # {epoch, step, loss, kind, steps, peak}
    in_divergence: bool = False  # the last step opened or extended a divergence
    skipped_steps: int = 0
    loss_min: float | None = None  # the lowest epoch-mean training loss so far
    last_selected_step: int = -1
    train_time_s: float = 0.0
    resumed_from: int = 0  # the epoch of the partial state resumed; 0 if fresh
    resumed_from_step: int = 0  # the optimiser step of the partial state resumed (inside an epoch too); 0 if fresh
    optimizer: dict | None = None  # the optimizer's state dict, at the end


@dataclass
class EpochTally:
    """One epoch's steps: losses, gradient norms, summed extra metrics, the lr and score to log."""
    lr: float
    losses: list[float] = field(default_factory=list)
    norms: list[float] = field(default_factory=list)
    metrics: dict = field(default_factory=dict)
    score: float | None = None

    def add(self, loss: float, norm: float, extra: dict) -> None:
        self.losses.append(loss)
        self.norms.append(norm)
        for k, v in extra.items():
            self.metrics[k] = self.metrics.get(k, 0.0) + float(v)

    def mean_loss(self) -> float:
        return sum(self.losses) / len(self.losses) if self.losses else math.nan

    def grad_norm(self) -> float:
        return sum(self.norms) / len(self.norms) if self.norms else math.nan

    def metric_means(self) -> dict:
        return {k: v / max(len(self.losses), 1) for k, v in self.metrics.items()}
