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
import time
from collections.abc import Callable

import numpy as np

from genplan.planners import search_parts as parts
from genplan.planners.search_parts import SearchLimits, SearchResult


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
    clock = parts.Clock(timers)
    res, graph = parts.root(task)
    if res.reason == "goal":
        return parts.finished(res, start)
    states, parent, via, seen = graph
    res.h_init = float(parts.evaluate(heuristic, [states[0]], res)[0])
    atoms_by_h: dict[int, set] = {}
    first = (_width(task, states[0], res.h_init, atoms_by_h), res.h_init) if novelty else (res.h_init,)
    open_list = [(*first, 0, 0)]
    counter, novel = 1, 0
    while open_list:
        if parts.stopped(res, limits, start):
            break
        clock.lap("queue")
        node = heapq.heappop(open_list)[-1]
        res.expanded += 1
        new = parts.expand(task, node, (states, parent, via, seen), res, clock)
        if new is None:
            break
        if new:
            values = parts.evaluate(heuristic, [states[c] for c in new], res).tolist()
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
    return parts.finished(res, start)  # a goal, a limit, or the open list exhausted: no plan exists


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
    clock = parts.Clock(timers)
    res, graph = parts.root(task)
    if res.reason == "goal":
        return parts.finished(res, start)
    states, parent, via, seen = graph
    open_list = [(0.0, 0, 0)]  # (parent's h, generation order, node)
    counter = 1
    while open_list:
        if parts.stopped(res, limits, start):
            return parts.finished(res, start)
        _, _, node = heapq.heappop(open_list)
        clock.lap("queue")
        h = float(parts.evaluate(heuristic, [states[node]], res)[0])
        if res.h_init is None:
            res.h_init = h
        clock.lap("heuristic")
        res.expanded += 1
        successors = parts.successors(task, states[node])
        clock.lap("successors")
        for child in parts.generate(task, node, successors, (states, parent, via, seen), res):
            heapq.heappush(open_list, (h, counter, child))
            counter += 1
        clock.lap("goal_and_duplicates")
        if res.reason == "goal":
            return parts.finished(res, start)
    return parts.finished(res, start)


