"""Heuristic search over pymimir successors: eager and lazy greedy best-first search (their code
in genplan.planners.best_first, re-exported here), greedy descent, and the planner interface over
them, for any model that scores states (`genplan.planners.base.Heuristic`: `bind(problem) -> h`, h a
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
- `novelty-gbfs` (`novelty_gbfs`, strategy of the heuristic family): eager GBFS ordered by (novelty
  given the rounded h, h), best-first width search's w_h; the same limits as `gbfs`.
- `compiled-gbfs`, `compiled-novelty-gbfs`, `compiled-lazy-gbfs` (strategies of the heuristic
  family): `gbfs`, `novelty-gbfs` and `lazy-gbfs` with a linear WL heuristic run in C++, one native
  call a problem (genplan.planners.compiled, genplan._wlsearch): the same plans and counters as
  their Python searches; their time limit counts the grounding and the model's export too.
- `hybrid-ff-gbfs` and `compiled-hybrid-ff-gbfs` (strategies of the heuristic family): eager GBFS
  alternating an open list on the learned h with one on hFF, as Fast Downward's
  eager_greedy([h, ff()]) (genplan.planners.hybrid; hFF in genplan.planners.relaxed), in Python
  over the grounded task and in C++; a hybrid with a classical heuristic, named so that reports
  keep its rows apart from the pure learned ones.
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
every expansion, and `memory_limit_mb`, MiB of the process's resident memory (`memory_limit`;
unset: unlimited), checked before every 1024th expansion. An exhausted open list is `dead_end`
(GBFS then has proved the problem unsolvable).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from genplan.errors import GenplanError
from genplan.planners import search_parts as parts
from genplan.planners import strategies
from genplan.planners.base import Attempt
from genplan.planners.best_first import gbfs, lazy_gbfs, novelty_gbfs
from genplan.planners.hybrid import ground_ff, hybrid_gbfs
from genplan.planners.search_parts import UNLIMITED, SearchLimits, SearchResult  # this module's API too

_BEST_FIRST = {"gbfs": gbfs, "lazy-gbfs": lazy_gbfs, "novelty-gbfs": novelty_gbfs}
# the compiled kinds -> their native search (genplan.planners.compiled.SEARCHES; that module is
# imported only when one runs: it loads the grounding and the native code)
COMPILED = {"compiled-gbfs": "gbfs", "compiled-novelty-gbfs": "novelty_gbfs", "compiled-lazy-gbfs": "lazy_gbfs",
            "compiled-hybrid-ff-gbfs": "hybrid_gbfs"}
KINDS = strategies.run_by("search")  # the strategy table's kinds that this module runs
ORDERS = ("lexicographic", "pymimir")
GOAL_TESTS = ("generated", "entered")


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
        for action, succ in parts.successors(task, state, rules.order):
            res.generated += 1
            if succ.get_index() in visited:
                continue
            if rules.goal_test == "generated" and task.is_goal(succ):
                if _take(action, res, rules):
                    res.reason = "goal"
                return parts.finished(res, start)
            fresh.append((action, succ))
        if not fresh:
            res.reason = "dead_end"  # every successor entered before: stuck
            break
        h = parts.evaluate(heuristic, [s for _, s in fresh], res)
        if res.h_init is None:
            res.h_init = float(h.min())
        action, state = fresh[int(np.argmin(h))]  # argmin: the first of equal values
        if not _take(action, res, rules):
            break
        visited.add(state.get_index())
    return parts.finished(res, start)


def _ends(task, state, res: SearchResult, limits: SearchLimits, rules: Rules, start: float) -> bool:
    """The descent ends before expanding `state`: a goal, the horizon, or a limit (the reason set)."""
    if task.is_goal(state):
        res.reason = "goal"
    elif rules.horizon is not None and len(res.plan) >= rules.horizon:
        res.reason = "horizon"
    else:
        return parts.stopped(res, limits, start)
    return True


def _take(action, res: SearchResult, rules: Rules) -> bool:
    """Add the action to the plan, unless it passes the token cap (reason `horizon`)."""
    if rules.max_tokens is not None and res.tokens + len(action) > rules.max_tokens:
        res.reason = "horizon"
        return False
    res.tokens += len(action)
    res.plan.append(action)
    return True


class HeuristicSearchPlanner:
    """The planner interface (genplan.planners.base) over `gbfs`, `lazy-gbfs`, `novelty-gbfs`, `descent`,
    `heuristic-greedy` (descent with `Guidance`) for any model with `bind(problem) -> heuristic`, and
    the compiled searches (`COMPILED`) for the linear WL heuristics.
    `settings` are the model entry's planning settings: `search` (gbfs and descent's limits), `decode` and `generate`
    (heuristic-greedy's horizon and token cap, `max_tokens` when `generate` has none)."""

    def __init__(self, model, strategy, settings: dict | None = None, max_tokens: int = 500):
        if strategy.kind not in KINDS:
            raise ValueError(f"the heuristic search cannot run strategy {strategy.name!r}; kinds {list(KINDS)}")
        self.model, self.strategy, self.kind = model, strategy.name, strategy.kind
        settings = settings or {}
        guided = self.kind == "heuristic-greedy"
        self.guidance = Guidance.from_settings(settings, max_tokens) if guided else None
        self.limits = UNLIMITED if guided else SearchLimits.from_settings(settings.get("search"))
        self.bind_options = {"names": settings["names"]} if settings.get("names") else {}  # SymT^E's naming

    def solve(self, problem) -> Attempt:
        start = time.perf_counter()
        if self.kind in COMPILED:
            return self._compiled(problem, start)
        try:
            heuristic = self.model.bind(problem, **self.bind_options)
            task = problem.mimir
            classical = ground_ff(problem) if self.kind == "hybrid-ff-gbfs" else None
        except GenplanError as exc:  # e.g. more objects than the model's object tokens; conditional effects
            return Attempt([], "refused", time.perf_counter() - start, counters={"message": exc.message})
        if classical is not None:
            return self._attempt(hybrid_gbfs(task, heuristic, classical, self.limits), start)
        search = _BEST_FIRST.get(self.kind)
        if search is not None:
            return self._attempt(search(task, heuristic, self.limits), start)
        rules = self.guidance.rules(len(problem.task.objects)) if self.guidance else Rules()
        return self._attempt(descent(task, heuristic, self.limits, rules), start, rules.horizon)

    def _compiled(self, problem, start: float) -> Attempt:
        """A compiled search (`COMPILED`): one native call, its time limit counting the preparation."""
        from genplan.planners.compiled import CompiledSearch
        from genplan.planners.grounding import GroundingTimeout

        try:
            search = CompiledSearch(self.model, problem, deadline=start + self.limits.time_limit)
        except GenplanError as exc:  # an XGBoost model, conditional effects, derived predicates
            return Attempt([], "refused", time.perf_counter() - start, counters={"message": exc.message})
        except GroundingTimeout:  # the time limit ran out while grounding: stopped there, not after it
            return self._attempt(SearchResult([], "time_limit"), start)
        left = self.limits.time_limit - (time.perf_counter() - start)
        if left <= 0:
            return self._attempt(SearchResult([], "time_limit"), start)
        limits = SearchLimits(self.limits.max_expansions, left, self.limits.memory_limit_mb)
        return self._attempt(search.search(COMPILED[self.kind], limits), start)

    def _attempt(self, res: SearchResult, start: float, horizon: int | None = None) -> Attempt:
        elapsed = time.perf_counter() - start
        if self.guidance is not None:  # a walk: steps are its actions, counted in tokens as a sequence
            return Attempt(res.plan, res.reason, elapsed, steps=len(res.plan), horizon=horizon,
                           model_calls=res.heuristic_calls, states_expanded=res.expanded, tokens_generated=res.tokens)
        counters = {**res.counters, "generated": res.generated, "evaluated": res.evaluated, "h_init": res.h_init,
                    "max_expansions": self.limits.max_expansions, "time_limit": self.limits.time_limit}
        if self.limits.memory_limit_mb is not None:
            counters["memory_limit_mb"] = self.limits.memory_limit_mb
        return Attempt(res.plan, res.reason, elapsed, steps=res.expanded, model_calls=res.heuristic_calls,
                       states_expanded=res.expanded, counters=counters)
