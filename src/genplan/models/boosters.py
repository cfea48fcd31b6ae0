"""XGBoost boosters in and out of checkpoints, for every family that learns one (the transition
family's XGBoost models, the heuristic family's `xgb` learner): the envelope's weights are the
booster's UBJ model as bytes (genplan.checkpoint)."""

from __future__ import annotations

import json

import xgboost as xgb


def booster_to_bytes(booster: xgb.Booster) -> bytes:
    return bytes(booster.save_raw("ubj"))


def booster_from_bytes(data: bytes, threads: int = 1) -> xgb.Booster:
    """The booster of a checkpoint's weights, predicting on the CPU with `threads` threads."""
    booster = xgb.Booster()
    booster.load_model(bytearray(data))
    booster.set_param({"nthread": threads, "device": "cpu"})
    return booster


def booster_json(booster: xgb.Booster) -> dict:
    """The booster's whole model as XGBoost's JSON format holds it (learner, trees, parameters)."""
    return json.loads(booster.save_raw("json"))


def tree_stats(booster: xgb.Booster) -> dict:
    """Number of trees and of tree nodes in the booster."""
    trees = booster_json(booster)["learner"]["gradient_booster"]["model"]["trees"]
    return {"trees": len(trees), "nodes": sum(int(t["tree_param"]["num_nodes"]) for t in trees)}
