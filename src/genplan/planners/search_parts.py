"""What the best-first searches share, public here so that each search module takes the same parts
(genplan.planners.best_first: eager, novelty and lazy GBFS; genplan.planners.hybrid; the descent of
genplan.planners.search): the limits and the result, the successor order, the heuristic call, the
clock of parts, the search graph (root, expand, generate, path), the limit test and the finish. The
compiled searches mirror them in src/genplan/cpp/search_parts.hpp."""

from __future__ import annotations

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


def successors(task, state, order: str = "lexicographic") -> list[tuple[tuple, object]]:
    """(action, successor state) pairs in pymimir's order or the lexicographic order of the actions' names."""
    if order == "pymimir":
        return task.successors(state)
    pairs = [(task.action(a), a) for a in state.generate_applicable_actions()]
    pairs.sort(key=lambda p: p[0])
    return [(name, a.apply(state)) for name, a in pairs]


def evaluate(heuristic: Callable[[list], np.ndarray], states: list, res: SearchResult) -> np.ndarray:
    """h of a batch of states in one call, counted in `res`."""
    h = np.asarray(heuristic(states), dtype=np.float64)
    res.evaluated += len(states)
    res.heuristic_calls += 1
    return h


class Clock:
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


def root(task) -> tuple[SearchResult, tuple]:
    """A best-first search's start: its result (reason `goal` when the initial state is one) and the
    search graph (node id -> state, parent node, action; the seen state indices) holding the initial state."""
    s0 = task.initial_state()
    res = SearchResult([], "goal" if task.is_goal(s0) else "dead_end")
    return res, ([s0], [-1], [None], {s0.get_index()})


def expand(task, node: int, graph: tuple, res: SearchResult, clock: Clock) -> list[int] | None:
    """An eager search's expansion of `node`: its successors (lap `successors`), the new ones into the
    graph (`generate`, lap `goal_and_duplicates`); their nodes, or None at a goal successor."""
    pairs = successors(task, graph[0][node])
    clock.lap("successors")
    new = generate(task, node, pairs, graph, res)
    clock.lap("goal_and_duplicates")
    return None if res.reason == "goal" else new


def generate(task, node: int, successors, graph: tuple, res: SearchResult) -> list[int]:
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
            res.plan, res.reason = plan_path(child, parent, via), "goal"
            return new
        new.append(child)
    return new


def stopped(res: SearchResult, limits: SearchLimits, start: float) -> bool:
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


def plan_path(node: int, parent: list, via: list) -> list:
    plan = []
    while parent[node] >= 0:
        plan.append(via[node])
        node = parent[node]
    return plan[::-1]


def finished(res: SearchResult, start: float) -> SearchResult:
    res.time = time.perf_counter() - start
    return res
