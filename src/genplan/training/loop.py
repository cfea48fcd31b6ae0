"""One training loop for the torch families (transition LSTM now; PlanGPT, SymT, diffusion later).

The family supplies the model, ``loss_fn(model, batch) -> loss`` (or ``(loss, {name: float})``
for extra metrics averaged per epoch), ``make_batches(generator) -> iterable of batches`` (one
epoch; all its randomness drawn from the loop's generator, seeded once from the job's seed) and
optionally ``select(model) -> score``, the selection score (validation loss by default; validation
coverage through a planner with ``higher_is_better``). The loop owns the rest:

- AdamW (betas, eps, weight decay on matrices only, as nanoGPT), a learning-rate schedule per
  optimizer step: ``constant``, or ``cosine`` (linear warmup, then cosine decay to ``min_lr``);
  gradient-norm clipping (None: off); bf16 autocast on CUDA only;
- after each epoch (or every ``select_every`` steps, and at the end) the selection score; the
  weights with the best score are kept as a copy, never a reference to ``state_dict()``;
- divergences: a non-finite loss or gradient norm skips the step (``skipped_steps``); a loss above
  ``spike_factor`` times the lowest epoch-mean training loss so far (after ``spike_after_epochs``
  epochs) is recorded, the step is taken. Consecutive steps of one kind are one divergence: it is
  counted, logged once and listed (epoch, step, loss, kind, steps, peak) in ``divergence_events``;
- a history row per epoch (epoch, step, train_loss, score, lr, grad_norm, seconds, metrics);
- every ``checkpoint_every`` epochs a partial state (``training.checkpoint``: weights, optimizer,
  scheduler, the loop's and torch's global generators, best weights, history, counters) from
  which a killed job resumes to the same final weights and history as an uninterrupted one
  (randomness from Python's or numpy's generators is not saved: draw from the loop's)."""

from __future__ import annotations

import contextlib
import logging
import math
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import torch
from torch import nn

from genplan.progress import progress
from genplan.training.checkpoint import load_partial, save_partial

log = logging.getLogger("genplan")

SCHEDULES = ("cosine", "constant")
# what a partial state restores (besides weights, optimizer, scheduler and generator)
RESUMED = ("epoch", "step", "best_epoch", "best_step", "best_score", "best_weights", "history", "selections",
           "divergences", "divergence_events", "in_divergence", "skipped_steps", "loss_min", "last_selected_step",
           "train_time_s")


@dataclass
class LoopConfig:
    epochs: int = 1
    max_steps: int | None = None          # stop after this many optimizer steps (mid-epoch too)
    lr: float = 1e-3
    schedule: str = "cosine"              # "cosine" (warmup, cosine decay to min_lr) or "constant"
    warmup_steps: int = 0
    min_lr: float = 0.0
    decay_steps: int | None = None        # None: max_steps, else epochs * steps_per_epoch
    betas: tuple[float, float] = (0.9, 0.999)
    eps: float = 1e-8
    weight_decay: float = 0.0             # on parameters of 2 or more dimensions
    grad_clip: float | None = None        # max gradient norm; None: no clipping
    bf16: bool = True                     # bfloat16 autocast on CUDA (never on CPU)
    select_every: int | None = None       # steps between selections; None: after each epoch
    higher_is_better: bool = False        # the selection score's direction (coverage: True)
    checkpoint_every: int | None = 1      # epochs between partial states; None or 0: never
    spike_factor: float | None = 10.0     # None: no spike detection
    spike_after_epochs: int = 1
    patience: int | None = None           # stop after this many selections without a better score

    def __post_init__(self):
        if self.schedule not in SCHEDULES:
            raise ValueError(f"Unknown value {self.schedule=}. Must be from {list(SCHEDULES)}")
        if self.epochs < 1 or self.lr <= 0:
            raise ValueError(f"need epochs >= 1 and lr > 0, got {self.epochs=}, {self.lr=}")
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


def copy_weights(model: nn.Module) -> dict:
    """A copy of the model's weights (tensors of their own, unaffected by later training)."""
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


def validation_loss(loss_fn: Callable, batches: Iterable) -> Callable[[nn.Module], float]:
    """A selection hook: the mean of `loss_fn` over the (fixed) validation batches."""
    batches = list(batches)

    def select(model: nn.Module) -> float:
        model.eval()
        losses = [_split(loss_fn(model, b))[0].item() for b in batches]
        return sum(losses) / max(len(losses), 1)
    return select


def _split(out) -> tuple[torch.Tensor, dict]:
    return out if isinstance(out, tuple) else (out, {})


def _optimizer(model: nn.Module, cfg: LoopConfig) -> torch.optim.Optimizer:
    params = [p for p in model.parameters() if p.requires_grad]
    if cfg.weight_decay == 0:
        groups = [{"params": params}]
    else:
        groups = [g for g in ({"params": [p for p in params if p.dim() >= 2], "weight_decay": cfg.weight_decay},
                              {"params": [p for p in params if p.dim() < 2], "weight_decay": 0.0}) if g["params"]]
    return torch.optim.AdamW(groups, lr=cfg.lr, betas=cfg.betas, eps=cfg.eps, weight_decay=cfg.weight_decay)


def fit(model: nn.Module, loss_fn: Callable, make_batches: Callable[[torch.Generator], Iterable],
        cfg: LoopConfig, *, seed: int, device: str | torch.device = "cpu",
        select: Callable[[nn.Module], float] | None = None, partial: str | Path | None = None,
        job: dict | None = None, on_epoch: Callable[[int], None] | None = None,
        steps_per_epoch: int | None = None, desc: str = "training", score_name: str = "score") -> dict:
    """Train `model` in place on `device`; returns the final state: epoch, step, best_epoch,
    best_step, best_score, best_weights (a copy), history (a dict per epoch), selections,
    divergences (count), divergence_events, skipped_steps, resumed_from (epoch; 0 if fresh),
    train_time_s, optimizer (state dict). Without `select` the score is the epoch's mean training loss.

    With `partial`, a partial state of this `job` there is resumed; one of another job, of
    another format or corrupt is set aside (renamed, logged) and training starts afresh.
    `on_epoch(epoch)` is called after each epoch (and after its partial state is written)."""
    device = torch.device(device)
    model.to(device)
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = _optimizer(model, cfg)
    decay = cfg.decay_steps or cfg.max_steps or (cfg.epochs * steps_per_epoch if steps_per_epoch else None)
    if cfg.schedule == "cosine" and decay is None:
        raise ValueError("the cosine schedule needs decay_steps, max_steps or steps_per_epoch")
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: lr_at(cfg, s, decay) / cfg.lr)
    gen = torch.Generator().manual_seed(seed)
    sign = 1.0 if cfg.higher_is_better else -1.0
    job = {} if job is None else job
    state = {"epoch": 0, "step": 0, "best_epoch": 0, "best_step": 0, "best_score": -sign * math.inf,
             "best_weights": copy_weights(model), "history": [], "selections": [], "divergences": 0,
             "divergence_events": [], "in_divergence": False, "skipped_steps": 0, "loss_min": None,
             "last_selected_step": -1, "train_time_s": 0.0, "resumed_from": 0}
    resume = load_partial(partial, job)
    if resume is not None:
        model.load_state_dict(resume["weights"])
        optimizer.load_state_dict(resume["optimizer"])
        scheduler.load_state_dict(resume["scheduler"])
        gen.set_state(resume["generator"])
        torch.set_rng_state(resume["rng"])  # dropout and other draws of the global generators
        if torch.cuda.is_available() and len(resume["cuda_rng"]) == torch.cuda.device_count():
            torch.cuda.set_rng_state_all(resume["cuda_rng"])
        state.update({k: resume[k] for k in RESUMED}, resumed_from=resume["epoch"])
        state["best_weights"] = {k: v.to(device) for k, v in state["best_weights"].items()}
        log.info("%s: resuming after epoch %d (step %d) from %s", desc, resume["epoch"], resume["step"], partial)

    def autocast():
        if device.type == "cuda" and cfg.bf16:
            return torch.autocast(device_type="cuda", dtype=torch.bfloat16)
        return contextlib.nullcontext()

    def diverged(kind: str, loss: float) -> None:
        """Open an event, or extend the open one of the same kind (one episode, one count)."""
        events = state["divergence_events"]
        if state["in_divergence"] and events[-1]["kind"] == kind:
            events[-1]["steps"] += 1
            if kind == "spike":
                events[-1]["peak"] = max(events[-1]["peak"], loss)
            return
        event = {"epoch": state["epoch"] + 1, "step": state["step"], "loss": loss, "kind": kind, "steps": 1,
                 "peak": loss}
        state.update(divergences=state["divergences"] + 1, in_divergence=True)
        events.append(event)
        log.warning("%s: divergence (%s) in epoch %d after step %d: loss %g", desc, kind, event["epoch"],
                    event["step"], loss)

    def choose(train_loss: float) -> float:
        """The selection score now; copies the weights if it is the best so far."""
        if select is None:
            score = train_loss
        else:
            with torch.no_grad(), autocast():
                score = float(select(model))
            model.train()
        state["last_selected_step"] = state["step"]
        state["selections"].append({"epoch": state["epoch"] + 1, "step": state["step"], "score": score})
        if sign * score > sign * state["best_score"]:  # False for NaN
            state.update(best_score=score, best_epoch=state["epoch"] + 1, best_step=state["step"],
                         best_weights=copy_weights(model))
        return score

    def finished() -> bool:
        return (state["epoch"] >= cfg.epochs or (cfg.max_steps is not None and state["step"] >= cfg.max_steps)
                or patience_spent())

    def patience_spent() -> bool:
        """`patience` selections in a row since the best one (early stopping)."""
        if not cfg.patience:
            return False
        steps = [s["step"] for s in state["selections"]]
        return state["best_step"] in steps and len(steps) - 1 - steps.index(state["best_step"]) >= cfg.patience

    epochs = range(state["epoch"], cfg.epochs)
    for _ in progress(epochs, total=len(epochs), desc=desc) if cfg.epochs > 1 else epochs:
        if finished():
            break
        start = time.perf_counter()
        model.train()
        losses, norms, metrics, lr, score = [], [], {}, optimizer.param_groups[0]["lr"], None
        batches = make_batches(gen)
        if cfg.epochs == 1:
            batches = progress(batches, total=cfg.max_steps or steps_per_epoch, desc=desc)
        for batch in batches:
            with autocast():
                loss, extra = _split(loss_fn(model, batch))
            value = loss.item()
            if not math.isfinite(value):
                diverged("nonfinite_loss", value)
                state["skipped_steps"] += 1
                continue
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            if cfg.grad_clip is not None:
                norm = torch.nn.utils.clip_grad_norm_(params, cfg.grad_clip).item()
            else:
                norm = torch.nn.utils.get_total_norm([p.grad for p in params if p.grad is not None]).item()
            if not math.isfinite(norm):
                optimizer.zero_grad(set_to_none=True)
                diverged("nonfinite_grad", value)
                state["skipped_steps"] += 1
                continue
            lr = optimizer.param_groups[0]["lr"]
            optimizer.step()
            scheduler.step()
            state["step"] += 1
            low = state["loss_min"]
            if (cfg.spike_factor is not None and state["epoch"] >= cfg.spike_after_epochs and low is not None
                    and low > 0 and value > cfg.spike_factor * low):
                diverged("spike", value)
            else:
                state["in_divergence"] = False
            losses.append(value)
            norms.append(norm)
            for k, v in extra.items():
                metrics[k] = metrics.get(k, 0.0) + float(v)
            if cfg.select_every and state["step"] % cfg.select_every == 0:
                score = choose(sum(losses) / len(losses))
            if cfg.max_steps is not None and state["step"] >= cfg.max_steps:
                break
        train_loss = sum(losses) / len(losses) if losses else math.nan
        last = state["epoch"] + 1 >= cfg.epochs or (cfg.max_steps is not None and state["step"] >= cfg.max_steps)
        if not cfg.select_every or (last and state["last_selected_step"] != state["step"]):
            score = choose(train_loss)
        elif score is None and state["selections"]:
            score = state["selections"][-1]["score"]  # the latest selection, from an earlier epoch
        state["epoch"] += 1
        if math.isfinite(train_loss):
            state["loss_min"] = train_loss if state["loss_min"] is None else min(state["loss_min"], train_loss)
        seconds = time.perf_counter() - start
        state["train_time_s"] += seconds
        state["history"].append({"epoch": state["epoch"], "step": state["step"], "train_loss": train_loss,
                                 "score": score, "lr": lr, "grad_norm": sum(norms) / len(norms) if norms else math.nan,
                                 "seconds": seconds, **{k: v / max(len(losses), 1) for k, v in metrics.items()}})
        log.info("%s: epoch %d/%d: train loss %.6f, %s %.6f", desc, state["epoch"], cfg.epochs, train_loss,
                 score_name, math.nan if score is None else score)
        due = bool(cfg.checkpoint_every) and state["epoch"] % cfg.checkpoint_every == 0
        if partial is not None and due and not finished():
            save_partial(partial, {**{k: state[k] for k in RESUMED}, "weights": model.state_dict(),
                                   "optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict(),
                                   "generator": gen.get_state(), "rng": torch.get_rng_state(),
                                   "cuda_rng": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else []},
                         job)
        if on_epoch is not None:
            on_epoch(state["epoch"])
    state["optimizer"] = optimizer.state_dict()
    return state
