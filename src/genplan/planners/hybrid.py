"""A hybrid of the learned heuristic and a classical one: eager greedy best-first
search with TWO open lists, one ordered by the learned h and one by hFF (genplan.planners.relaxed),
alternated as Fast Downward's `eager_greedy([learned, ff()])` alternates them (EagerSearch with an
AlternationOpenList of two StandardScalarOpenLists, boost 0, no preferred operators:
src/search/search_algorithms/eager_search.cc and src/search/open_lists/alternation_open_list.cc,
https://github.com/aibasel/downward; our own code, written from that behaviour). Strategies
`hybrid-ff-gbfs` (this module) and `compiled-hybrid-ff-gbfs` (genplan._wlsearch.hybrid_gbfs, held
to this one step for step by tests/test_hybrid_search.py). Its rows are a hybrid, not the learned
heuristic alone: every name of it holds "hybrid", so that reports keep it apart from the pure
learned rows.

`hybrid_gbfs`, step by step (the rest is best_first.gbfs's: successors in the lexicographic order
of their actions' names, duplicate detection at generation, no reopening, the goal test at
generation, the limits checked before each expansion):

- the initial state gets h (one heuristic call) and hFF (`ff_init`); every new successor of an
  expanded state gets h (the new successors in ONE call, as gbfs) and hFF, and enters both open
  lists, (h, order) in one and (hFF, order) in the other, ties first in, first out;
- a state whose hFF is infinite (its positive goal atoms unreachable in the delete relaxation) is a
  dead end and enters neither list (Fast Downward prunes it too: hFF's dead ends are reliable for
  STRIPS tasks without axioms or conditional effects, which is all the grounding takes);
- each pop takes from the non-empty list that was popped the fewest times so far, ties to the
  learned list (AlternationOpenList::remove_min with boost 0): the lists alternate, the learned one
  first; when one is empty the other is popped (and counts its pops);
- a popped state that was expanded already (popped from the other list before) is skipped and not
  counted as an expansion; the pops keep going until an unexpanded state comes (or both lists are
  empty: `dead_end`).

Counters: gbfs's (expanded, generated, evaluated and heuristic_calls of the learned h, h_init) and
`ff_init` (hFF of the initial state; None when infinite, a relaxed dead end). Timers: gbfs's parts
and `classical` (the hFF evaluations)."""

from __future__ import annotations

import heapq
import math
import time
from collections.abc import Callable

import numpy as np

from genplan.planners import search_parts as parts
from genplan.planners.search_parts import SearchLimits, SearchResult


def hybrid_gbfs(task, heuristic: Callable[[list], np.ndarray], classical: Callable[[object], float],
                limits: SearchLimits, timers: dict | None = None) -> SearchResult:
    """Eager GBFS alternating an open list on `heuristic` (batches of pymimir states -> h) with one
    on `classical` (a pymimir state -> hFF, math.inf for a dead end); see the module docstring."""
    start = time.perf_counter()
    clock = parts.Clock(timers)
    res, graph = parts.root(task)
    if res.reason == "goal":
        return parts.finished(res, start)
    states, parent, via, seen = graph
    res.h_init = float(parts.evaluate(heuristic, [states[0]], res)[0])
    clock.lap("heuristic")
    ff_init = float(classical(states[0]))
    clock.lap("classical")
    res.counters["ff_init"] = ff_init if ff_init < math.inf else None
    lists: tuple[list, list] = ([], [])  # (h, order, node) and (hFF, order, node)
    if ff_init < math.inf:
        lists[0].append((res.h_init, 0, 0))
        lists[1].append((ff_init, 0, 0))
    pops = [0, 0]  # per list: how often it was popped (AlternationOpenList's priorities)
    expanded: set[int] = set()
    counter = 1
    while lists[0] or lists[1]:
        if parts.stopped(res, limits, start):
            break
        node = _pop(lists, pops, expanded)
        clock.lap("queue")
        if node is None:
            break  # both lists held only expanded states: no plan exists
        expanded.add(node)
        res.expanded += 1
        new = parts.expand(task, node, (states, parent, via, seen), res, clock)
        if new is None:
            break
        if new:
            values = parts.evaluate(heuristic, [states[c] for c in new], res).tolist()
            clock.lap("heuristic")
            ffs = [float(classical(states[c])) for c in new]
            clock.lap("classical")
            for c, value, ff in zip(new, values, ffs):
                if ff == math.inf:
                    continue  # a relaxed dead end: pruned
                heapq.heappush(lists[0], (value, counter, c))
                heapq.heappush(lists[1], (ff, counter, c))
                counter += 1
            clock.lap("queue")
    return parts.finished(res, start)  # a goal, a limit, or both lists exhausted: no plan exists


def _pop(lists: tuple[list, list], pops: list[int], expanded: set[int]) -> int | None:
    """The next state to expand: pop the non-empty list popped the fewest times (ties: the learned
    list), skip states expanded already; None when both lists run empty."""
    while lists[0] or lists[1]:
        k = 0 if lists[0] and (not lists[1] or pops[0] <= pops[1]) else 1
        pops[k] += 1
        node = heapq.heappop(lists[k])[-1]
        if node not in expanded:
            return node
    return None


def ground_ff(problem) -> Callable[[object], float]:
    """hFF of `problem`'s pymimir states (genplan.planners.relaxed.FF over its grounded task);
    GenplanError where the grounding refuses the problem (conditional effects, derived predicates)."""
    from genplan.planners.grounding import ground
    from genplan.planners.relaxed import FF

    task = ground(problem.mimir, problem.domain_file)
    ff = FF(task)
    return lambda state: ff(task.state_ids(problem.mimir, state))
