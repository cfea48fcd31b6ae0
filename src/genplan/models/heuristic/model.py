"""A trained learned heuristic as the searches use it: a WL feature generator (wlplan, ILG graphs)
and a learner mapping features to an estimate of h*, loaded from the checkpoint envelope of
`genplan.checkpoint` (family "heuristic").

Its identity holds name, domain (the workflow's key), pddl_domain, seed, learner and dim; its
vocabulary is the WL encoder (`genplan.features.wl.WLEncoder.to_dict()`, the colours collected
on the training states); its weights {"w", "b"} tensors for the linear learners or XGBoost's UBJ
model as bytes.

`bind(problem)` gives a `BoundHeuristic` for one problem (the interface of the searches,
genplan.planners.base.Heuristic): it maps a batch of pymimir states to wlplan states (each pymimir
atom converted once, static atoms added to every state exactly as at training); a linear learner
scores each state with wlplan's own `predict` (the ILG graph, the WL refinement and the dot
product, all in wlplan's C++, the weights set once), XGBoost embeds the whole batch with ONE wlplan
call and scores the feature matrix in one booster call. Where a search's time goes, and why the
per-state calls stay: perf/search_speed.py and `BoundHeuristic.__call__`."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from genplan.errors import GenplanError
from genplan.features import wlplan_edge as edge
from genplan.features.wl import WLEncoder
from genplan.models.heuristic.learners import LEARNERS


class HeuristicModel:
    """h(s) = learner(phi_WL(s)), phi collected on the training state spaces."""

    family = "heuristic"
    system = "learned_heuristic"

    def __init__(self, envelope: dict, encoder: WLEncoder, learner: str, linear: tuple | None = None,
                 booster=None):
        ident = envelope["identity"]
        self.ckpt = envelope
        self.name: str = ident["name"]
        self.domain: str = ident["domain"]
        self.seed: int = ident["seed"]
        self.learner = learner
        self.encoder = encoder
        self.dim: int = encoder.dim
        self._linear = linear  # (w [dim] float64, b float)
        self._booster = booster

    @property
    def variant(self) -> str:
        return self.learner

    @property
    def linear(self) -> tuple | None:
        """(w, b) of a linear learner (ridge, rank, svr), None for a booster: what the compiled search takes."""
        return self._linear

    @classmethod
    def from_envelope(cls, envelope: dict, path) -> "HeuristicModel":
        ident = envelope["identity"]
        learner = ident.get("learner")
        if learner not in LEARNERS:
            raise GenplanError(f"heuristic checkpoint with unknown learner {learner!r} (expected one of "
                               f"{list(LEARNERS)})", path)
        try:
            encoder = WLEncoder.from_dict(envelope["vocabulary"])
        except (KeyError, TypeError, ValueError, RuntimeError) as exc:
            raise GenplanError(f"corrupt checkpoint: its WL encoder cannot be read ({exc})", path) from None
        weights = envelope["weights"]
        if learner == "xgb":
            from genplan.models.boosters import booster_from_bytes

            return cls(envelope, encoder, learner, booster=booster_from_bytes(weights, threads=1))
        try:
            w = weights["w"]  # an array read without torch (genplan.checkpoint_numpy), or a tensor
            w = np.asarray(w if isinstance(w, np.ndarray) else w.double().numpy(), dtype=np.float64)
            b = float(weights["b"])
        except (KeyError, AttributeError, TypeError, ValueError) as exc:
            raise GenplanError(f"corrupt checkpoint: linear weights missing ({exc})", path) from None
        if w.shape != (encoder.dim,):
            raise GenplanError(f"corrupt checkpoint: weights of shape {list(w.shape)} for {encoder.dim} WL features",
                               path)
        return cls(envelope, encoder, learner, linear=(w, b))

    def predict(self, X) -> np.ndarray:
        """h of feature rows X [n, dim] (dense or a scipy sparse matrix), one call."""
        from scipy import sparse

        if sparse.issparse(X):
            if self._booster is not None:
                return np.asarray(self._booster.inplace_predict(sparse.csr_matrix(X)), dtype=np.float64).reshape(-1)
            w, b = self._linear
            return np.asarray(X @ w).reshape(-1) + b
        X = np.asarray(X, dtype=np.float64).reshape(-1, self.dim)
        if self._booster is not None:
            return np.asarray(self._booster.inplace_predict(X), dtype=np.float64).reshape(len(X))
        w, b = self._linear
        return X @ w + b

    def linear_generator(self):
        """The WL generator with this model's weights set (wlplan computes w.phi(s) itself)."""
        fg = self.encoder._generator()
        if not getattr(self, "_weights_set", False):
            fg.set_weights(self._linear[0].tolist())
            self._weights_set = True
        return fg

    def parameters(self) -> int:
        """Learned numbers: weights and intercept, or tree nodes."""
        if self._booster is not None:
            from genplan.models.boosters import tree_stats

            return tree_stats(self._booster)["nodes"]
        return self.dim + 1

    def bind(self, problem) -> "BoundHeuristic":
        """The heuristic of one problem (`genplan.planners.base.Problem`)."""
        return BoundHeuristic(self, problem)


class MimirStates:
    """pymimir states of one problem as wlplan states: each pymimir fluent atom converted once,
    the problem's static atoms (when the encoder embeds them) in every state. Training from plans
    (`genplan.models.heuristic.from_plans`) and inference (`BoundHeuristic`) convert through it,
    so that both embed the very same graphs."""

    def __init__(self, encoder: WLEncoder, problem):
        task, self.mimir = problem.task, problem.mimir
        statics = task.statics if encoder.statics else frozenset()
        self.converter = edge.ProblemConverter(encoder.domain, task.objects, statics, task.goal, problem.problem_file)
        self._statics = [self.converter.atom(a) for a in sorted(statics)]
        self._atoms: dict[int, object] = {}  # pymimir atom index -> wlplan Atom

    def __call__(self, state):
        cache = self._atoms
        atoms = list(self._statics)
        for idx in self.mimir.fluent_indices(state):
            wl = cache.get(idx)
            if wl is None:
                wl = cache[idx] = self.converter.atom(self.mimir.fluent_atom(idx))
            atoms.append(wl)
        return edge.State(atoms)


class BoundHeuristic:
    """The model bound to one problem: `__call__(pymimir states) -> h values` in one batch."""

    def __init__(self, model: HeuristicModel, problem):
        self.mimir = problem.mimir
        self.model = model
        self.wl_state = MimirStates(model.encoder, problem)
        self.converter = self.wl_state.converter
        self.calls = 0
        self.evaluated = 0
        self.timers: dict | None = None  # a dict: seconds spent in wl_conversion and prediction (perf/search_speed.py)

    def features(self, states: list) -> np.ndarray:
        """[n, dim] WL features of pymimir states: one wlplan call for the batch."""
        from wlplan.data import DomainDataset, ProblemDataset

        fg = self.model.encoder._generator()
        data = DomainDataset(self.model.encoder.domain, [ProblemDataset(self.converter.problem,
                                                                        [self.wl_state(s) for s in states])])
        try:
            rows = fg.embed(data)
        except (RuntimeError, ValueError) as exc:
            raise GenplanError(f"wlplan cannot embed a state: {exc}", self.mimir.path) from None
        self.model.encoder._active = None  # embed set its own problem on the shared generator
        return np.asarray(rows, dtype=np.float64).reshape(len(states), self.model.dim)

    def __call__(self, states: list) -> np.ndarray:
        """h of a batch of pymimir states. XGBoost: one wlplan call embeds the batch, one booster
        call scores it. Linear learners: wlplan's own dot product per state (`Features.predict`
        with the weights set once), measured 5x faster than embedding the batch (0.18 against
        0.9 ms a state on a 100-block problem: `embed` returns every feature as a Python float).
        The Python around these calls is not where the time goes (perf/search_speed.py:
        wlplan's `State` construction and `predict` take most of it); the conversion and the
        calls chained by `map`, without this loop, saved too little to measure: not kept."""
        if not states:
            return np.zeros(0)
        self.calls += 1
        self.evaluated += len(states)
        if self.model._booster is not None:
            return self.model.predict(self.features(states))
        fg = self.model.linear_generator()
        if self.model.encoder._active is not self:
            fg.set_problem(self.converter.problem)
            self.model.encoder._active = self
        b = self.model._linear[1]
        if self.timers is not None:
            return self._timed(fg, b, states)
        return np.fromiter((fg.predict(self.wl_state(s)) + b for s in states), dtype=np.float64, count=len(states))

    def _timed(self, fg, b: float, states: list) -> np.ndarray:
        """`__call__` of a linear model, its two parts timed apart (`timers`, CPU seconds)."""
        t0 = time.process_time()
        wl = [self.wl_state(s) for s in states]
        t1 = time.process_time()
        h = np.fromiter((fg.predict(s) + b for s in wl), dtype=np.float64, count=len(states))
        t2 = time.process_time()
        self.timers["wl_conversion"] = self.timers.get("wl_conversion", 0.0) + t1 - t0
        self.timers["prediction"] = self.timers.get("prediction", 0.0) + t2 - t1
        return h


def load(envelope: dict, path: str | Path) -> HeuristicModel:
    return HeuristicModel.from_envelope(envelope, path)
