"""TEST DOUBLES ONLY (never used by the pipeline): exact "oracle" transition models with the
interface of `genplan.models.transition.model.TransitionModel`, for testing the decoder's search logic
on real problems with real pymimir successors.

`OracleModel` embeds a state as the one-hot vector of its fluent atoms and predicts the true
successor on an optimal plan (computed by breadth-first search over the problem's state space).
`misguide` maps a state to the state it should predict instead, to build cases where a search
goes wrong.
"""

from __future__ import annotations

from collections import deque
from pathlib import Path

import numpy as np

from genplan.mimir import MimirTask
from genplan.pddl_io import Task, parse_domain, parse_problem, problem_to_pddl


def write_problem(path: Path, domain_file: Path, objects, init, goal) -> Path:
    path.write_text(problem_to_pddl(path.stem, parse_domain(domain_file).name, objects, init, goal))
    return path


def gripper_problem(path: Path, domain_file: Path, balls: int = 1) -> Path:
    names = [f"ball{i}" for i in range(1, balls + 1)]
    init = [("room", "rooma"), ("room", "roomb"), ("gripper", "left"), ("gripper", "right"),
            ("at-robby", "rooma"), ("free", "left"), ("free", "right")]
    init += [("ball", b) for b in names] + [("at", b, "rooma") for b in names]
    return write_problem(path, domain_file, ["rooma", "roomb", "left", "right", *names], init,
                         [("at", b, "roomb") for b in names])


def load(domain_file: Path, problem_file: Path) -> tuple[Task, MimirTask]:
    return parse_problem(problem_file, parse_domain(domain_file)), MimirTask(domain_file, problem_file)


class _OneHot:
    def __init__(self, model: "OracleModel", task: Task):
        self.model = model
        self.task = task
        self.embed_calls = 0

    def embed(self, states):
        self.embed_calls += 1
        return np.stack([self.model.onehot(s) for s in states]) if states else np.zeros((0, self.model.dim))

    def embed_goal(self):
        return self.model.onehot(self.task.goal)


class _Encoder:
    def __init__(self, model):
        self.model = model

    def bind(self, task: Task):
        self.model.bound = _OneHot(self.model, task)
        return self.model.bound


class OracleModel:
    """Predicts the optimal successor (one-hot embeddings, L2 distance: a delta-mode model)."""

    name, domain, encoding, learner, mode = "oracle_delta", "gripper", "onehot", "oracle", "delta"
    family, system, variant, seed = "transition", "onehot_oracle", "delta", 13

    def __init__(self, mtask: MimirTask, misguide: dict | None = None):
        self.mtask = mtask
        self.misguide = misguide or {}
        self.encoder = _Encoder(self)
        self.predict_calls = 0
        self.batch_sizes: list[int] = []
        self._explore()

    def _explore(self):
        s0 = self.mtask.initial_state()
        f0 = self.mtask.fluents(s0)
        succ: dict[frozenset, list[frozenset]] = {}
        goals, queue, seen = set(), deque([s0]), {f0}
        while queue:
            s = queue.popleft()
            f = self.mtask.fluents(s)
            if self.mtask.is_goal(s):
                goals.add(f)
            succ[f] = []
            for _, t in self.mtask.successors(s):
                ft = self.mtask.fluents(t)
                succ[f].append(ft)
                if ft not in seen:
                    seen.add(ft)
                    queue.append(t)
        atoms = sorted({a for f in succ for a in f} | set())
        self.index = {a: i for i, a in enumerate(atoms)}
        self.dim = len(atoms)
        self.succ = succ
        h = {f: 0 for f in goals}  # backward BFS: optimal distance to a goal
        queue = deque(goals)
        pred: dict[frozenset, list[frozenset]] = {}
        for f, ts in succ.items():
            for t in ts:
                pred.setdefault(t, []).append(f)
        while queue:
            t = queue.popleft()
            for f in pred.get(t, []):
                if f not in h:
                    h[f] = h[t] + 1
                    queue.append(f)
        self.h = h

    def onehot(self, atoms) -> np.ndarray:
        v = np.zeros(self.dim)
        for a in atoms:
            if a in self.index:
                v[self.index[a]] = 1.0
        return v

    def state_of(self, row: np.ndarray) -> frozenset:
        inv = {i: a for a, i in self.index.items()}
        return frozenset(inv[i] for i in np.flatnonzero(row > 0.5))

    def target(self, state: frozenset) -> frozenset:
        if state in self.misguide:
            return self.misguide[state]
        options = [t for t in self.succ.get(state, []) if t in self.h]
        if not options:
            return state
        return min(options, key=lambda t: (self.h[t], sorted(t)))

    def predict_next(self, E: np.ndarray, g: np.ndarray) -> np.ndarray:
        self.predict_calls += 1
        self.batch_sizes.append(len(E))
        return np.stack([self.onehot(self.target(self.state_of(row))) for row in E])

    def distance(self, p: np.ndarray, E: np.ndarray) -> np.ndarray:
        return np.linalg.norm(E - p[None, :], axis=1)


class ConstantModel(OracleModel):
    """Always predicts the same embedding (the initial state): a model that has learned nothing."""

    def predict_next(self, E, g):
        self.predict_calls += 1
        self.batch_sizes.append(len(E))
        return np.stack([self.onehot(self.mtask.fluents(self.mtask.initial_state()))] * len(E))
