"""Training examples from full state spaces (`genplan-statespace/2` files of the statespace stage):
a state with finite h*, the problem's goal, objects and static atoms, h* of the state, and one
optimal plan from it (DESIGN.md: "the state-space sampler (state, goal, h*, one optimal plan)").

Which states: the SymT and plan-diffusion papers train on states sampled from the complete state
spaces of the training problems (plan-diffusion, Appendix B "Planning Domains and Dataset Sizes":
"we fully expand each training instance and sample from the complete state space", following
SymT, Fritzsche, Gestrin and Seipp; the copy of the SymT paper in shared/papers stops before its
appendices and section 6 "Experimental Setup" names no distribution). We read "sample from the
complete state space" literally: states are drawn i.i.d. (with replacement), uniformly over the
states with finite h* (dead ends, h* = -1, are never drawn) and, over several problems, uniformly
over the union of their states (`by="state"`, the default), so a problem weighs by its number of
states. `by="problem"` draws a problem uniformly first, then one of its states. `by="h"` draws a
goal distance uniformly among the values of h* the union holds, then a state of that h* uniformly
over the union (a uniform draw over the Blocksworld training spaces' 219,516 states is
nearly all 7-block states far from the goal, and a SymT^E trained on it predicted h = 21.82 at a
goal state: experiments/sequence-recipe.md, its trials' files in experiments/results/recipe/).

Which plan: from state s, a successor s' under action a is optimal iff h*(s') = h*(s) - 1; the plan
follows optimal successors, breaking ties uniformly at random with the one
`numpy.random.default_rng(seed)` of the call, so the same seed gives the same examples. Goal
states get the empty plan. The optimal successors are indexed once per space (CSR over `src`), and
all plans of a call advance together one step at a time (vectorised with numpy).

Representation (DESIGN.md conventions): an atom is a tuple of strings, a state a frozenset of
fluent atoms, statics and goal kept apart, a ground action a tuple of strings.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from genplan.errors import GenplanError
from genplan.formats import statespace as statespace_file
from genplan.pddl_io import Action, Atom, problem_to_pddl, str_to_atom

SAMPLE_BY = ("state", "problem", "h")


@dataclass
class Example:
    """One training example: a state, the problem around it, h* and one optimal plan."""

    problem: str  # the problem (file stem, as in the manifest)
    domain_name: str  # PDDL name of the domain
    state_index: int  # the state's index in its state space
    state: frozenset  # fluent atoms
    goal: frozenset
    objects: tuple[str, ...]
    statics: frozenset
    h_star: int
    plan: list[Action]  # optimal: len(plan) == h_star


class StateSpace:
    """A loaded state space with its states in the package's representation."""

    def __init__(self, arrays: dict[str, np.ndarray], path: str | Path | None = None):
        self.path = None if path is None else Path(path)
        self.meta: dict = json.loads(str(arrays["meta"]))
        self.name: str = self.meta["problem"]
        self.domain_name: str = self.meta["domain_name"]
        self.domain: str | None = self.meta.get("domain")
        self.atoms: tuple[Atom, ...] = tuple(str_to_atom(a) for a in arrays["atoms"])
        self.actions: tuple[Action, ...] = tuple(str_to_atom(a) for a in arrays["actions"])
        self.objects: tuple[str, ...] = tuple(str(o) for o in arrays["objects"])
        self.statics: frozenset = frozenset(str_to_atom(a) for a in arrays["statics"])
        self.goal: frozenset = frozenset(str_to_atom(a) for a in arrays["goal"])
        self.state_ptr = arrays["state_ptr"]
        self.state_atoms = arrays["state_atoms"]
        self.h_star = arrays["h_star"]
        self.is_goal = arrays["is_goal"]
        self.initial = int(arrays["initial"])
        self.src, self.dst, self.action = arrays["src"], arrays["dst"], arrays["action"]
        self.solvable = np.flatnonzero(self.h_star >= 0)  # the states that are sampled
        self._index_optimal_successors()

    @classmethod
    def load(cls, path: str | Path) -> "StateSpace":
        return cls(statespace_file.load(path), path)

    def __len__(self) -> int:
        return len(self.h_star)

    def __repr__(self) -> str:
        return f"StateSpace({self.name!r}, states={len(self)}, transitions={len(self.src)})"

    def state(self, i: int) -> frozenset:
        """The fluent atoms of state i."""
        atoms = self.atoms
        return frozenset(atoms[j] for j in self.state_atoms[self.state_ptr[i]:self.state_ptr[i + 1]].tolist())

    @functools.cached_property
    def _successor_index(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        order = np.argsort(self.src, kind="stable")
        ptr = np.zeros(len(self) + 1, dtype=np.int64)
        np.cumsum(np.bincount(self.src, minlength=len(self)), out=ptr[1:])
        return ptr, self.dst[order], self.action[order]

    def successors(self, i: int) -> list[tuple[Action, int]]:
        """Every transition from state i: (ground action, successor index)."""
        ptr, dst, act = self._successor_index
        lo, hi = ptr[i], ptr[i + 1]
        return [(self.actions[a], int(d)) for a, d in zip(act[lo:hi].tolist(), dst[lo:hi].tolist())]

    def _index_optimal_successors(self) -> None:
        h, src, dst = self.h_star, self.src, self.dst
        keep = (h[src] > 0) & (h[dst] == h[src] - 1)
        s = src[keep]
        order = np.argsort(s, kind="stable")
        self._opt_ptr = np.zeros(len(self) + 1, dtype=np.int64)
        np.cumsum(np.bincount(s, minlength=len(self)), out=self._opt_ptr[1:])
        self._opt_dst = dst[keep][order]
        self._opt_act = self.action[keep][order]
        stuck = np.flatnonzero((h > 0) & (np.diff(self._opt_ptr) == 0))
        if len(stuck):
            raise GenplanError(f"h* is inconsistent with the transitions: state {int(stuck[0])} has "
                               f"h* = {int(h[stuck[0]])} and no successor with h* one less", self.path)

    def optimal_plan_ids(self, states: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """[n, max h*] action ids of one optimal plan from each state (h* >= 0), -1 after its end."""
        cur = np.array(states, dtype=np.int64)
        h = self.h_star[cur]
        if np.any(h < 0):
            raise ValueError("dead ends (h* = -1) have no plan")
        out = np.full((len(cur), int(h.max()) if len(cur) else 0), -1, dtype=np.int32)
        for t in range(out.shape[1]):
            active = np.flatnonzero(h > t)
            c = cur[active]
            lo = self._opt_ptr[c]
            k = lo + rng.integers(0, self._opt_ptr[c + 1] - lo)
            out[active, t] = self._opt_act[k]
            cur[active] = self._opt_dst[k]
        return out

    def optimal_plans(self, states, rng: np.random.Generator) -> list[list[Action]]:
        """One optimal plan from each state, ties broken uniformly at random with `rng`."""
        acts = self.actions
        return [[acts[a] for a in row if a >= 0] for row in self.optimal_plan_ids(states, rng).tolist()]

    def examples(self, states, rng: np.random.Generator) -> list[Example]:
        """The examples of the given states (indices with h* >= 0), plans drawn with `rng`."""
        states = np.asarray(states, dtype=np.int64)
        plans = self.optimal_plans(states, rng)
        return [Example(self.name, self.domain_name, int(i), self.state(int(i)), self.goal, self.objects,
                        self.statics, int(self.h_star[i]), plan) for i, plan in zip(states.tolist(), plans)]


def check_by(by: str) -> str:
    if by not in SAMPLE_BY:
        raise ValueError(f"Unknown value {by=}. Must be from {list(SAMPLE_BY)}")
    return by


def sample_examples(space: StateSpace, n: int, seed: int) -> list[Example]:
    """n examples of one space: states uniformly (with replacement) among those with finite h*."""
    rng = np.random.default_rng(seed)
    if not len(space.solvable):
        raise GenplanError("no state with finite h*: nothing to sample", space.path)
    states = space.solvable[rng.integers(0, len(space.solvable), size=int(n))]
    return space.examples(states, rng)


def iter_examples(space: StateSpace, seed: int, batch: int = 1024):
    """An endless stream of examples of one space, drawn `batch` at a time from one generator."""
    rng = np.random.default_rng(seed)
    while True:
        yield from space.examples(space.solvable[rng.integers(0, len(space.solvable), size=batch)], rng)


def load_split(folder: str | Path) -> list[StateSpace]:
    """Every state space of a split folder (`results/statespaces/<benchmark>/<domain>/<split>/`),
    in file-name order."""
    folder = Path(folder)
    files = sorted(folder.glob("*.npz"))
    if not files:
        raise GenplanError("no state-space files (*.npz) in the folder", folder)
    return [StateSpace.load(f) for f in files]


def sample_split(spaces: list[StateSpace], n: int, seed: int, by: str = "state") -> list[Example]:
    """n examples from several spaces of a split: `by="state"` draws uniformly over the union of
    their states with finite h* (the papers' reading, see the module docstring), `by="problem"`
    draws a problem uniformly, then one of its states. Examples come in the order drawn."""
    check_by(by)
    spaces = [s for s in spaces if len(s.solvable)]
    if not spaces:
        raise GenplanError("no state space with a state of finite h*: nothing to sample")
    rng = np.random.default_rng(seed)
    if by in ("state", "h"):
        sizes = np.array([len(s.solvable) for s in spaces], dtype=np.int64)
        starts = np.concatenate([[0], np.cumsum(sizes)])
        flat = rng.integers(0, starts[-1], size=int(n)) if by == "state" else _by_h(spaces, int(n), rng)
        which = np.searchsorted(starts, flat, side="right") - 1
        local = flat - starts[which]
    else:
        which = rng.integers(0, len(spaces), size=int(n))
        local = rng.integers(0, np.array([len(s.solvable) for s in spaces])[which])
    out: list[Example | None] = [None] * int(n)
    for k, space in enumerate(spaces):
        rows = np.flatnonzero(which == k)
        if len(rows):
            for row, ex in zip(rows.tolist(), space.examples(space.solvable[local[rows]], rng)):
                out[row] = ex
    return out  # type: ignore[return-value]


def _by_h(spaces: list[StateSpace], n: int, rng: np.random.Generator) -> np.ndarray:
    """n positions in the union of the spaces' solvable states (concatenated in order): an h* value
    drawn uniformly among those present, then a state of that h* uniformly."""
    h = np.concatenate([s.h_star[s.solvable] for s in spaces])
    levels, level_of = np.unique(h, return_inverse=True)
    by_level = np.argsort(level_of, kind="stable")  # positions grouped by level, in order
    counts = np.bincount(level_of, minlength=len(levels))
    first = np.concatenate([[0], np.cumsum(counts)[:-1]])
    pick = rng.integers(0, len(levels), size=n)
    return by_level[first[pick] + rng.integers(0, counts[pick])]


def example_problem_pddl(example: Example, name: str | None = None) -> str:
    """PDDL text of the example as a problem: its state (fluents + statics) is the initial state,
    same objects and goal; VAL can then check `example.plan` from that state."""
    name = name or f"{example.problem}-state{example.state_index}"
    init = sorted(example.state | example.statics)
    return problem_to_pddl(name, example.domain_name, list(example.objects), init, sorted(example.goal))
