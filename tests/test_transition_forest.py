"""The exact NumPy evaluator of XGBoost forests (genplan.models.transition.forest): bit-identical
to `Booster.inplace_predict` on real boosters, missing values included; boosters it does not
reproduce are refused; a trained transition model decodes the same plans with it as without."""

from __future__ import annotations

import copy

import numpy as np
import pytest
import xgboost as xgb
from test_features import DOMAIN, gripper_data, task_of  # noqa: F401  (fixture)

from genplan.mimir import MimirTask
from genplan.models.transition.forest import Forest, UnsupportedForest
from genplan.models.transition.model import TransitionModel
from genplan.models.transition.train import train_model
from genplan.planners.beam import DecodeConfig, decode


def _booster(targets: int, rounds: int = 25, depth: int = 5, nan: bool = False, **extra) -> tuple[xgb.Booster, np.ndarray]:
    rng = np.random.default_rng(7)
    X = rng.integers(0, 6, size=(300, 8)).astype(np.float32)
    y = np.stack([X[:, i % 8] * (i + 1) - X[:, (i + 3) % 8] ** 2 + rng.normal(0, 0.1, 300) for i in range(targets)], 1)
    if nan:
        X[rng.random(X.shape) < 0.15] = np.nan  # the trees learn a default direction per split
    params = {"max_depth": depth, "eta": 0.3, "tree_method": "hist", "seed": 0, "nthread": 1,
              "objective": "reg:squarederror", **extra}
    booster = xgb.train(params, xgb.DMatrix(X, label=y if targets > 1 else y[:, 0]), num_boost_round=rounds)
    return booster, X


@pytest.mark.parametrize("targets", [1, 4])
@pytest.mark.parametrize("nan", [False, True])
def test_predictions_are_bit_identical_to_xgboost(targets, nan):
    booster, X = _booster(targets, nan=nan)
    forest = Forest(booster)
    assert forest.trees == 25 * targets and forest.active and forest.active[0] <= forest.trees
    rng = np.random.default_rng(1)
    rows = rng.integers(-1, 8, size=(40, 8)).astype(np.float32)
    rows[rng.random(rows.shape) < 0.2] = np.nan  # missing values follow each split's default
    for batch in (X[:1], X[:3], rows[:1], rows[:17], rows):
        ref = np.asarray(booster.inplace_predict(batch), dtype=np.float32).reshape(len(batch), targets)
        out = forest.predict(batch)
        assert out.dtype == np.float32 and out.shape == (len(batch), targets)
        assert np.array_equal(out.view(np.uint32), ref.view(np.uint32))


def test_boosters_it_does_not_reproduce_are_refused():
    with pytest.raises(UnsupportedForest, match="multi_output_tree"):
        Forest(_booster(3, rounds=5, multi_strategy="multi_output_tree")[0])
    with pytest.raises(UnsupportedForest, match="objective"):
        Forest(_booster(1, rounds=5, objective="reg:absoluteerror")[0])
    booster, X = _booster(2, rounds=5)
    with pytest.raises(ValueError, match="features"):
        Forest(booster).predict(X[:, :5])


def test_a_transition_model_decodes_the_same_plans_with_and_without_it(gripper_data, tmp_path):  # noqa: F811
    params = {"learner": {"n_estimators": 30, "max_depth": 4, "learning_rate": 0.3}, "device": "cpu", "threads": 1}
    out = tmp_path / "model.ckpt"
    train_model("wl_xgb_delta", "gripper", gripper_data["train"], gripper_data["val"], params, 13, out)
    model = TransitionModel.load(out)
    assert model.forest is not None
    plain = copy.copy(model)
    plain.forest = None  # XGBoost's own predictor
    for n in (3, 4, 6):
        path = gripper_data["files"][n]
        task = task_of(path)
        emb = model.encoder.bind(task).embed([task.init])
        goal = model.encoder.bind(task).embed_goal()
        assert np.array_equal(model.predict_next(emb, goal), plain.predict_next(emb, goal))
        ours = decode(model, task, MimirTask(DOMAIN, path), DecodeConfig())
        ref = decode(plain, task, MimirTask(DOMAIN, path), DecodeConfig())
        assert ours.plan == ref.plan and ours.steps == ref.steps and ours.reason == ref.reason
