"""FSF slot sizing as a setting: `slots: train_validation` (ours: a larger test
problem is refused) or `all_splits` (the reference's: every split's object counts, read from the
benchmark's manifest beside the trajectories), on small Gripper problems made here; a real
XGBoost model is trained and its encoder binds the larger problem."""

from __future__ import annotations

import csv
import shutil

import pytest
from test_features import DOMAIN, gripper_data, gripper_problem, task_of, trajectory_record, write_split  # noqa: F401

from genplan.errors import GenplanError
from genplan.features import encoder_from_dict, make_encoder
from genplan.features.base import ProblemView
from genplan.features.fsf import PAD
from genplan.models.transition import family
from genplan.models.transition.model import TransitionModel
from genplan.models.transition.train import train_model

XGB = {"n_estimators": 5, "max_depth": 2, "learning_rate": 0.3}


def test_all_splits_widens_the_slots_to_the_larger_problems(gripper_data):  # noqa: F811
    recs = gripper_data["records"]
    ours, theirs = make_encoder("fsf", DOMAIN), make_encoder("fsf", DOMAIN, slots="all_splits")
    for enc in (ours, theirs):
        enc.fit([recs[n] for n in (1, 2, 3, 4)])
    big = task_of(gripper_data["files"][6])
    theirs.widen([ProblemView.from_task(big)])
    assert (ours.capacity["ball"], theirs.capacity["ball"]) == (4, 6) and theirs.dim == ours.dim + 2
    with pytest.raises(GenplanError, match="4 FSF slots sized on the training and validation problems"):
        ours.bind(big)
    bound = theirs.bind(big)
    assert bound.embed([big.init]).shape == (1, theirs.dim)
    # a smaller problem: balls in slots 1-2, padding in the unused ball slots 3-6, grippers after them
    small = task_of(gripper_data["files"][2])
    vec = theirs.bind(small).embed([small.init])[0]
    assert (vec[3:7] == PAD).all() and theirs.bind(small).slot_of["left"] == 7
    d = theirs.to_dict()
    assert d["slots"] == "all_splits" and encoder_from_dict(d).capacity == theirs.capacity
    assert encoder_from_dict(d).slots == "all_splits"
    assert "slots" not in ours.to_dict()  # the default leaves the encoders of earlier runs unchanged
    with pytest.raises(ValueError, match="Unknown value slots='test'"):
        make_encoder("fsf", DOMAIN, slots="test")


def _results_layout(tmp_path, gripper_data):  # noqa: F811
    """<root>/trajectories/paper/gripper/{train,validation}.json.gz and the benchmark folder
    <root>/problems/paper/gripper with a manifest of every split (a 6-ball extrapolation problem)."""
    root = tmp_path / "results"
    traj = root / "trajectories" / "paper" / "gripper"
    traj.mkdir(parents=True)
    recs = gripper_data["records"]
    train = write_split(traj / "train.json.gz", [recs[n] for n in (1, 2, 3)])
    val = write_split(traj / "validation.json.gz", [recs[4]])
    bench = root / "problems" / "paper" / "gripper"
    rows = []
    for split, balls in (("train", (1, 2, 3)), ("validation", (4,)), ("extrapolation", (6,))):
        (bench / split).mkdir(parents=True)
        for n in balls:
            src = gripper_data["files"][n]
            shutil.copy(src, bench / split / src.name)
            rows.append({"problem": src.stem, "split": split, "file": f"{split}/{src.name}", "size": n,
                         "num_objects": n + 4, "seed": "", "canonical": ""})
    shutil.copy(DOMAIN, bench / "domain.pddl")
    with open(bench / "manifest.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    return train, val


def _train(train, val, out, encoder):
    params = {"encoder": encoder, "learner": XGB, "device": "cpu", "threads": 1}
    return train_model("fsf_xgb_state", "gripper", train, val, params, 13, out, out.with_name("log.csv"),
                       out.with_name("summary.json"))


def test_training_with_all_splits_reads_every_splits_object_counts(tmp_path, gripper_data):  # noqa: F811
    train, val = _results_layout(tmp_path, gripper_data)
    big = task_of(gripper_data["files"][6])
    summary = _train(train, val, tmp_path / "all" / "model.ckpt", {"slots": "all_splits"})
    assert (summary["fsf_slots"], summary["fsf_sized_on_problems"]) == ("all_splits", 5)
    model = TransitionModel.load(tmp_path / "all" / "model.ckpt", expect_domain="gripper")
    assert model.encoder.capacity["ball"] == 6 and model.dim == summary["feature_dim"]
    emb = model.encoder.bind(big).embed([big.init])
    assert model.predict_next(emb, model.encoder.bind(big).embed_goal()).shape == (1, model.dim)
    default = _train(train, val, tmp_path / "ours" / "model.ckpt", {})
    assert "fsf_slots" not in default and default["feature_dim"] == summary["feature_dim"] - 2
    ours = TransitionModel.load(tmp_path / "ours" / "model.ckpt")
    with pytest.raises(GenplanError, match="more than the 4 FSF slots"):
        ours.encoder.bind(big)


def test_all_splits_needs_the_benchmark_beside_the_trajectories(tmp_path, gripper_data):  # noqa: F811
    with pytest.raises(GenplanError, match="results layout") as err:
        _train(gripper_data["train"], gripper_data["val"], tmp_path / "m.ckpt", {"slots": "all_splits"})
    assert err.value.path is not None


def test_slots_is_an_fsf_option():
    wl = {"family": "transition", "encoding": "wl", "learner": "xgb", "mode": "state", "seeds": [13],
          "strategies": ["beam3-pooled"], "encoder": {"slots": "all_splits"}}
    assert family.check("wl_xgb_state", wl) == ["encoder.slots is an FSF option"]
    assert family.check("fsf_xgb_state", {**wl, "encoding": "fsf"}) == []
