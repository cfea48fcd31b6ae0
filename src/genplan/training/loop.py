"""One training loop for the torch families (the transition LSTM, PlanGPT, SymT, diffusion).

The family supplies the model, ``loss_fn(model, batch) -> loss`` (or ``(loss, {name: value})``
for extra metrics averaged per epoch, each a float or a 0-dim tensor, read with the loss),
``make_batches(generator) -> iterable of batches`` (one epoch; all its randomness drawn from the
loop's generator, seeded once from the job's seed) and optionally ``select(model) -> score``, the
selection score (validation loss by default; validation coverage through a planner with
``higher_is_better``), and ``before_step(step)``, called with the optimizer step about to be taken
(0-based; a resumed job continues the count) before each training batch's loss, for settings that
change with the step (genplan.nn.contrastive.WeightRamp). The loop owns the rest:

- AdamW (betas, eps, weight decay on matrices only, as nanoGPT), a learning-rate schedule per
  optimizer step: ``constant``, or ``cosine`` (linear warmup, then cosine decay to ``min_lr``);
  gradient-norm clipping (None: off); bf16 autocast on CUDA (on a CPU with `cpu_bf16`);
- after each epoch (or every ``select_every`` steps, and at the end) the selection score; the
  weights with the best score are kept as a copy, never a reference to ``state_dict()`` (with
  ``keep: last`` those of the last selection, the scores still recorded);
- no host synchronisation inside a step on CUDA (``defer_sync``): losses, norms and metrics stay on the
  device and are read every ``sync_every`` steps (and at selections, partial states, the epoch's end),
  a non-finite step is skipped on the device by fused AdamW; batches are copied from pinned memory
  without blocking; ``compile``: the model's training calls torch.compile'd. On a CPU the step reads
  its values at once, as it always has (the same bytes; the multi-tensor AdamW and clipping);
- divergences: a non-finite loss or gradient norm skips the step (``skipped_steps``); a loss above
  ``spike_factor`` times the lowest epoch-mean training loss so far (after ``spike_after_epochs``
  epochs) is recorded, the step is taken. Consecutive steps of one kind are one divergence: it is
  counted, logged once and listed (epoch, step, loss, kind, steps, peak) in ``divergence_events``;
- a history row per epoch (epoch, step, train_loss, score, lr, grad_norm, seconds, metrics);
- every ``checkpoint_every`` epochs a partial state (``training.partial_state``: weights, optimizer,
  scheduler, the loop's and torch's global generators, history, counters; the best weights in a
  file of their own, ``<partial>.best``, written only when they change) from which a killed job
  resumes to the same final weights and history as an uninterrupted one (randomness from Python's
  or numpy's generators is not saved: draw from the loop's); inside an epoch too, every
  ``partial_every_steps`` steps or ``partial_every_s`` seconds, whichever comes first: such a state
  also holds the loop's generator as the epoch began, the batches taken and the epoch's tally, and a
  resumed job draws the epoch's batches again from that generator, skips those taken and goes on.

`fit` runs a `Trainer`, whose `TrainState` is what it returns and what a partial state holds."""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import math
import time
from collections.abc import Callable, Iterable
from pathlib import Path

import torch
from torch import nn

from genplan.progress import progress
from genplan.training.partial_state import load_best, load_partial, save_best, save_partial
from genplan.training.placement import compiled_calls, to_device  # noqa: F401 (to_device: still importable from here)
from genplan.training.schedule import LoopConfig, lr_at, make_optimizer
from genplan.training.state import RESUMED, EpochTally, TrainState

log = logging.getLogger("genplan")


def copy_weights(model: nn.Module) -> dict:
    """A copy of the model's weights (tensors of their own, unaffected by later training)."""
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


def validation_loss(loss_fn: Callable, batches: Iterable) -> Callable[[nn.Module], float]:
    """A selection hook: the mean of `loss_fn` over the (fixed) validation batches."""
    batches = list(batches)

    def select(model: nn.Module) -> float:
        model.eval()
        losses = [loss_and_parts(loss_fn(model, b))[0].item() for b in batches]
        return sum(losses) / max(len(losses), 1)
    return select


def loss_and_parts(out) -> tuple[torch.Tensor, dict]:
    return out if isinstance(out, tuple) else (out, {})


class Trainer:
    """Trains one model in place with `fit`'s arguments (see there); `run()` returns the state."""

    def __init__(self, model: nn.Module, loss_fn: Callable, make_batches: Callable[[torch.Generator], Iterable],
                 cfg: LoopConfig, *, seed: int, device: str | torch.device = "cpu",
                 select: Callable[[nn.Module], float] | None = None, partial: str | Path | None = None,
                 job: dict | None = None, on_epoch: Callable[[int], None] | None = None,
                 steps_per_epoch: int | None = None, desc: str = "training", score_name: str = "score",
                 before_step: Callable[[int], None] | None = None):
        self.model, self.loss_fn, self.make_batches, self.cfg, self.select = model, loss_fn, make_batches, cfg, select
        self.before_step = before_step
        self.partial, self.job, self.on_epoch = partial, {} if job is None else job, on_epoch
        self.steps_per_epoch, self.desc, self.score_name = steps_per_epoch, desc, score_name
        self.device = torch.device(device)
        model.to(self.device)
        self.params = [p for p in model.parameters() if p.requires_grad]
        # deferred: no host synchronisation inside a step (CUDA by default; see train_step)
        self.deferred = cfg.defer_sync if cfg.defer_sync is not None else self.device.type == "cuda"
        try:
            self.optimizer = make_optimizer(model, cfg, fused=self.deferred)
        except RuntimeError:  # no fused AdamW for these parameters on this device: a step that waits
            self.deferred, self.optimizer = False, make_optimizer(model, cfg)
        self._pending: list[tuple] = []  # deferred steps not read yet: (step, loss, norm, extra, lr)
        self._compiled = compiled_calls(model) if cfg.compile else []
        self.scheduler = self._scheduler()
        self.gen = torch.Generator().manual_seed(seed)
        self.sign = 1.0 if cfg.higher_is_better else -1.0
        self.state = TrainState(best_score=-self.sign * math.inf, best_weights=copy_weights(model))
        self._mid_epoch: dict | None = None  # a resumed partial state's place inside its epoch
        self._epoch_generator = None  # the loop's generator as this epoch's batches began
        self._saved_at = (time.perf_counter(), 0)  # when and at which step the last partial state was written
        self._best_saved_step: int | None = None  # the best weights' step in <partial>.best
    def _scheduler(self) -> torch.optim.lr_scheduler.LambdaLR:
        cfg, spe = self.cfg, self.steps_per_epoch
        decay = cfg.decay_steps or (cfg.decay_epochs * spe if cfg.decay_epochs and spe else None)
        decay = decay or cfg.max_steps or (cfg.epochs * spe if spe else None)
        if cfg.schedule == "cosine" and decay is None:
            raise ValueError("the cosine schedule needs decay_steps, max_steps or steps_per_epoch")
        return torch.optim.lr_scheduler.LambdaLR(self.optimizer, lambda s: lr_at(cfg, s, decay) / cfg.lr)

    def run(self) -> TrainState:
        self.resume()
        epochs = range(self.state.epoch, self.cfg.epochs)
        for _ in progress(epochs, total=len(epochs), desc=self.desc) if self.cfg.epochs > 1 else epochs:
            if self.finished():
                break
            self.run_epoch()
            if self.on_epoch is not None:
                self.on_epoch(self.state.epoch)
        self._keep_last_step()
        self.state.optimizer = self.optimizer.state_dict()
        return self.state

    def _keep_last_step(self) -> None:
        """`keep: last` with `select_every`: a run stopped by its time limit or patience between two
        selections ends on the last step's weights, not the last in-epoch selection's (`end_epoch` makes
        the final selection only where it knows the epoch is the last: its count or max_steps)."""
        state = self.state
        if self.cfg.keep == "last" and state.history and state.last_selected_step != state.step:
            self.choose(state.history[-1]["train_loss"])

    def resume(self) -> None:
        """Continue from the partial state of this job, if there is one (see training.partial_state)."""
        saved = load_partial(self.partial, self.job)
        if saved is None:
            return
        best = saved.get("best_weights")
        if best is None:  # kept once, beside the partial state (load_best checks it is this state's)
            best = load_best(self.partial, saved["best_step"], self.job)
            if best is None:
                return
            self._best_saved_step = saved["best_step"]
        saved["best_weights"] = best
        self.model.load_state_dict(saved["weights"])
        self.optimizer.load_state_dict(saved["optimizer"])
        self._keep_kernel()
        self.scheduler.load_state_dict(saved["scheduler"])
        self.gen.set_state(saved["generator"])
        torch.set_rng_state(saved["rng"])  # dropout and other draws of the global generators
        if torch.cuda.is_available() and len(saved["cuda_rng"]) == torch.cuda.device_count():
            torch.cuda.set_rng_state_all(saved["cuda_rng"])
        for k in RESUMED:
            setattr(self.state, k, saved[k])
        self.state.resumed_from, self.state.resumed_from_step = saved["epoch"], saved["step"]
        self.state.best_weights = {k: v.to(self.device) for k, v in self.state.best_weights.items()}
        self._mid_epoch = saved.get("mid_epoch") or None
        self._saved_at = (time.perf_counter(), saved["step"])
        where = f"inside epoch {saved['epoch'] + 1}" if self._mid_epoch else f"after epoch {saved['epoch']}"
        log.info("%s: resuming %s (step %d) from %s", self.desc, where, saved["step"], self.partial)

    def _keep_kernel(self) -> None:
        """After loading an optimizer state: this trainer's AdamW kernel (fused or multi-tensor), not the
        one the state was saved with (a partial state of a CPU job, or of the code before the fused
        kernel, resumed on CUDA), the step counts where the fused kernel reads them (float32, beside
        their parameters)."""
        fused = bool(self.optimizer.defaults.get("fused"))
        for group in self.optimizer.param_groups:
            group["fused"], group["foreach"] = (True, None) if fused else (None, True)
        if fused:
            for p, st in self.optimizer.state.items():
                if isinstance(st.get("step"), torch.Tensor):
                    st["step"] = st["step"].to(device=p.device, dtype=torch.float32)

    def run_epoch(self) -> None:
        mid, self._mid_epoch = self._mid_epoch, None
        start = time.perf_counter() - (mid["elapsed"] if mid else 0.0)
        self.model.train()
        if mid:  # the epoch's batches drawn again from its generator; those taken before the kill skipped
            self.gen.set_state(mid["epoch_generator"])
        self._epoch_generator = self.gen.get_state()
        batches = iter(self._batches())
        taken = 0
        if mid:
            for _ in range(mid["batches"]):
                next(batches)
            taken = mid["batches"]
            torch.set_rng_state(mid["rng"])  # the global generator as it was when the state was written
            tally = EpochTally(**mid["tally"])
        else:
            tally = EpochTally(lr=self.optimizer.param_groups[0]["lr"])
        for batch in self._on_device(batches):
            taken += 1
            if not self.train_step(batch, tally):
                self._save_inside_epoch(tally, taken, start)
                continue
            if self.cfg.select_every and self.state.step % self.cfg.select_every == 0:
                self.flush(tally)
                tally.score = self.choose(tally.mean_loss())
            if self._out_of_steps():
                break
            self._save_inside_epoch(tally, taken, start)
        self.end_epoch(tally, start)

    def _save_inside_epoch(self, tally: EpochTally, taken: int, start: float) -> None:
        """A partial state inside the epoch when `partial_every_steps` steps or `partial_every_s` seconds
        have passed since the last one (never where partial states are off)."""
        cfg = self.cfg
        if self.partial is None or not cfg.checkpoint_every:
            return
        when, step = self._saved_at
        due_steps = bool(cfg.partial_every_steps) and self.state.step - step >= cfg.partial_every_steps
        due_time = bool(cfg.partial_every_s) and time.perf_counter() - when >= cfg.partial_every_s
        if due_steps or due_time:
            self.flush(tally)
            self.save(mid_epoch={"batches": taken, "epoch_generator": self._epoch_generator,
                                 "tally": dataclasses.asdict(tally), "elapsed": time.perf_counter() - start,
                                 "rng": torch.get_rng_state()})

    def _on_device(self, batches: Iterable) -> Iterable:
        """The batches with their tensors on the training device: on CUDA copied from pinned memory
        without waiting (`non_blocking`), each as the loop asks for it, which, the step not waiting for
        the device either, is while the device still runs the steps before; elsewhere as they come (a
        family's loss moves what is not there yet)."""
        if self.device.type != "cuda":
            yield from batches
            return
        for batch in batches:
            yield to_device(batch, self.device)

    def _batches(self) -> Iterable:
        batches = self.make_batches(self.gen)
        if self.cfg.epochs == 1:
            return progress(batches, total=self.cfg.max_steps or self.steps_per_epoch, desc=self.desc)
        return batches

    def train_step(self, batch, tally: EpochTally) -> bool:
        """One optimizer step on `batch`; False (the step skipped, a divergence) for a non-finite
        loss or gradient norm. Deferred (`LoopConfig.defer_sync`, CUDA by default) the step never
        waits for the device: the loss, gradient norm and metrics stay device tensors until `flush`
        reads them (every `sync_every` steps, at selections, partial states and the epoch's end) and
        replays what this method does on the host with them; a non-finite loss or norm skips the update
        on the device (fused AdamW's `found_inf`: weights and moments untouched), and such a step still
        advances the schedule and the step count (the host learns of it later). It returns True."""
        if self.before_step is not None:
            self.before_step(self.state.step)
        if self.deferred:
            return self._deferred_step(batch, tally)
        with self.autocast(), self._compiled_forward():
            loss, extra = loss_and_parts(self.loss_fn(self.model, batch))
        value = loss.item()
        if not math.isfinite(value):
            self.skip("nonfinite_loss", value)
            return False
        self._drop_grads()
        loss.backward()
        norm = self._grad_norm().item()
        if not math.isfinite(norm):
            self._drop_grads()
            self.skip("nonfinite_grad", value)
            return False
        tally.lr = self.optimizer.param_groups[0]["lr"]
        self.optimizer.step()
        self.scheduler.step()
        self.state.step += 1
        self._watch_spike(value)
        tally.add(value, norm, extra)
        return True

    def _deferred_step(self, batch, tally: EpochTally) -> bool:
        with self.autocast(), self._compiled_forward():
            loss, extra = loss_and_parts(self.loss_fn(self.model, batch))
        self._drop_grads()
        loss.backward()
        norm = self._grad_norm()
        loss = loss.detach().float()
        # fused AdamW reads `found_inf` (as torch.amp.GradScaler sets it): 1 leaves weights and moments as they were
        self.optimizer.found_inf = (~(torch.isfinite(loss) & torch.isfinite(norm))).float()
        lr = self.optimizer.param_groups[0]["lr"]
        self.optimizer.step()
        self.scheduler.step()
        self._pending.append((self.state.step, loss, norm, extra, lr))
        self.state.step += 1
        if len(self._pending) >= self.cfg.sync_every:
            self.flush(tally)
        return True

    def flush(self, tally: EpochTally) -> None:
        """Read the deferred steps' values (one transfer) and account for them in order, as
        `train_step` does at once where it is not deferred: divergences (a non-finite step was skipped
        on the device), spikes, the tally."""
        pending, self._pending = self._pending, []
        if not pending:
            return
        # one transfer: per step its loss, norm and tensor metrics (any keys, step by step), flat
        names = [[k for k, v in extra.items() if isinstance(v, torch.Tensor)] for _, _, _, extra, _ in pending]
        flat = [t.float() for (_, loss, norm, extra, _), keys in zip(pending, names)
                for t in (loss, norm, *(extra[k] for k in keys))]
        values, at = torch.stack(flat).tolist(), 0
        for (step, _, _, extra, lr), keys in zip(pending, names):
            value, norm, read = values[at], values[at + 1], values[at + 2:at + 2 + len(keys)]
            at += 2 + len(keys)
            if not math.isfinite(value):
                self.skip("nonfinite_loss", value, step)
                continue
            if not math.isfinite(norm):
                self.skip("nonfinite_grad", value, step)
                continue
            tally.lr = lr
            self._watch_spike(value, step + 1)
            tally.add(value, norm, {**extra, **dict(zip(keys, read))})

    def _drop_grads(self) -> None:
        """`optimizer.zero_grad(set_to_none=True)` without its bookkeeping (a profiler range, loops over groups)."""
        for p in self.params:
            p.grad = None

    @contextlib.contextmanager
    def _compiled_forward(self):
        """With `LoopConfig.compile`: the model and its children run torch.compile'd calls inside
        (training steps only: selections and planning stay eager)."""
        for module, call in self._compiled:
            module._compiled_call_impl = call
        try:
            yield
        finally:
            for module, _ in self._compiled:
                module._compiled_call_impl = None

    def _grad_norm(self) -> torch.Tensor:
        """The gradients' total norm before clipping (clipped to `grad_clip` when set), a tensor (the
        multi-tensor kernels: the bytes of the per-parameter ones, fewer operator calls)."""
        if self.cfg.grad_clip is not None:
            return torch.nn.utils.clip_grad_norm_(self.params, self.cfg.grad_clip, foreach=True)
        return torch.nn.utils.get_total_norm([p.grad for p in self.params if p.grad is not None], foreach=True)

    def _watch_spike(self, loss: float, step: int | None = None) -> None:
        cfg, low = self.cfg, self.state.loss_min
        if (cfg.spike_factor is not None and self.state.epoch >= cfg.spike_after_epochs and low is not None
                and low > 0 and loss > cfg.spike_factor * low):
            self.diverged("spike", loss, step)
        else:
            self.state.in_divergence = False

    def skip(self, kind: str, loss: float, step: int | None = None) -> None:
        self.diverged(kind, loss, step)
        self.state.skipped_steps += 1

    def diverged(self, kind: str, loss: float, step: int | None = None) -> None:
        """Open an event, or extend the open one of the same kind (one episode, one count); `step`:
        the event's step where it is not the count of steps taken (a deferred step's, read later)."""
        state, events = self.state, self.state.divergence_events
        if state.in_divergence and events[-1]["kind"] == kind:
            events[-1]["steps"] += 1
            if kind == "spike":
                events[-1]["peak"] = max(events[-1]["peak"], loss)
            return
        event = {"epoch": state.epoch + 1, "step": state.step if step is None else step, "loss": loss, "kind": kind,
                 "steps": 1, "peak": loss}
        state.divergences += 1
        state.in_divergence = True
        events.append(event)
        log.warning("%s: divergence (%s) in epoch %d after step %d: loss %g", self.desc, kind, event["epoch"],
                    event["step"], loss)

    def autocast(self):
        if self.device.type == "cuda" and self.cfg.bf16:
            return torch.autocast(device_type="cuda", dtype=torch.bfloat16)
        if self.device.type == "cpu" and self.cfg.cpu_bf16:
            return torch.autocast(device_type="cpu", dtype=torch.bfloat16)
        return contextlib.nullcontext()

    def choose(self, train_loss: float) -> float:
        """The selection score now; copies the weights if it is the best so far. `select` returns the score,
        or (score, {name: value}): values it measured beside it (e.g. a validation loss beside coverage),
        kept in the selection's record, which a resumed job restores, so that a training log written after a
        resume still has every earlier epoch's values."""
        state = self.state
        extras = {}
        if self.select is None:
            score = train_loss
        else:
            with torch.no_grad(), self.autocast():
                result = self.select(self.model)
            score, extras = result if isinstance(result, tuple) else (result, {})
            score = float(score)
            self.model.train()
        state.last_selected_step = state.step
        state.selections.append({**{k: float(v) for k, v in extras.items()}, "epoch": state.epoch + 1,
                                 "step": state.step, "score": score})
        if self.cfg.keep == "last" or self.sign * score > self.sign * state.best_score:  # False for NaN
            state.best_score, state.best_epoch, state.best_step = score, state.epoch + 1, state.step
            state.best_weights = copy_weights(self.model)
        return score

    def end_epoch(self, tally: EpochTally, start: float) -> None:
        """The epoch's selection (unless one was made at its last step), history row, log line and
        partial state."""
        self.flush(tally)
        state, train_loss = self.state, tally.mean_loss()
        last = state.epoch + 1 >= self.cfg.epochs or self._out_of_steps()
        if not self.cfg.select_every or (last and state.last_selected_step != state.step):
            tally.score = self.choose(train_loss)
        elif tally.score is None and state.selections:
            tally.score = state.selections[-1]["score"]  # the latest selection, from an earlier epoch
        state.epoch += 1
        if math.isfinite(train_loss):
            state.loss_min = train_loss if state.loss_min is None else min(state.loss_min, train_loss)
        seconds = time.perf_counter() - start
        state.train_time_s += seconds
        state.history.append({"epoch": state.epoch, "step": state.step, "train_loss": train_loss,
                              "score": tally.score, "lr": tally.lr, "grad_norm": tally.grad_norm(), "seconds": seconds,
                              **tally.metric_means()})
        log.info("%s: epoch %d/%d: train loss %.6f, %s %.6f", self.desc, state.epoch, self.cfg.epochs, train_loss,
                 self.score_name, math.nan if tally.score is None else tally.score)
        due = bool(self.cfg.checkpoint_every) and state.epoch % self.cfg.checkpoint_every == 0
        if self.partial is not None and due and not self.finished():
            self.save()

    def save(self, mid_epoch: dict | None = None) -> None:
        """Write the partial state a killed job resumes from (`mid_epoch`: its place inside an epoch);
        the best weights go to `<partial>.best` when they changed since they were last written there."""
        state = self.state
        if self._best_saved_step != state.best_step:
            save_best(self.partial, state.best_weights, state.best_step, self.job)
            self._best_saved_step = state.best_step
        cuda_rng = torch.cuda.get_rng_state_all() if torch.cuda.is_available() else []
        fields = {k: getattr(state, k) for k in RESUMED if k != "best_weights"}
        save_partial(self.partial, {**fields, "weights": self.model.state_dict(),
                                    "optimizer": self.optimizer.state_dict(), "scheduler": self.scheduler.state_dict(),
                                    "generator": self.gen.get_state(), "rng": torch.get_rng_state(),
                                    "cuda_rng": cuda_rng, "mid_epoch": mid_epoch or {}}, self.job)
        self._saved_at = (time.perf_counter(), state.step)

    def _out_of_steps(self) -> bool:
        return self.cfg.max_steps is not None and self.state.step >= self.cfg.max_steps

    def finished(self) -> bool:
        return (self.state.epoch >= self.cfg.epochs or self._out_of_steps() or self._patience_spent()
                or self._out_of_time())

    def _out_of_time(self) -> bool:
        """`time_limit_s` set and one more epoch, as long as the mean epoch so far, would end past it
        (training wall time, `train_time_s`, which a resumed job carries on)."""
        state, limit = self.state, self.cfg.time_limit_s
        if limit is None or state.epoch == 0:
            return False
        return state.train_time_s * (state.epoch + 1) / state.epoch > limit

    def _patience_spent(self) -> bool:
        """`patience` selections in a row since the best one (early stopping)."""
        if not self.cfg.patience:
            return False
        steps = [s["step"] for s in self.state.selections]
        best = self.state.best_step
        return best in steps and len(steps) - 1 - steps.index(best) >= self.cfg.patience


def fit(model: nn.Module, loss_fn: Callable, make_batches: Callable[[torch.Generator], Iterable],
        cfg: LoopConfig, *, seed: int, device: str | torch.device = "cpu",
        select: Callable[[nn.Module], float] | None = None, partial: str | Path | None = None,
        job: dict | None = None, on_epoch: Callable[[int], None] | None = None,
        steps_per_epoch: int | None = None, desc: str = "training", score_name: str = "score",
        before_step: Callable[[int], None] | None = None) -> TrainState:
    """Train `model` in place on `device`; returns the final `TrainState` (best weights a copy,
    optimizer the final state dict). Without `select` the score is the epoch's mean training loss.

    With `partial`, a partial state of this `job` there is resumed; one of another job, of
    another format or corrupt is set aside (renamed, logged) and training starts afresh.
    `on_epoch(epoch)` is called after each epoch (and after its partial state is written);
    `before_step(step)` before each training batch's loss (see the module docstring)."""
    return Trainer(model, loss_fn, make_batches, cfg, seed=seed, device=device, select=select, partial=partial,
                   job=job, on_epoch=on_epoch, steps_per_epoch=steps_per_epoch, desc=desc,
                   score_name=score_name, before_step=before_step).run()
