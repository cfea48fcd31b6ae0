"""An exact NumPy evaluator of the XGBoost transition models, for small batches of rows.

Why: the paper's XGBoost models hold one tree per output dimension and round (29,000 trees for
Blocksworld, 49,000 for VisitAll) and the decoder asks for three rows at a time; XGBoost's
predictor walks each tree for each row in turn and took ~90% of the decoder's time
(measured on the reference decoder). Here all trees of all rows advance one level per NumPy operation, trees sorted by depth
so that finished ones drop out, in a level-major node layout (each level of the walk reads the
node arrays in one increasing sweep). It handles the paper's layout, scalar leaves
(`multi_strategy: one_output_per_tree`); a `multi_output_tree` booster (one tree with vector
leaves per round, ~170 times fewer trees) is left to XGBoost, which predicts it as fast as this
evaluator would (measured: 0.6 ms for three rows of the Blocksworld model).

Exactness follows XGBoost's CPU predictor (src/predictor/cpu_predictor.cc and
include/xgboost/tree_model.h in dmlc/xgboost): a node sends a row left iff
``fvalue < split_condition`` in float32, a missing value (NaN) follows `default_left`, leaves hold
float32 values, and a row's output for one target starts from that target's base score and adds
the trees' leaves in tree order in float32. tests/test_transition_forest.py checks the equality
with `Booster.inplace_predict` bit for bit. A booster of another shape (another objective,
categorical splits, parallel trees, vector leaves) raises `UnsupportedForest`; the model then uses XGBoost."""

from __future__ import annotations

import json

import numpy as np

from genplan.models.boosters import booster_json


class UnsupportedForest(ValueError):
    """The booster is not a plain squared-error regression forest this evaluator reproduces."""


def _tree_arrays(trees: list[dict]):
    sizes = np.asarray([int(t["tree_param"]["num_nodes"]) for t in trees], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)

    def cat(key, dtype):
        return np.concatenate([np.asarray(t[key], dtype=dtype) for t in trees])

    left, right = cat("left_children", np.int64), cat("right_children", np.int64)
    leaf = left < 0
    if not np.array_equal((right - left)[~leaf], np.ones(int((~leaf).sum()), dtype=np.int64)):
        raise UnsupportedForest("a right child that does not follow its left sibling")
    own = np.arange(len(left), dtype=np.int64)
    shift = np.repeat(offsets, sizes)
    return {
        "roots": offsets,
        "left": np.where(leaf, own, left + shift).astype(np.int32),  # a leaf stays where it is
        "feature": np.where(leaf, 0, cat("split_indices", np.int64)).astype(np.int32),
        # x >= +inf is false: a leaf never moves (NaN is dealt with apart)
        "threshold": np.where(leaf, np.float32(np.inf), cat("split_conditions", np.float32)).astype(np.float32),
        "default_right": (~cat("default_left", np.int64).astype(bool)) & ~leaf,
        "leaf": leaf,
        "values": cat("split_conditions", np.float32),  # a leaf's value sits in split_conditions
    }


class Forest:
    """The trees of a booster flattened into node arrays; `predict` as `Booster.inplace_predict`."""

    def __init__(self, booster):
        model = booster_json(booster)
        learner = model["learner"]
        gb = learner["gradient_booster"]
        if gb.get("name") != "gbtree":
            raise UnsupportedForest(f"booster {gb.get('name')!r} is not gbtree")
        if learner["objective"]["name"] != "reg:squarederror":
            raise UnsupportedForest(f"objective {learner['objective']['name']!r} is not reg:squarederror")
        m = gb["model"]
        params = learner["learner_model_param"]
        self.targets = int(params.get("num_target", "1"))
        self.features = int(params["num_feature"])
        trees = m["trees"]
        if not trees or int(m["gbtree_model_param"].get("num_parallel_tree", "1")) != 1:
            raise UnsupportedForest("no trees, or parallel trees")
        if any(any(t["split_type"]) for t in trees):
            raise UnsupportedForest("categorical splits")
        leaf_sizes = {int(t["tree_param"].get("size_leaf_vector", "1")) for t in trees}
        info = np.asarray(m["tree_info"], dtype=np.int64)
        if leaf_sizes - {0, 1}:
            raise UnsupportedForest(f"leaf vectors of sizes {sorted(leaf_sizes)} (multi_output_tree)")
        self.rounds, rest = divmod(len(trees), self.targets)
        if rest or not (info.reshape(-1, self.targets) == np.arange(self.targets)).all():
            raise UnsupportedForest("trees not one per target and round in target order")
        base = params["base_score"]
        base = json.loads(base) if base.startswith("[") else [float(base)] * self.targets
        self.base = np.asarray(base, dtype=np.float32).reshape(self.targets)
        a = _tree_arrays(trees)
        left, internal = a["left"].astype(np.int64), ~a["leaf"]
        tree_of = np.repeat(np.arange(len(trees)), np.diff(np.append(a["roots"], len(left))))
        height = np.zeros(len(left), dtype=np.int64)  # levels below each node
        while True:
            new = np.where(internal, 1 + np.maximum(height[left], height[left + internal]), 0)
            if np.array_equal(new, height):
                break
            height = new
        tree_depth = height[a["roots"]]
        order = np.argsort(-tree_depth, kind="stable")  # walk order: deepest first, level k walks a prefix
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        level = np.full(len(left), -1, dtype=np.int64)  # depth of each node below its root
        frontier, k = a["roots"], 0
        while len(frontier):
            level[frontier] = k
            frontier = frontier[internal[frontier]]
            frontier = np.concatenate([left[frontier], left[frontier] + 1])
            k += 1
        # level-major layout: the nodes of one level, tree by tree in walk order (siblings stay
        # adjacent), so every level of the walk reads the node arrays in one increasing sweep
        perm = np.lexsort((np.arange(len(left)), rank[tree_of], level))
        new_id = np.empty_like(perm)
        new_id[perm] = np.arange(len(perm))
        left = new_id[left[perm]]
        feature, threshold = a["feature"][perm], a["threshold"][perm]
        default_right = a["default_right"][perm]
        # the distinct splits (feature, threshold, default direction): a few hundred in the paper's
        # models (WL counts are small integers); a row's outcomes of all of them are computed once
        # per row, and each node holds (left child << bits) | split id in one integer
        internal = ~a["leaf"][perm]
        keys = np.stack([feature, threshold.view(np.int32), default_right.astype(np.int32)], axis=1)
        uniq, split = np.unique(keys[internal], axis=0, return_inverse=True)
        self.split_feature, self.split_default_right = uniq[:, 0].astype(np.intp), uniq[:, 2].astype(bool)
        self.split_threshold = uniq[:, 1].astype(np.int32).view(np.float32)
        split_id = np.full(len(left), len(uniq), dtype=np.int64)  # a leaf: the extra, never-true split
        split_id[internal] = split.reshape(-1)
        self.bits = max(1, int(len(uniq)).bit_length())
        dtype = np.int32 if (len(left) << self.bits) < 2**31 else np.int64
        self.packed = ((left << self.bits) | split_id).astype(dtype)
        self.mask = (1 << self.bits) - 1
        self.values = a["values"][perm]
        self.order, self.inverse = order, rank
        self.roots = new_id[a["roots"][order]].astype(dtype)
        self.active = [int((tree_depth > k).sum()) for k in range(int(tree_depth.max()))]

    @property
    def trees(self) -> int:
        return len(self.roots)

    def walk(self, x: np.ndarray) -> np.ndarray:
        """[trees] node index of the leaf that row `x` reaches in each tree (trees deepest first)."""
        v = x[self.split_feature]
        outcome = np.zeros(len(self.split_feature) + 1, dtype=self.packed.dtype)  # 1: go right; a leaf: 0
        outcome[:-1] = (v >= self.split_threshold) | (np.isnan(v) & self.split_default_right)
        node = self.roots.copy()
        for n in self.active:
            p = self.packed[node[:n]]
            node[:n] = (p >> self.bits) + outcome[p & self.mask]
        return node

    def predict(self, X: np.ndarray) -> np.ndarray:
        """[B, targets] float32 outputs for X [B, features], bit-identical to XGBoost's. Row by
        row: each row's walk reads the node array in increasing order."""
        X = np.ascontiguousarray(X, dtype=np.float32)
        if X.ndim != 2 or X.shape[1] != self.features:
            raise ValueError(f"rows of {X.shape[1:]} features for a forest of {self.features}")
        sums = np.empty((len(X), self.rounds + 1, self.targets), dtype=np.float32)
        sums[:, 0] = self.base
        for i, x in enumerate(X):
            sums[i, 1:] = self.values[self.walk(x)[self.inverse]].reshape(self.rounds, self.targets)
        return np.add.accumulate(sums, axis=1, dtype=np.float32)[:, -1]  # sequential, in tree order
