"""Heuristic search over pymimir successors: eager greedy best-first search and greedy descent,
for any model that scores states (`genplan.planners.base.Heuristic`: `bind(problem) -> h`, h a
map from a batch of the problem's pymimir states to numbers): the heuristic family's learned
heuristics, SymT^E's estimate, or h* itself in the tests.

Both searches keep the true symbolic state (successors come from pymimir, never from a model) and
evaluate the new successors of an expanded state in ONE heuristic call.

- `gbfs` (eager greedy best-first search, as Fast Downward's `eager_greedy`): the open list is
  ordered by h, ties broken first in, first out (the state generated earlier first); duplicate
  detection on pymimir's state index (a state generated once is never generated again, no
  reopening: GBFS ignores path costs); the goal test is made when a state is generated (the
  initial state: before the search). Successors are generated in the lexicographic order of their
  ground actions' names, so that a run is the same on every machine.
- `lazy-gbfs` (`lazy_gbfs`, strategy of the heuristic family): lazy greedy best-first search, one
  heuristic call of one state per expansion (Fast Downward's `lazy_greedy` without preferred
  operators); the same limits as `gbfs`.
- `descent` (greedy descent): from the current state, move to the successor with the lowest h
  (ties: the first in the successor order), never to a state the descent has entered before
  (cycles are cut by this visited set over the whole descent, on pymimir's state index); when
  every successor has been entered before, the descent stops (`dead_end`): it does not backtrack.
  Its `Rules` say the rest; the defaults are the heuristic family's `descent`: successors in the
  lexicographic order, a goal among the successors taken at once, no horizon.
- SymT^E's greedy heuristic guidance (strategy `heuristic-greedy`; SymT paper, Section 5) is
  descent with `Guidance`'s rules, as the paper leaves them open and as genplan decided them:
  successors in pymimir's order of applicable actions; the goal test when a state is entered (a
  goal successor is taken only when its h is the lowest); at most max(horizon_min,
  horizon_per_object * |objects|) actions (100 and 10, as the transition family's beam) and at
  most `max_tokens` plan tokens (the paper's 500; an action counts 1 + its arity tokens), reason
  `horizon`; no expansion or time limit.

Limits (`SearchLimits`, the `search` settings of gbfs and descent): `max_expansions` states
expanded (`node_limit` when reached: the search stops before expanding one more; descent's steps
count as expansions) and `time_limit` seconds of wall time (`time_limit`), both checked before
every expansion. An exhausted open list is `dead_end` (GBFS then has proved the problem
unsolvable).
"""

from __future__ import annotations

import heapq
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from genplan.errors import GenplanError
from genplan.planners.base import Attempt

KINDS = ("gbfs", "lazy-gbfs", "descent", "heuristic-greedy")
ORDERS = ("lexicographic", "pymimir")
GOAL_TESTS = ("generated", "entered")


@dataclass(frozen=True)
class SearchLimits:
    max_expansions: int | float = 100_000
    time_limit: float = 60.0  # seconds, per problem

    def __post_init__(self):
        if self.max_expansions < 1 or self.time_limit <= 0:
            raise ValueError(f"invalid search limits: {self}")

    @classmethod
    def from_settings(cls, settings: dict | None) -> SearchLimits:
        settings = dict(settings or {})
        unknown = sorted(set(settings) - {"max_expansions", "time_limit"})
        if unknown:
            raise ValueError(f"unknown search settings {unknown} (known: max_expansions, time_limit)")
        return cls(**settings)


UNLIMITED = SearchLimits(math.inf, math.inf)


@dataclass(frozen=True)
class Rules:
    """How `descent` walks (module docstring)."""

    order: str = "lexicographic"  # of the successors: lexicographic (actions' names) | pymimir (its own)
    goal_test: str = "generated"  # generated: a goal successor taken at once | entered: tested on entering
    horizon: int | None = None  # actions at most (reason `horizon`)
    max_tokens: int | None = None  # plan tokens at most, 1 + arity an action (reason `horizon`)

    def __post_init__(self):
        if self.order not in ORDERS or self.goal_test not in GOAL_TESTS:
            raise ValueError(f"invalid descent rules: {self}")


@dataclass(frozen=True)
class Guidance:
    """SymT's greedy heuristic guidance: descent's rules for one problem from its objects."""

    horizon_min: int = 100
    horizon_per_object: int = 10
    max_tokens: int = 500

    @classmethod
    def from_settings(cls, settings: dict | None, max_tokens: int = 500) -> Guidance:
        """From planning settings: `decode` (horizon_min, horizon_per_object) and `generate`
        (max_tokens; `max_tokens` when unset, the model's own cap)."""
        settings = settings or {}
        decode, generate = settings.get("decode") or {}, settings.get("generate") or {}
        return cls(int(decode.get("horizon_min", 100)), int(decode.get("horizon_per_object", 10)),
                   int(generate.get("max_tokens", max_tokens)))

    def rules(self, objects: int) -> Rules:
        horizon = max(self.horizon_min, self.horizon_per_object * objects)
        return Rules("pymimir", "entered", horizon, self.max_tokens)


@dataclass
class SearchResult:
    plan: list  # ground actions, package representation
    reason: str  # goal | node_limit | time_limit | dead_end | horizon
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
    """Seconds per part of a search (`timers`: successors, goal_and_duplicates, heuristic, queue),
    kept only when the caller passes a dict (the search-speed benchmark); otherwise free."""

    def __init__(self, timers: dict | None):
        self.timers = timers
        self.last = time.perf_counter() if timers is not None else 0.0

    def lap(self, part: str) -> None:
        if self.timers is not None:
            now = time.perf_counter()
            self.timers[part] = self.timers.get(part, 0.0) + now - self.last
            self.last = now


def gbfs(task, heuristic: Callable[[list], np.ndarray], limits: SearchLimits, timers: dict | None = None
         ) -> SearchResult:
    """Eager greedy best-first search from the task's initial state (see the module docstring)."""
    start = time.perf_counter()
    clock = _Clock(timers)
    s0 = task.initial_state()
    res = SearchResult([], "dead_end")
    if task.is_goal(s0):
        res.reason = "goal"
        return _done(res, start)
    res.h_init = float(_evaluate(heuristic, [s0], res)[0])
    states, parent, via = [s0], [-1], [None]  # node id -> state, parent node, action
    seen = {s0.get_index()}
    open_list = [(res.h_init, 0, 0)]  # (h, generation order, node)
    counter = 1
    while open_list:
        if _stopped(res, limits, start):
            return _done(res, start)
        clock.lap("queue")
        _, _, node = heapq.heappop(open_list)
        res.expanded += 1
        successors = _successors(task, states[node])
        clock.lap("successors")
        new = _generate(task, node, successors, (states, parent, via, seen), res)
        clock.lap("goal_and_duplicates")
        if res.reason == "goal":
            return _done(res, start)
        if new:
            values = _evaluate(heuristic, [states[c] for c in new], res).tolist()
            clock.lap("heuristic")
            for c, value in zip(new, values):
                heapq.heappush(open_list, (value, counter, c))
                counter += 1
    return _done(res, start)  # open list exhausted: no plan exists


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
    s0 = task.initial_state()
    res = SearchResult([], "dead_end")
    if task.is_goal(s0):
        res.reason = "goal"
        return _done(res, start)
    states, parent, via = [s0], [-1], [None]
    seen = {s0.get_index()}
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
    """The node or time limit is reached: the result's reason says which."""
    if res.expanded >= limits.max_expansions:
        res.reason = "node_limit"
    elif time.perf_counter() - start > limits.time_limit:
        res.reason = "time_limit"
    else:
        return False
    return True


def descent(task, heuristic: Callable[[list], np.ndarray], limits: SearchLimits,
            rules: Rules = Rules()) -> SearchResult:
    """Greedy descent from the task's initial state (see the module docstring)."""
    start = time.perf_counter()
    state = task.initial_state()
    res = SearchResult([], "dead_end")
    visited = {state.get_index()}
    while not _ends(task, state, res, limits, rules, start):
        res.expanded += 1
        fresh = []
        for action, succ in _successors(task, state, rules.order):
            res.generated += 1
            if succ.get_index() in visited:
                continue
            if rules.goal_test == "generated" and task.is_goal(succ):
                if _take(action, res, rules):
                    res.reason = "goal"
                return _done(res, start)
            fresh.append((action, succ))
        if not fresh:
            res.reason = "dead_end"  # every successor entered before: stuck
            break
        h = _evaluate(heuristic, [s for _, s in fresh], res)
        if res.h_init is None:
            res.h_init = float(h.min())
        action, state = fresh[int(np.argmin(h))]  # argmin: the first of equal values
        if not _take(action, res, rules):
            break
        visited.add(state.get_index())
    return _done(res, start)


def _ends(task, state, res: SearchResult, limits: SearchLimits, rules: Rules, start: float) -> bool:
    """The descent ends before expanding `state`: a goal, the horizon, or a limit (the reason set)."""
    if task.is_goal(state):
        res.reason = "goal"
    elif rules.horizon is not None and len(res.plan) >= rules.horizon:
        res.reason = "horizon"
    else:
        return _stopped(res, limits, start)
    return True


def _take(action, res: SearchResult, rules: Rules) -> bool:
    """Add the action to the plan, unless it passes the token cap (reason `horizon`)."""
    if rules.max_tokens is not None and res.tokens + len(action) > rules.max_tokens:
        res.reason = "horizon"
        return False
    res.tokens += len(action)
    res.plan.append(action)
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


class HeuristicSearchPlanner:
    """The planner interface (genplan.planners.base) over `gbfs`, `lazy-gbfs`, `descent` or `heuristic-greedy`
    (descent with `Guidance`) for any model with `bind(problem) -> heuristic`. `settings` are the
    model entry's planning settings: `search` (gbfs and descent's limits), `decode` and `generate`
    (heuristic-greedy's horizon and token cap, `max_tokens` when `generate` has none)."""

    def __init__(self, model, strategy, settings: dict | None = None, max_tokens: int = 500):
        if strategy.kind not in KINDS:
            raise ValueError(f"the heuristic search cannot run strategy {strategy.name!r}; kinds {list(KINDS)}")
        self.model, self.strategy, self.kind = model, strategy.name, strategy.kind
        settings = settings or {}
        guided = self.kind == "heuristic-greedy"
        self.guidance = Guidance.from_settings(settings, max_tokens) if guided else None
        self.limits = UNLIMITED if guided else SearchLimits.from_settings(settings.get("search"))

    def solve(self, problem) -> Attempt:
        start = time.perf_counter()
        try:
            heuristic = self.model.bind(problem)
            task = problem.mimir
        except GenplanError as exc:  # e.g. more objects than the model's object tokens
            return Attempt([], "refused", time.perf_counter() - start, counters={"message": exc.message})
        if self.kind in ("gbfs", "lazy-gbfs"):
            search = gbfs if self.kind == "gbfs" else lazy_gbfs
            return self._attempt(search(task, heuristic, self.limits), start)
        rules = self.guidance.rules(len(problem.task.objects)) if self.guidance else Rules()
        return self._attempt(descent(task, heuristic, self.limits, rules), start, rules.horizon)

    def _attempt(self, res: SearchResult, start: float, horizon: int | None = None) -> Attempt:
        elapsed = time.perf_counter() - start
        if self.guidance is not None:  # a walk: steps are its actions, counted in tokens as a sequence
            return Attempt(res.plan, res.reason, elapsed, steps=len(res.plan), horizon=horizon,
                           model_calls=res.heuristic_calls, states_expanded=res.expanded, tokens_generated=res.tokens)
        counters = {"generated": res.generated, "evaluated": res.evaluated, "h_init": res.h_init,
                    "max_expansions": self.limits.max_expansions, "time_limit": self.limits.time_limit}
        return Attempt(res.plan, res.reason, elapsed, steps=res.expanded, model_calls=res.heuristic_calls,
                       states_expanded=res.expanded, counters=counters)
