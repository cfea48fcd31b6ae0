"""The shared training loop (genplan.training) on a tiny regression model, CPU, seconds."""

from __future__ import annotations

import logging
import math

import pytest
import torch
from torch import nn

from genplan.training import LoopConfig, fit, lr_at
from genplan.training.partial_state import FORMAT

N, BATCH = 32, 8  # 4 steps per epoch


def data():
    g = torch.Generator().manual_seed(1)
    x = torch.randn(N, 4, generator=g)
    y = x @ torch.tensor([1.0, -2.0, 0.5, 3.0]) + 0.3 * torch.randn(N, generator=g)
    return x, y


def make_model(dropout: float = 0.0) -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 8), nn.Dropout(dropout), nn.Tanh(), nn.Linear(8, 1))


X, Y = data()


def make_batches(gen):
    order = torch.randperm(N, generator=gen)
    return [(X[order[i:i + BATCH]], Y[order[i:i + BATCH]]) for i in range(0, N, BATCH)]


def mse(model, batch):
    x, y = batch
    return ((model(x).squeeze(-1) - y) ** 2).mean()


def run(cfg: LoopConfig, loss_fn=mse, model=None, **kw):
    model = model or make_model()
    return model, fit(model, loss_fn, make_batches, cfg, seed=7, device="cpu", **kw)


def without_seconds(history):
    return [{k: v for k, v in row.items() if k != "seconds"} for row in history]


def same_weights(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def test_warmup_cosine_and_constant_schedules():
    cfg = LoopConfig(lr=1.0, min_lr=0.1, warmup_steps=4, decay_steps=14)
    assert [lr_at(cfg, s) for s in range(4)] == [0.25, 0.5, 0.75, 1.0]
    assert lr_at(cfg, 4) == pytest.approx(1.0)
    assert lr_at(cfg, 9) == pytest.approx(0.1 + 0.45 * (1 + math.cos(math.pi / 2)))
    assert lr_at(cfg, 14) == pytest.approx(0.1) and lr_at(cfg, 1000) == pytest.approx(0.1)
    assert all(lr_at(cfg, s) >= lr_at(cfg, s + 1) for s in range(3, 20))
    # the loop follows it step by step: the row's lr is the one of the epoch's last step
    cfg = LoopConfig(epochs=5, lr=0.05, min_lr=0.005, warmup_steps=3, spike_factor=None)
    _, state = run(cfg, steps_per_epoch=4)
    assert [r["lr"] for r in state.history] == pytest.approx([lr_at(cfg, 4 * e - 1, 20) for e in range(1, 6)])
    assert 0.005 < state.history[-1]["lr"] < 0.006  # step 19 of 20: almost at min_lr
    _, state = run(LoopConfig(epochs=3, lr=0.01, schedule="constant"))
    assert [r["lr"] for r in state.history] == [0.01] * 3
    with pytest.raises(ValueError, match="Unknown value"):
        LoopConfig(schedule="linear")
    with pytest.raises(ValueError, match="cosine schedule needs"):
        run(LoopConfig(epochs=2))


def test_clipping_bounds_the_gradient_norm():
    seen = []

    def loss_fn(model, batch):  # the gradients of the previous step are still there
        grads = [p.grad for p in model.parameters() if p.grad is not None]
        if grads:
            seen.append(torch.nn.utils.get_total_norm(grads).item())
        return 100.0 * mse(model, batch)

    _, state = run(LoopConfig(epochs=3, schedule="constant", grad_clip=0.5), loss_fn=loss_fn)
    assert len(seen) == 11 and max(seen) <= 0.5 + 1e-5
    assert min(r["grad_norm"] for r in state.history) > 0.5  # the unclipped norms, recorded


def _run_with_a_nan_epoch(cfg: LoopConfig, caplog):
    """`cfg` on a loss that is NaN for all of epoch 2; the state and the weights after each epoch."""
    calls, after_epoch = [0], {}

    def loss_fn(model, batch):
        calls[0] += 1
        loss = mse(model, batch)
        return loss * math.nan if 5 <= calls[0] <= 8 else loss  # all of epoch 2

    def on_epoch(epoch):
        after_epoch[epoch] = {k: v.clone() for k, v in model.state_dict().items()}

    model = make_model()
    with caplog.at_level(logging.WARNING, logger="genplan"):
        _, state = run(cfg, loss_fn=loss_fn, model=model, on_epoch=on_epoch)
    return state, after_epoch


def test_a_non_finite_loss_skips_the_step_and_is_counted(caplog):
    state, after_epoch = _run_with_a_nan_epoch(LoopConfig(epochs=3, schedule="constant"), caplog)
    assert state.divergences == 1 and state.skipped_steps == 4 and state.step == 8  # one episode
    assert [(e["epoch"], e["step"], e["kind"], e["steps"]) for e in state.divergence_events] == [
        (2, 4, "nonfinite_loss", 4)]
    assert same_weights(after_epoch[1], after_epoch[2])  # no update
    assert math.isnan(state.history[1]["train_loss"]) and math.isfinite(state.history[2]["train_loss"])
    assert sum("divergence (nonfinite_loss)" in r.message for r in caplog.records) == 1


def test_a_loss_spike_is_counted_and_the_step_taken():
    calls = [0]

    def loss_fn(model, batch):  # steps 10 and 11: one spike; step 14: another
        calls[0] += 1
        return mse(model, batch) * (1000.0 if calls[0] in (10, 11, 14) else 1.0)

    cfg = LoopConfig(epochs=4, lr=0.01, schedule="constant", spike_factor=10.0, spike_after_epochs=1)
    _, plain = run(cfg)
    assert plain.divergences == 0
    _, state = run(cfg, loss_fn=loss_fn)
    assert state.divergences == 2 and state.step == 16 and state.skipped_steps == 0
    assert [(e["epoch"], e["step"], e["kind"], e["steps"]) for e in state.divergence_events] == [
        (3, 10, "spike", 2), (4, 14, "spike", 1)]
    first = state.divergence_events[0]
    assert first["loss"] > 100 and first["peak"] >= first["loss"]


def test_best_weights_are_a_copy():
    scores, snapshots = iter([3.0, 1.0, 2.0, 5.0]), {}
    model = make_model()

    def on_epoch(epoch):
        snapshots[epoch] = {k: v.clone() for k, v in model.state_dict().items()}

    _, state = run(LoopConfig(epochs=4, schedule="constant"), model=model, select=lambda m: next(scores),
                   on_epoch=on_epoch)
    assert (state.best_epoch, state.best_score) == (2, 1.0)
    assert same_weights(state.best_weights, snapshots[2]) and not same_weights(snapshots[2], snapshots[4])
    with torch.no_grad():
        for p in model.parameters():
            p.add_(1.0)
    assert same_weights(state.best_weights, snapshots[2])


def test_higher_is_better_selection():
    for higher, best in ((True, 2), (False, 1)):
        scores = iter([1.0, 3.0, float("nan"), 2.0])
        _, state = run(LoopConfig(epochs=4, schedule="constant", higher_is_better=higher),
                       select=lambda m: next(scores))
        assert state.best_epoch == best and [r["score"] for r in state.history][:2] == [1.0, 3.0]


def test_selection_every_k_steps_and_max_steps():
    _, state = run(LoopConfig(epochs=10, max_steps=10, schedule="constant", select_every=3))
    assert [s["step"] for s in state.selections] == [3, 6, 9, 10]
    assert [r["step"] for r in state.history] == [4, 8, 10] and state.epoch == 3


def test_kill_and_resume_gives_the_same_weights_and_history(tmp_path):
    cfg = LoopConfig(epochs=7, lr=0.05, warmup_steps=3, min_lr=0.001, weight_decay=0.1, grad_clip=1.0,
                     checkpoint_every=2)
    job = {"model": "tiny", "seed": 7}
    straight_model, straight = run(cfg, model=make_model(0.2), steps_per_epoch=4)

    def kill(epoch):
        if epoch == 5:
            raise KeyboardInterrupt

    partial = tmp_path / "model.ckpt.partial"
    with pytest.raises(KeyboardInterrupt):
        run(cfg, model=make_model(0.2), steps_per_epoch=4, partial=partial, job=job, on_epoch=kill)
    saved = torch.load(partial, weights_only=True)
    assert saved["format"] == FORMAT and saved["epoch"] == 4 and saved["job"] == job
    torch.manual_seed(12345)  # the global generator (dropout) is restored from the partial state
    model, resumed = run(cfg, model=make_model(0.2), steps_per_epoch=4, partial=partial, job=job)
    assert resumed.resumed_from == 4 and straight.resumed_from == 0
    assert without_seconds(resumed.history) == without_seconds(straight.history)
    assert same_weights(model.state_dict(), straight_model.state_dict())
    assert same_weights(resumed.best_weights, straight.best_weights)
    assert resumed.best_epoch == straight.best_epoch and resumed.step == straight.step == 28


def test_a_stale_or_corrupt_partial_is_set_aside(tmp_path, caplog):
    cfg = LoopConfig(epochs=4, schedule="constant", checkpoint_every=1)
    partial = tmp_path / "model.ckpt.partial"

    def stop(epoch):
        if epoch == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run(cfg, partial=partial, job={"seed": 1}, on_epoch=stop)
    _, fresh = run(cfg)
    with caplog.at_level(logging.WARNING, logger="genplan"):
        _, state = run(cfg, partial=partial, job={"seed": 2})
    stale = list(tmp_path.glob("model.ckpt.partial.stale-*"))
    assert len(stale) == 1 and torch.load(stale[0], weights_only=True)["job"] == {"seed": 1}
    assert state.resumed_from == 0 and without_seconds(state.history) == without_seconds(fresh.history)
    assert any("belongs to another job" in r.message and str(stale[0]) in r.message for r in caplog.records)
    partial.write_bytes(b"not a checkpoint")
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="genplan"):
        _, state = run(cfg, partial=partial, job={"seed": 2})
    assert state.resumed_from == 0 and len(list(tmp_path.glob("model.ckpt.partial.stale-*"))) == 2
    assert any("is corrupt" in r.message for r in caplog.records)
    torch.save({"job": {"seed": 2}, "epoch": 2}, partial)  # the same job, saved before this loop existed
    _, state = run(cfg, partial=partial, job={"seed": 2})
    assert state.resumed_from == 0 and len(list(tmp_path.glob("model.ckpt.partial.stale-*"))) == 3


def test_patience_stops_after_selections_without_improvement():
    """Early stopping (PlanGPT's CE and CES): 2 selections without a better score end training."""
    scores = iter([0.5, 0.7, 0.6, 0.65, 0.9, 0.95])
    _, state = run(LoopConfig(epochs=6, schedule="constant", higher_is_better=True, patience=2),
                   select=lambda m: next(scores))
    assert state.epoch == 4 and state.best_epoch == 2 and len(state.selections) == 4
    _, full = run(LoopConfig(epochs=6, schedule="constant", patience=None), select=lambda m: 1.0)
    assert full.epoch == 6


def test_a_time_limit_starts_no_epoch_that_would_end_past_it(monkeypatch):
    """`time_limit_s`: after each epoch, one more as long as the mean so far must end within the limit
    (a GPU trial sized in wall time: experiments/recipe_trial.py). The loop's clock is faked: 0.5 s an epoch."""
    import itertools
    import types

    from genplan.training import loop

    clock = itertools.count(0.0, 0.5)  # two readings an epoch: its start and, 0.5 s later, its end
    monkeypatch.setattr(loop, "time", types.SimpleNamespace(perf_counter=lambda: next(clock)))
    _, state = run(LoopConfig(epochs=6, schedule="constant", time_limit_s=1.2))
    assert state.epoch == 2 and state.train_time_s == pytest.approx(1.0)  # a third would end at 1.5
    _, free = run(LoopConfig(epochs=6, schedule="constant"))
    assert free.epoch == 6
    with pytest.raises(ValueError, match="time_limit_s"):
        LoopConfig(time_limit_s=0)


def test_keep_last_with_in_epoch_selections_ends_on_the_last_step_when_time_stops_the_run(monkeypatch):
    """`keep: last` and `select_every`: the time limit stops the run after epoch 2 (step 8), between the
    selections at steps 3 and 6 and the next; the weights kept are step 8's, not step 6's."""
    import itertools
    import types

    from genplan.training import loop

    clock = itertools.count(0.0, 0.5)
    monkeypatch.setattr(loop, "time", types.SimpleNamespace(perf_counter=lambda: next(clock)))
    model, state = run(LoopConfig(epochs=6, lr=0.05, schedule="constant", select_every=3, keep="last",
                                  time_limit_s=1.2))
    assert state.epoch == 2 and state.step == 8
    assert [s["step"] for s in state.selections] == [3, 6, 8] and state.best_step == 8
    assert same_weights(state.best_weights, model.state_dict())
    _, best = run(LoopConfig(epochs=6, lr=0.05, schedule="constant", select_every=3, time_limit_s=1.2))
    assert [s["step"] for s in best.selections] == [3, 6]  # keep: best adds no selection


@pytest.mark.parametrize("key, value, default", [("time_limit_s", 300, None), ("cpu_bf16", True, False),
                                                ("decay_epochs", 7, None), ("compile", True, False)])
def test_an_added_train_setting_reaches_the_loop_and_is_left_out_of_stored_settings_when_unset(key, value, default):
    """Settings added after models were trained are stored only where set (checkpoints and resume keys unchanged)."""
    from genplan.models.settings import TrainSettings, drop_unset_train_keys

    assert getattr(TrainSettings(**{key: value}).loop_config(), key) == value
    assert getattr(TrainSettings().loop_config(), key) == default
    assert key not in drop_unset_train_keys({"train": {key: default, "epochs": 2}})["train"]
    assert drop_unset_train_keys({"train": {key: value}})["train"] == {key: value}


def test_decay_epochs_cuts_a_longer_cosine_short():
    """`decay_epochs` (experiments/sequence-recipe.md, p7a): 2 epochs of a 4-epoch cosine are the 4-epoch run's
    first 2, learning rates and losses alike, where a 2-epoch cosine decays sooner."""
    kw = dict(lr=0.05, warmup_steps=2, min_lr=0.005)
    _, cut = run(LoopConfig(epochs=2, decay_epochs=4, **kw), steps_per_epoch=4)
    _, full = run(LoopConfig(epochs=4, **kw), steps_per_epoch=4)
    _, short = run(LoopConfig(epochs=2, **kw), steps_per_epoch=4)
    assert without_seconds(cut.history) == without_seconds(full.history)[:2]
    assert short.history[1]["lr"] < cut.history[1]["lr"]
    with pytest.raises(ValueError, match="decay_epochs"):
        LoopConfig(decay_epochs=0)


def test_cpu_bf16_autocasts_the_step_on_a_cpu():
    """`cpu_bf16` (a throughput setting, experiments/sequence-recipe.md p5): the loss is computed under bfloat16
    autocast on a CPU, the weights stay float32 and the loss still falls; off, nothing is autocast."""
    seen = []

    def watched(model, batch):
        out = model[0](batch[0])  # the first Linear: bfloat16 under autocast
        seen.append(out.dtype)
        return mse(model, batch)

    model, state = run(LoopConfig(epochs=3, lr=0.01, schedule="constant", cpu_bf16=True), loss_fn=watched)
    assert set(seen) == {torch.bfloat16}
    assert all(p.dtype == torch.float32 for p in model.parameters())
    assert state.history[-1]["train_loss"] < state.history[0]["train_loss"]
    seen.clear()
    run(LoopConfig(epochs=1, schedule="constant"), loss_fn=watched)
    assert set(seen) == {torch.float32}


@pytest.mark.parametrize("model, key, good, bad", [
    *[(m, k, good, bad) for m in ("plangpt", "symt_e", "diffusion") for k, good, bad in
      (("time_limit_s", 300, 0), ("decay_epochs", 7, 0))],
    ("plangpt", "cpu_bf16", True, "yes"), ("symt_e", "cpu_bf16", True, 1), ("diffusion", "cpu_bf16", False, None),
    ("plangpt", "compile", True, "yes"), ("symt_e", "compile", True, 1), ("diffusion", "compile", False, None),
    ("plangpt", "length_window", 20, 0)])
def test_the_config_schema_takes_the_added_train_settings_and_refuses_bad_values(model, key, good, bad):
    from pathlib import Path

    import yaml

    from genplan import configuration

    root = Path(__file__).resolve().parents[1]
    schema = root / "workflow/schemas/config.schema.yaml"
    cfg = yaml.safe_load((root / "workflow/configs/paper-cpu.yaml").read_text())
    cfg["models"][model]["train"][key] = good
    assert not configuration.faults(cfg, schema)
    cfg["models"][model]["train"][key] = bad
    found = configuration.faults(cfg, schema)
    assert found and all(key in line for line in found)


def test_a_job_killed_inside_an_epoch_resumes_there_and_loses_only_the_steps_since_its_partial_state(tmp_path):
    """A partial state every `partial_every_steps` steps inside an epoch; a job killed before step 15
    (of 7 epochs of 4) resumes at step 10, inside epoch 3, and ends with the uninterrupted run's weights,
    history and best weights. The best weights are written beside the partial state, once per change."""
    cfg = LoopConfig(epochs=7, lr=0.05, warmup_steps=3, min_lr=0.001, weight_decay=0.1, grad_clip=1.0,
                     checkpoint_every=100, partial_every_steps=5, partial_every_s=None)
    job = {"model": "tiny", "seed": 7}
    straight_model, straight = run(cfg, model=make_model(0.2), steps_per_epoch=4)

    def kill(step):
        if step == 14:
            raise KeyboardInterrupt

    partial = tmp_path / "model.ckpt.partial"
    with pytest.raises(KeyboardInterrupt):
        run(cfg, model=make_model(0.2), steps_per_epoch=4, partial=partial, job=job, before_step=kill)
    saved = torch.load(partial, weights_only=True)
    assert (saved["step"], saved["epoch"], saved["mid_epoch"]["batches"]) == (10, 2, 2)
    assert "best_weights" not in saved
    assert (tmp_path / "model.ckpt.partial.best").is_file()
    torch.manual_seed(12345)  # the global generator (dropout) is restored from the partial state
    model, resumed = run(cfg, model=make_model(0.2), steps_per_epoch=4, partial=partial, job=job)
    assert resumed.resumed_from_step == 10 and 14 - resumed.resumed_from_step <= cfg.partial_every_steps
    assert without_seconds(resumed.history) == without_seconds(straight.history)
    assert same_weights(model.state_dict(), straight_model.state_dict())
    assert same_weights(resumed.best_weights, straight.best_weights)
    assert resumed.best_epoch == straight.best_epoch and resumed.step == straight.step == 28


def test_a_partial_state_without_its_best_weights_is_set_aside(tmp_path, caplog):
    cfg = LoopConfig(epochs=4, lr=0.05, checkpoint_every=1, partial_every_s=None)
    partial = tmp_path / "model.ckpt.partial"

    def stop(epoch):
        if epoch == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run(cfg, partial=partial, job={"seed": 1}, on_epoch=stop, steps_per_epoch=4)
    (tmp_path / "model.ckpt.partial.best").unlink()
    with caplog.at_level(logging.WARNING, logger="genplan"):
        _, state = run(cfg, partial=partial, job={"seed": 1}, steps_per_epoch=4)
    assert state.resumed_from == 0 and "has no best weights beside it" in caplog.text
    assert list(tmp_path.glob("model.ckpt.partial.stale-*"))


# The deferred step (CUDA's by default, `defer_sync` here on the CPU): no value read inside a
# step, fused AdamW, the values read every `sync_every` steps and accounted for as the step-by-step path does.

def with_metrics():
    """mse with metrics: a tensor every step, a float every step, a tensor every other step."""
    calls = [0]

    def loss_fn(m, b):
        calls[0] += 1
        loss = mse(m, b)
        extra = {"twice": 2 * loss.detach(), "one": 1.0}
        return loss, {**extra, "odd": loss.detach() + 1} if calls[0] % 2 else extra
    return loss_fn


def test_a_deferred_step_gives_the_history_of_the_step_that_waits():
    kw = dict(epochs=4, lr=0.01, schedule="constant", grad_clip=1.0, weight_decay=0.1)
    model_a, waits = run(LoopConfig(**kw), loss_fn=with_metrics())
    model_b, deferred = run(LoopConfig(**kw, defer_sync=True, sync_every=3), loss_fn=with_metrics())
    assert deferred.step == waits.step == 16 and deferred.divergences == waits.divergences == 0
    for a, b in zip(waits.history, deferred.history):
        assert (a["epoch"], a["step"], a["lr"], a["one"]) == (b["epoch"], b["step"], b["lr"], b["one"])
        for k in ("train_loss", "grad_norm", "twice", "odd", "score"):  # fused AdamW: the same up to rounding
            assert b[k] == pytest.approx(a[k], rel=1e-4)
    for k, v in model_a.state_dict().items():
        assert torch.allclose(v, model_b.state_dict()[k], atol=1e-5)


def test_a_deferred_non_finite_step_is_skipped_on_the_device_and_counted_when_read(caplog):
    state, after_epoch = _run_with_a_nan_epoch(LoopConfig(epochs=3, schedule="constant", defer_sync=True), caplog)
    # the host learns of the skipped steps after they ran: they count as steps (the schedule went on)
    assert state.divergences == 1 and state.skipped_steps == 4 and state.step == 12
    assert [(e["epoch"], e["step"], e["kind"], e["steps"]) for e in state.divergence_events] == [
        (2, 4, "nonfinite_loss", 4)]
    assert same_weights(after_epoch[1], after_epoch[2])  # fused AdamW's found_inf: no update, moments kept
    assert math.isnan(state.history[1]["train_loss"]) and math.isfinite(state.history[2]["train_loss"])
    assert state.history[2]["train_loss"] < state.history[0]["train_loss"]
    assert sum("divergence (nonfinite_loss)" in r.message for r in caplog.records) == 1


def test_a_deferred_spike_is_recorded_at_its_step():
    calls = [0]

    def loss_fn(model, batch):  # steps 10 and 11: one spike; step 14: another
        calls[0] += 1
        return mse(model, batch) * (1000.0 if calls[0] in (10, 11, 14) else 1.0)

    cfg = LoopConfig(epochs=4, lr=0.01, schedule="constant", spike_factor=10.0, spike_after_epochs=1,
                     defer_sync=True, sync_every=5)
    _, state = run(cfg, loss_fn=loss_fn)
    assert state.divergences == 2 and state.step == 16 and state.skipped_steps == 0
    assert [(e["epoch"], e["step"], e["kind"], e["steps"]) for e in state.divergence_events] == [
        (3, 10, "spike", 2), (4, 14, "spike", 1)]


def test_the_step_reads_no_value_from_the_device_when_deferred(monkeypatch):
    """No `.item()`, `float()` or `.tolist()` of a tensor inside a deferred step: the values are read at the
    `sync_every` interval, by `flush`, once for all the steps since the last read."""
    from genplan.training.loop import Trainer
    from genplan.training.state import EpochTally

    reads = []
    for name in ("item", "tolist", "__float__", "__bool__"):
        original = getattr(torch.Tensor, name)
        monkeypatch.setattr(torch.Tensor, name, (lambda orig, n: lambda self, *a: reads.append(n) or orig(self, *a))(
            original, name))
    trainer = Trainer(make_model(), mse, make_batches, LoopConfig(epochs=1, schedule="constant", defer_sync=True,
                                                                  sync_every=4), seed=7)
    tally = EpochTally(lr=0.0)
    batches = make_batches(trainer.gen)
    for batch in batches[:3]:
        reads.clear()
        trainer.train_step(batch, tally)
        assert reads == [] and tally.losses == []
    trainer.train_step(batches[3], tally)  # the fourth: read
    assert reads and len(tally.losses) == 4 and len(tally.norms) == 4


def test_compile_wraps_the_training_calls_only():
    """`compile`: the model and its children run torch.compile'd calls inside a training step, eager ones
    outside it (selections, planning, the saved model)."""
    from genplan.training.loop import Trainer

    trainer = Trainer(make_model(), mse, make_batches, LoopConfig(epochs=1, schedule="constant", compile=True),
                      seed=7)
    compiled = {id(m): call for m, call in trainer._compiled}
    assert set(compiled) == {id(trainer.model), *(id(m) for m in trainer.model.children())}
    with trainer._compiled_forward():
        assert trainer.model._compiled_call_impl is compiled[id(trainer.model)]
    assert trainer.model._compiled_call_impl is None


def test_a_partial_state_of_a_waiting_step_resumes_under_the_deferred_one(tmp_path):
    """A partial state saved by a step that waits (a CPU job, or the code before the deferred step) and
    resumed where the step is deferred (CUDA) runs fused AdamW, not the kernel the state was saved with
    (which cannot skip a step on the device), and trains on as the uninterrupted run does."""
    from genplan.training.loop import Trainer

    cfg = LoopConfig(epochs=4, lr=0.05, schedule="constant", grad_clip=1.0, checkpoint_every=1)
    job = {"model": "tiny", "seed": 7}
    partial = tmp_path / "model.ckpt.partial"

    def kill(epoch):
        if epoch == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run(cfg, partial=partial, job=job, on_epoch=kill)
    deferred = LoopConfig(**{**cfg.__dict__, "defer_sync": True})
    trainer = Trainer(make_model(), mse, make_batches, deferred, seed=7, partial=partial, job=job)
    state = trainer.run()
    assert state.resumed_from == 2 and state.step == 16 and state.skipped_steps == 0
    assert all(g["fused"] and not g["foreach"] for g in trainer.optimizer.param_groups)
    _, straight = run(cfg)
    assert [r["train_loss"] for r in state.history] == pytest.approx([r["train_loss"] for r in straight.history],
                                                                     rel=1e-4)
