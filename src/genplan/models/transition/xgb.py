"""The XGBoost transition model (state-centric paper, appendix G.2; the reference's settings).

One row per transition: X = [phi(s_t), phi(g)], y = phi(s_{t+1}) or the delta; squared error;
early stopping on the validation rows; the booster is cut at its best iteration. `multi_strategy`
"one_output_per_tree" (the paper: one tree per output dimension and round) or
"multi_output_tree" (one tree with vector leaves per round, far fewer trees to evaluate)."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

import numpy as np
import xgboost as xgb

log = logging.getLogger("genplan")
STRATEGIES = ("one_output_per_tree", "multi_output_tree")


@dataclass
class XGBTraining:
    n_estimators: int = 500
    max_depth: int = 8
    learning_rate: float = 0.01
    early_stopping_rounds: int = 10
    multi_strategy: str = "one_output_per_tree"


def train_xgb(X: np.ndarray, y: np.ndarray, Xv: np.ndarray, yv: np.ndarray, opts: XGBTraining,
              seed: int, device: str, threads: int = 1) -> tuple[xgb.Booster, dict]:
    """The booster cut at its best iteration, and the training record (history of root mean
    squared errors per round, best iteration, time)."""
    if opts.multi_strategy not in STRATEGIES:
        raise ValueError(f"Unknown value {opts.multi_strategy=}. Must be from {list(STRATEGIES)}")
    # the native API with the parameters XGBRegressor(...) would pass (no scikit-learn needed)
    params = {"max_depth": opts.max_depth, "eta": opts.learning_rate, "tree_method": "hist",
              "multi_strategy": opts.multi_strategy, "device": device, "seed": seed,
              "nthread": threads, "objective": "reg:squarederror", "eval_metric": "rmse"}
    dtrain, dval = xgb.DMatrix(X, label=y), xgb.DMatrix(Xv, label=yv)
    evals: dict = {}
    start = time.perf_counter()
    booster = xgb.train(params, dtrain, num_boost_round=opts.n_estimators,
                        evals=[(dtrain, "train"), (dval, "validation")],
                        early_stopping_rounds=opts.early_stopping_rounds, evals_result=evals, verbose_eval=False)
    elapsed = time.perf_counter() - start
    best = int(booster.best_iteration)
    rounds = booster.num_boosted_rounds()
    history = [[i + 1, tr, va] for i, (tr, va) in enumerate(zip(evals["train"]["rmse"], evals["validation"]["rmse"]))]
    booster = booster[: best + 1]
    log.info("XGBoost: %d rounds, best %d (validation rmse %.6f), %.1f s", rounds, best + 1, history[best][2], elapsed)
    return booster, {"history": history, "best_iteration": best + 1, "rounds": rounds,
                     "best_val_loss": history[best][2], "train_time_s": elapsed}


def compile_forest(booster: xgb.Booster):
    """The booster in the exact NumPy evaluator (genplan.models.transition.forest), or None for a
    booster it does not reproduce (XGBoost then predicts)."""
    from genplan.models.transition.forest import Forest, UnsupportedForest

    try:
        return Forest(booster)
    except UnsupportedForest as exc:
        log.debug("XGBoost predicts: %s", exc)
        return None


def predict(booster: xgb.Booster, X: np.ndarray, dim: int) -> np.ndarray:
    """[B, dim] predictions for X [B, 2 dim], in one call."""
    return np.asarray(booster.inplace_predict(X), dtype=np.float32).reshape(len(X), dim)
