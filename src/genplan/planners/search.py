"""Heuristic search over pymimir successors: eager greedy best-first search and greedy descent,
for any heuristic that maps a batch of pymimir states to numbers (a learned heuristic of the
heuristic family, SymT^E's estimate once it exists, or h* itself in the tests).

Both searches keep the true symbolic state (successors come from pymimir, never from a model) and
evaluate the new successors of an expanded state in ONE heuristic call.

- `gbfs` (eager greedy best-first search, as Fast Downward's `eager_greedy`): the open list is
  ordered by h, ties broken first in, first out (the state generated earlier first); duplicate
  detection on pymimir's state index (a state generated once is never generated again, no
  reopening: GBFS ignores path costs); the goal test is made when a state is generated (the
  initial state: before the search). Successors are generated in the lexicographic order of their
  ground actions' names, so that a run is the same on every machine.
- `descent` (greedy descent, SymT^E's heuristic guidance): from the current state, move to the
  successor with the lowest h (ties: the first in the same action order), never to a state the
  descent has entered before (cycles are cut by this visited set over the whole descent); a goal
  among the successors is taken at once; when every successor has been entered before, the
  descent stops (`dead_end`): it does not backtrack.

Limits (`SearchLimits`): `max_expansions` states expanded (`node_limit` when reached: GBFS stops
before expanding one more; descent's steps count as expansions) and `time_limit` seconds of wall
time (`time_limit`), both checked before every expansion. An exhausted open list is `dead_end`
(GBFS then has proved the problem unsolvable).
"""

from __future__ import annotations

import heapq
import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from genplan.errors import GenplanError
from genplan.planners.base import Attempt

KINDS = ("gbfs", "descent")


@dataclass(frozen=True)
class SearchLimits:
    max_expansions: int = 100_000
    time_limit: float = 60.0  # seconds, per problem

    def __post_init__(self):
        if self.max_expansions < 1 or self.time_limit <= 0:
            raise ValueError(f"invalid search limits: {self}")

    @classmethod
    def from_settings(cls, settings: dict | None) -> "SearchLimits":
        settings = dict(settings or {})
        unknown = sorted(set(settings) - {"max_expansions", "time_limit"})
        if unknown:
            raise ValueError(f"unknown search settings {unknown} (known: max_expansions, time_limit)")
        return cls(**settings)


@dataclass
class SearchResult:
    plan: list  # ground actions, package representation
    reason: str  # goal | node_limit | time_limit | dead_end
    expanded: int = 0
    generated: int = 0
    evaluated: int = 0  # states given to the heuristic
    heuristic_calls: int = 0
    h_init: float | None = None
    time: float = 0.0
    counters: dict = field(default_factory=dict)


def _successors(task, state) -> list[tuple[tuple, object]]:
    """(action, successor state) pairs in the lexicographic order of the actions' names."""
    pairs = [(task.action(a), a) for a in state.generate_applicable_actions()]
    pairs.sort(key=lambda p: p[0])
    return [(name, a.apply(state)) for name, a in pairs]


def gbfs(task, heuristic: Callable[[list], np.ndarray], limits: SearchLimits) -> SearchResult:
    """Eager greedy best-first search from the task's initial state (see the module docstring)."""
    start = time.perf_counter()
    s0 = task.initial_state()
    res = SearchResult([], "dead_end")
    if task.is_goal(s0):
        res.reason = "goal"
        return _done(res, start)
    h0 = float(heuristic([s0])[0])
    res.h_init, res.evaluated, res.heuristic_calls = h0, 1, 1
    states, parent, via = [s0], [-1], [None]  # node id -> state, parent node, action
    seen = {s0.get_index()}
    open_list = [(h0, 0, 0)]  # (h, generation order, node)
    counter = 1
    while open_list:
        if _stopped(res, limits, start):
            return _done(res, start)
        _, _, node = heapq.heappop(open_list)
        res.expanded += 1
        new = []
        for action, succ in _successors(task, states[node]):
            res.generated += 1
            key = succ.get_index()
            if key in seen:
                continue
            seen.add(key)
            states.append(succ)
            parent.append(node)
            via.append(action)
            child = len(states) - 1
            if task.is_goal(succ):
                res.plan, res.reason = _path(child, parent, via), "goal"
                return _done(res, start)
            new.append(child)
        if new:
            h = heuristic([states[c] for c in new])
            res.evaluated += len(new)
            res.heuristic_calls += 1
            for c, value in zip(new, np.asarray(h, dtype=np.float64).tolist()):
                heapq.heappush(open_list, (value, counter, c))
                counter += 1
    return _done(res, start)  # open list exhausted: no plan exists


def _stopped(res: SearchResult, limits: SearchLimits, start: float) -> bool:
    """The node or time limit is reached: the result's reason says which."""
    if res.expanded >= limits.max_expansions:
        res.reason = "node_limit"
    elif time.perf_counter() - start > limits.time_limit:
        res.reason = "time_limit"
    else:
        return False
    return True


def descent(task, heuristic: Callable[[list], np.ndarray], limits: SearchLimits) -> SearchResult:
    """Greedy descent from the task's initial state (see the module docstring)."""
    start = time.perf_counter()
    state = task.initial_state()
    res = SearchResult([], "dead_end")
    visited = {state.get_index()}
    if task.is_goal(state):
        res.reason = "goal"
        return _done(res, start)
    while True:
        if _stopped(res, limits, start):
            return _done(res, start)
        res.expanded += 1
        fresh = []
        for action, succ in _successors(task, state):
            res.generated += 1
            if succ.get_index() in visited:
                continue
            if task.is_goal(succ):
                res.plan.append(action)
                res.reason = "goal"
                return _done(res, start)
            fresh.append((action, succ))
        if not fresh:
            return _done(res, start)  # every successor entered before: stuck
        h = np.asarray(heuristic([s for _, s in fresh]), dtype=np.float64)
        res.evaluated += len(fresh)
        res.heuristic_calls += 1
        if res.h_init is None:
            res.h_init = float(h.min())
        action, state = fresh[int(np.argmin(h))]  # argmin: the first of equal values
        visited.add(state.get_index())
        res.plan.append(action)


def _path(node: int, parent: list, via: list) -> list:
    plan = []
    while parent[node] >= 0:
        plan.append(via[node])
        node = parent[node]
    return plan[::-1]


def _done(res: SearchResult, start: float) -> SearchResult:
    res.time = time.perf_counter() - start
    return res


class HeuristicSearchPlanner:
    """The planner interface (genplan.planners.base) over `gbfs` or `descent` with a model that
    has `bind(problem) -> heuristic` (the heuristic family's `HeuristicModel`)."""

    def __init__(self, model, strategy, settings: dict | None = None):
        if strategy.kind not in KINDS:
            raise ValueError(f"the heuristic search cannot run strategy {strategy.name!r}; kinds {list(KINDS)}")
        self.model = model
        self.strategy = strategy.name
        self._search = gbfs if strategy.kind == "gbfs" else descent
        self.limits = SearchLimits.from_settings(settings)

    def solve(self, problem) -> Attempt:
        start = time.perf_counter()
        try:
            heuristic = self.model.bind(problem)
            task = problem.mimir
        except GenplanError as exc:
            return Attempt([], "refused", time.perf_counter() - start, counters={"message": exc.message})
        res = self._search(task, heuristic, self.limits)
        counters = {"generated": res.generated, "evaluated": res.evaluated, "h_init": res.h_init,
                    "max_expansions": self.limits.max_expansions, "time_limit": self.limits.time_limit}
        return Attempt(res.plan, res.reason, time.perf_counter() - start, steps=res.expanded,
                       model_calls=res.heuristic_calls, states_expanded=res.expanded, counters=counters)
