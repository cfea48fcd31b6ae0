"""Training, checkpoints and resumption of the transition models (real wlplan, torch, xgboost)
on the small Gripper trajectories of test_features."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest
import torch
from conftest import run_cli
from test_features import gripper_data, task_of  # noqa: F401  (fixture)

from genplan.errors import GenplanError
from genplan.models.transition.model import TransitionModel, parse_model_name
from genplan.models.transition.train import train_model
from genplan.report.collect import missing_reported

LSTM = {"epochs": 12, "batch_size": 2, "lr": 0.01, "checkpoint_every": 2}
XGB = {"n_estimators": 20, "max_depth": 3, "learning_rate": 0.3}


def train(data, out_dir, model, learner=None, seed=13, **kw):
    params = {"learner": learner or (LSTM if "_lstm_" in model else XGB), "device": "cpu", "threads": 1}
    out = out_dir / model / "model.ckpt"
    summary = train_model(model, "gripper", data["train"], data["val"], params, seed, out,
                          out.with_name("training.csv"), out.with_name("summary.json"), **kw)
    return out, summary


def history(out):
    with open(out.with_name("training.csv")) as fh:
        return list(csv.DictReader(fh))


@pytest.fixture(scope="module")
def trained(gripper_data, tmp_path_factory):  # noqa: F811
    d = tmp_path_factory.mktemp("models")
    return {m: train(gripper_data, d, m) for m in ("wl_lstm_state", "wl_lstm_delta", "wl_xgb_delta", "fsf_xgb_state")}


def test_training_reduces_the_loss(trained):
    for model, (out, summary) in trained.items():
        rows = history(out)
        loss = "train_loss" if "_lstm_" in model else "train_rmse"
        assert float(rows[-1][loss]) < float(rows[0][loss]), model
        assert summary["feature_dim"] > 0 and summary["train_transitions"] == 3 + 5 + 9
        assert not missing_reported(summary)  # the job stamps job_cpu_s (genplan.training.job)
        assert json.loads(out.with_name("summary.json").read_text()) == summary
    assert trained["wl_lstm_state"][1]["lstm_parameters"] > 1_000_000
    assert trained["wl_xgb_delta"][1]["xgb_nodes"] > trained["wl_xgb_delta"][1]["xgb_trees"] > 0


def test_checkpoints_round_trip(trained, gripper_data):  # noqa: F811
    task = task_of(gripper_data["files"][3])
    for model, (out, summary) in trained.items():
        raw = torch.load(out, weights_only=True)
        assert raw["format"] == "genplan-model" and raw["family"] == "transition"
        ident = raw["identity"]
        assert (ident["name"], ident["domain"], ident["seed"], ident["dim"]) == (model, "gripper", 13, summary["feature_dim"])
        tm = TransitionModel.load(out, expect_domain="gripper")
        assert (tm.encoding, tm.learner, tm.mode) == parse_model_name(model)
        bound = tm.encoder.bind(task)
        states = bound.embed([task.init, task.init | {("at-robby", "roomb")} - {("at-robby", "rooma")}])
        pred = tm.predict_next(states, bound.embed_goal())
        assert pred.shape == states.shape and np.isfinite(pred).all()
        assert tm.distance(pred[0], states).shape == (2,) and tm.distance(pred, states).shape == (2, 2)
        pred2, hidden = tm.predict_next_recurrent(states, bound.embed_goal(), None)
        assert np.allclose(pred, pred2, atol=1e-6)
        if tm.learner == "lstm":
            assert hidden[0].shape == (2, 2, 256)
            step2, _ = tm.predict_next_recurrent(states, bound.embed_goal(), hidden)
            assert not np.allclose(step2, pred)  # the memory is used


def test_delta_mode_adds_the_state_and_uses_l2(trained, gripper_data):  # noqa: F811
    tm = TransitionModel.load(trained["wl_xgb_delta"][0])
    task = task_of(gripper_data["files"][2])
    bound = tm.encoder.bind(task)
    s = bound.embed([task.init])
    g = bound.embed_goal()
    raw = tm._predictor.inplace_predict(np.hstack([s, g[None, :]]))
    assert np.allclose(tm.predict_next(s, g), s + raw.reshape(s.shape), atol=1e-5)
    assert np.isclose(tm.distance(s[0], s + 3.0)[0], 3.0 * np.sqrt(tm.dim), rtol=1e-5)
    state_model = TransitionModel.load(trained["wl_lstm_state"][0])
    assert np.isclose(state_model.distance(s[0], 2.0 * s)[0], 0.0, atol=1e-6)  # 1 - cosine


def test_wrong_domain_and_corrupt_checkpoints(trained, tmp_path):
    out = trained["wl_lstm_delta"][0]
    with pytest.raises(GenplanError, match="model of domain 'gripper', not 'blocks'"):
        TransitionModel.load(out, expect_domain="blocks")
    broken = tmp_path / "broken.ckpt"
    broken.write_bytes(out.read_bytes()[:5000])
    with pytest.raises(GenplanError, match="corrupt or not a genplan checkpoint"):
        TransitionModel.load(broken)
    other = tmp_path / "other.ckpt"
    torch.save({"format": "something-else"}, other)
    with pytest.raises(GenplanError, match="unknown checkpoint format"):
        TransitionModel.load(other)


def test_resume_after_a_kill(gripper_data, tmp_path):  # noqa: F811
    def kill_after_5(epoch):
        if epoch == 5:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        train(gripper_data, tmp_path / "a", "wl_lstm_delta", on_epoch=kill_after_5)
    out = tmp_path / "a" / "wl_lstm_delta" / "model.ckpt"
    partial = out.with_name("model.ckpt.partial")
    assert partial.is_file() and not out.exists()
    _, summary = train(gripper_data, tmp_path / "a", "wl_lstm_delta")
    assert summary["resumed_from_epoch"] == 4 and summary["epochs"] == LSTM["epochs"]
    assert not partial.exists() and [int(r["epoch"]) for r in history(out)] == list(range(1, 13))
    straight, _ = train(gripper_data, tmp_path / "b", "wl_lstm_delta")
    resumed_w, straight_w = torch.load(out, weights_only=True), torch.load(straight, weights_only=True)
    for k, v in straight_w["weights"].items():
        assert torch.equal(v, resumed_w["weights"][k]), k


def test_a_partial_state_of_another_job_is_set_aside(gripper_data, tmp_path):  # noqa: F811
    def stop(epoch):
        if epoch == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        train(gripper_data, tmp_path, "wl_lstm_delta", on_epoch=stop)
    out = tmp_path / "wl_lstm_delta" / "model.ckpt"
    partial = out.with_name("model.ckpt.partial")
    _, summary = train(gripper_data, tmp_path, "wl_lstm_delta", seed=14)
    stale = list(out.parent.glob("model.ckpt.partial.stale-*"))
    assert len(stale) == 1 and torch.load(stale[0], weights_only=True)["job"]["seed"] == 13
    assert summary["resumed_from_epoch"] == 0 and summary["epochs"] == LSTM["epochs"] and out.is_file()
    assert summary["divergences"] >= 0 and not partial.exists()
    partial.write_bytes(b"not a checkpoint")
    settings = {"family": "transition", "encoding": "wl", "learner": "lstm", "mode": "delta", "train": LSTM}
    res = run_cli("train", "--model", "wl_lstm_delta", "--settings", json.dumps(settings), "--domain", "gripper",
                  "--train", gripper_data["train"], "--validation", gripper_data["val"], "--seed", "13",
                  "--device", "cpu", "--out", out)
    assert res.returncode == 0, res.stderr
    assert "is corrupt" in res.stderr and "set aside as" in res.stderr and not partial.exists()
    assert len(list(out.parent.glob("model.ckpt.partial.stale-*"))) == 2
