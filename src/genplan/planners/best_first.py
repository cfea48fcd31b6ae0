"""Best-first search over pymimir successors for any model that scores states (a heuristic: a map
from a batch of a problem's pymimir states to numbers), and the primitives the searches share
(limits, result, successor order, the heuristic call, the clock, the path):

- `gbfs` (eager greedy best-first search, as Fast Downward's `eager_greedy`): the open list is
  ordered by h, ties broken first in, first out (the state generated earlier first); duplicate
  detection on pymimir's state index (a state generated once is never generated again, no
  reopening: GBFS ignores path costs); the goal test is made when a state is generated (the
  initial state: before the search). Successors are generated in the lexicographic order of their
  ground actions' names, so that a run is the same on every machine. The new successors of an
  expanded state are evaluated in ONE heuristic call.
- `lazy_gbfs`: lazy greedy best-first search, one heuristic call of one state per expansion.
- `novelty_gbfs`: eager GBFS whose open list is ordered by (novelty, h): a state is novel (w = 1)
  when one of its fluent atoms was never seen before in a generated state of the same (rounded) h,
  else w = 2; novel states go first. This is best-first width search's w_h partitioned by the
  heuristic (Lipovetzky and Geffner, "Best-First Width Search: Exploration and Exploitation in
  Classical Planning", AAAI 2017: BFWS(f) with the novelty measure w_{f}), here with the learned h
  as the partition and as the tie-breaker; the rest is `gbfs`'s.

genplan.planners.search holds greedy descent and the planner interface over all of them."""

from __future__ import annotations

import heapq
import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class SearchLimits:
    """A search's limits per problem (the `search` settings): states expanded, seconds of wall time,
    and the process's resident memory in MiB (None: unlimited), which is read every 1024 expansions
    (`MEMORY_CHECK_EVERY`), so that checking it costs nothing that shows."""

    max_expansions: int | float = 100_000
    time_limit: float = 60.0  # seconds, per problem
    memory_limit_mb: float | None = None  # MiB of resident memory (MiB as Fast Downward's memory_limit_mb)

    def __post_init__(self):
        if self.max_expansions < 1 or self.time_limit <= 0 or (
                self.memory_limit_mb is not None and self.memory_limit_mb <= 0):
            raise ValueError(f"invalid search limits: {self}")

    @classmethod
    def from_settings(cls, settings: dict | None) -> SearchLimits:
        settings = dict(settings or {})
        known = ("max_expansions", "time_limit", "memory_limit_mb")
        unknown = sorted(set(settings) - set(known))
        if unknown:
            raise ValueError(f"unknown search settings {unknown} (known: {', '.join(known)})")
        return cls(**settings)


MEMORY_CHECK_EVERY = 1024  # expansions between two reads of the resident memory (the compiled searches' too)
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def resident_mib() -> float:
    """The process's resident memory in MiB (/proc/self/statm's second field; 0.0 where unreadable)."""
    try:
        with open("/proc/self/statm") as fh:
            pages = int(fh.read().split()[1])
    except (OSError, IndexError, ValueError):
        return 0.0
    return pages * _PAGE / 2 ** 20


UNLIMITED = SearchLimits(math.inf, math.inf)


@dataclass
class SearchResult:
    plan: list  # ground actions, package representation
    reason: str  # goal | node_limit | time_limit | memory_limit | dead_end | horizon
    expanded: int = 0
    generated: int = 0
    evaluated: int = 0  # states given to the heuristic
    heuristic_calls: int = 0
    h_init: float | None = None
    tokens: int = 0  # plan tokens (descent: 1 + arity an action)
    time: float = 0.0
    counters: dict = field(default_factory=dict)


def _successors(task, state, order: str = "lexicographic") -> list[tuple[tuple, object]]:
    """(action, successor state) pairs in pymimir's order or the lexicographic order of the actions' names."""
    if order == "pymimir":
        return task.successors(state)
    pairs = [(task.action(a), a) for a in state.generate_applicable_actions()]
    pairs.sort(key=lambda p: p[0])
    return [(name, a.apply(state)) for name, a in pairs]


def _evaluate(heuristic: Callable[[list], np.ndarray], states: list, res: SearchResult) -> np.ndarray:
    """h of a batch of states in one call, counted in `res`."""
    h = np.asarray(heuristic(states), dtype=np.float64)
    res.evaluated += len(states)
    res.heuristic_calls += 1
    return h


class _Clock:
    """CPU seconds per part of a search (`timers`: successors, goal_and_duplicates, heuristic,
    queue), kept only when the caller passes a dict (perf/search_speed.py); otherwise free."""

    def __init__(self, timers: dict | None):
        self.timers = timers
        self.last = time.process_time() if timers is not None else 0.0

    def lap(self, part: str) -> None:
        if self.timers is not None:
            now = time.process_time()
            self.timers[part] = self.timers.get(part, 0.0) + now - self.last
            self.last = now


def gbfs(task, heuristic: Callable[[list], np.ndarray], limits: SearchLimits, timers: dict | None = None
         ) -> SearchResult:
    """Eager greedy best-first search from the task's initial state (see the module docstring)."""
    return _eager(task, heuristic, limits, timers, novelty=False)


def novelty_gbfs(task, heuristic: Callable[[list], np.ndarray], limits: SearchLimits, timers: dict | None = None
                 ) -> SearchResult:
    """Eager GBFS ordered by (novelty given h, h) (see the module docstring); the novelty measure
    costs one subset test of a state's fluent atom indices a generated state. The result's
    counters say how many generated states were novel (`novel`)."""
    return _eager(task, heuristic, limits, timers, novelty=True)


def _eager(task, heuristic: Callable[[list], np.ndarray], limits: SearchLimits, timers: dict | None,
           novelty: bool) -> SearchResult:
    """Eager GBFS; open-list entries (h, order, node), or (w, h, order, node) with `novelty`."""
    start = time.perf_counter()
    clock = _Clock(timers)
    res, graph = _root(task)
    if res.reason == "goal":
        return _done(res, start)
    states, parent, via, seen = graph
    res.h_init = float(_evaluate(heuristic, [states[0]], res)[0])
    atoms_by_h: dict[int, set] = {}
    first = (_width(task, states[0], res.h_init, atoms_by_h), res.h_init) if novelty else (res.h_init,)
    open_list = [(*first, 0, 0)]
    counter, novel = 1, 0
    while open_list:
        if _stopped(res, limits, start):
            break
        clock.lap("queue")
        node = heapq.heappop(open_list)[-1]
        res.expanded += 1
        new = _expand(task, node, (states, parent, via, seen), res, clock)
        if new is None:
            break
        if new:
            values = _evaluate(heuristic, [states[c] for c in new], res).tolist()
            clock.lap("heuristic")
            if novelty:
                for c, value in zip(new, values):
                    width = _width(task, states[c], value, atoms_by_h)
                    novel += width == 1
                    heapq.heappush(open_list, (width, value, counter, c))
                    counter += 1
                clock.lap("novelty")
            else:
                for c, value in zip(new, values):
                    heapq.heappush(open_list, (value, counter, c))
                    counter += 1
    if novelty:
        res.counters["novel"] = novel
    return _done(res, start)  # a goal, a limit, or the open list exhausted: no plan exists


def _width(task, state, h: float, atoms_by_h: dict) -> int:
    """1 when the state has a fluent atom not seen before with the same rounded h (recorded now), else 2."""
    seen = atoms_by_h.setdefault(round(h), set())
    atoms = task.fluent_indices(state)
    if seen.issuperset(atoms):
        return 2
    seen.update(atoms)
    return 1


def lazy_gbfs(task, heuristic: Callable[[list], np.ndarray], limits: SearchLimits, timers: dict | None = None
              ) -> SearchResult:
    """Lazy greedy best-first search (Fast Downward's `lazy_greedy` without preferred operators, but with
    the goal test and duplicate detection at generation, as our `gbfs`):
    a state's h is computed when it is expanded, not when it is generated; its successors enter
    the open list with their parent's h (ties: first in, first out). One heuristic call of one
    state per expansion, where eager GBFS evaluates every new successor. Duplicates, the goal test
    at generation, the successor order and the limits are as `gbfs`'s."""
    start = time.perf_counter()
    clock = _Clock(timers)
    res, graph = _root(task)
    if res.reason == "goal":
        return _done(res, start)
    states, parent, via, seen = graph
    open_list = [(0.0, 0, 0)]  # (parent's h, generation order, node)
    counter = 1
    while open_list:
        if _stopped(res, limits, start):
            return _done(res, start)
        _, _, node = heapq.heappop(open_list)
        clock.lap("queue")
        h = float(_evaluate(heuristic, [states[node]], res)[0])
        if res.h_init is None:
            res.h_init = h
        clock.lap("heuristic")
        res.expanded += 1
        successors = _successors(task, states[node])
        clock.lap("successors")
        for child in _generate(task, node, successors, (states, parent, via, seen), res):
            heapq.heappush(open_list, (h, counter, child))
            counter += 1
        clock.lap("goal_and_duplicates")
        if res.reason == "goal":
            return _done(res, start)
    return _done(res, start)


def _root(task) -> tuple[SearchResult, tuple]:
    """A best-first search's start: its result (reason `goal` when the initial state is one) and the
    search graph (node id -> state, parent node, action; the seen state indices) holding the initial state."""
    s0 = task.initial_state()
    res = SearchResult([], "goal" if task.is_goal(s0) else "dead_end")
    return res, ([s0], [-1], [None], {s0.get_index()})


def _expand(task, node: int, graph: tuple, res: SearchResult, clock: _Clock) -> list[int] | None:
    """An eager search's expansion of `node`: its successors (lap `successors`), the new ones into the
    graph (`_generate`, lap `goal_and_duplicates`); their nodes, or None at a goal successor."""
    successors = _successors(task, graph[0][node])
    clock.lap("successors")
    new = _generate(task, node, successors, graph, res)
    clock.lap("goal_and_duplicates")
    return None if res.reason == "goal" else new


def _generate(task, node: int, successors, graph: tuple, res: SearchResult) -> list[int]:
    """The search graph gains `node`'s successors not seen before (states, parent, via, seen); their
    nodes, in order. At a goal successor the result gets its plan (reason "goal") and the nodes
    generated before it are returned: the goal test at generation, as GBFS's and lazy GBFS's."""
    states, parent, via, seen = graph
    new = []
    for action, succ in successors:
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
            return new
        new.append(child)
    return new


def _stopped(res: SearchResult, limits: SearchLimits, start: float) -> bool:
    """The node, time or memory limit is reached: the result's reason says which."""
    if res.expanded >= limits.max_expansions:
        res.reason = "node_limit"
    elif time.perf_counter() - start > limits.time_limit:
        res.reason = "time_limit"
    elif (limits.memory_limit_mb is not None and res.expanded % MEMORY_CHECK_EVERY == 0
          and resident_mib() > limits.memory_limit_mb):
        res.reason = "memory_limit"
    else:
        return False
    return True


def _path(node: int, parent: list, via: list) -> list:
    plan = []
    while parent[node] >= 0:
        plan.append(via[node])
        node = parent[node]
    return plan[::-1]


def _done(res: SearchResult, start: float) -> SearchResult:
    res.time = time.perf_counter() - start
    return res
