"""The hybrid search (strategies `hybrid-ff-gbfs`, `compiled-hybrid-ff-gbfs`): eager
GBFS alternating an open list on the learned h with one on hFF. hFF in C++ (genplan._wlsearch.ff)
equals the Python reference (genplan.planners.relaxed.FF) exactly on the states near the first easy
problem's initial state of several IPC 2023 learning-track domains, and both give the value worked
out by hand on a tiny task (the best-supporter tie-break included) and infinity on an unreachable
goal; the compiled hybrid equals genplan.planners.hybrid.hybrid_gbfs step for step (plan, reason,
expanded, generated, evaluated, calls, h_init, ff_init) with a ridge heuristic trained from a few
plans; and the strategies run through the planner interface as the other compiled ones do."""

from __future__ import annotations

import math

import pytest
from conftest import IPC2023, shared_folder
from test_compiled_search import _near_states, _train

from genplan import _wlsearch, registry
from genplan.mimir import MimirTask
from genplan.planners import strategies
from genplan.planners.best_first import gbfs
from genplan.planners.compiled import CompiledSearch, native_task
from genplan.planners.grounding import GroundTask, ground
from genplan.planners.hybrid import ground_ff, hybrid_gbfs
from genplan.planners.relaxed import FF
from genplan.planners.search import HeuristicSearchPlanner
from genplan.planners.search_parts import SearchLimits

FF_DOMAINS = ("blocksworld", "childsnack", "ferry", "miconic", "rovers", "satellite", "spanner", "transport")


@pytest.mark.parametrize("domain", FF_DOMAINS)
def test_compiled_ff_equals_the_python_ff(domain):
    """On up to 200 states breadth first from the initial state of each easy problem p01, p02, ...,
    until at least 200 states are checked."""
    src = shared_folder(IPC2023, "the IPC 2023 learning track is") / domain
    count, dead = 0, 0
    for name in (f"p{i:02d}" for i in range(1, 11)):
        mimir = MimirTask(src / "domain.pddl", src / "testing" / "easy" / f"{name}.pddl")
        task = ground(mimir, src / "domain.pddl")
        native, ff = native_task(task), FF(task)
        states = [task.state_ids(mimir, s) for s in _near_states(mimir, 200)]
        python = [ff(s) for s in states]
        assert [_wlsearch.ff(native, s) for s in states] == python, name  # exact
        assert all(h >= 0 for h in python) and 0 < python[0] < math.inf
        count, dead = count + len(states), dead + sum(h == math.inf for h in python)
        if count >= 200:
            break
    assert count >= 200
    # Spanner's one-way corridor: a man who walked past a spanner he still needs is a relaxed dead end
    assert (dead > 0) == (domain == "spanner")


def _tiny(order: tuple[int, ...], goal: list[int]) -> tuple[GroundTask, object]:
    """Atoms 0..5, init {0}; the actions (pre, add), given in `order` of the list below:
    a0: 0 -> 1, a1: 1 -> 2 (deletes 1, needs not 5: both ignored by the relaxation), a2: 0 -> 3,
    a3: {2, 3} -> 4, a5: 1 -> 4, a6: 3 -> 4. Nothing adds atom 5."""
    rows = [([0], [], [1], []), ([1], [5], [2], [1]), ([0], [], [3], []), ([2, 3], [], [4], []),
            ([1], [], [4], []), ([3], [], [4], [])]
    rows = [rows[i] for i in order]
    pre, neg, add, delete = (list(col) for col in zip(*rows))
    task = GroundTask([("a", str(i)) for i in range(len(rows))], pre, neg, add, delete, [0], goal, [],
                      list(range(6)), {i: i for i in range(6)}, [("p", str(i)) for i in range(6)])
    return task, native_task(task)


def test_ff_of_a_tiny_task_by_hand():
    """h_add from {0}: c(0) = 0; a0, a2 cost 1, so c(1) = c(3) = 1; a1 costs 1 + c(1) = 2 = c(2);
    a3 costs 1 + 2 + 1 = 4, a5 (1 -> 4) and a6 (3 -> 4) both 1 + 1 = 2, so c(4) = 2 with two
    supporters of equal cost. The rule: the first in index order. Goal {2, 4}:
    - a5 before a6: 4 <- a5 (needs 1 <- a0), 2 <- a1 (needs 1, marked already): {a0, a1, a5}, hFF 3;
    - a6 before a5: 4 <- a6 (needs 3 <- a2), 2 <- a1 (needs 1 <- a0): {a0, a1, a2, a6}, hFF 4.
    (h_add itself is c(2) + c(4) = 4 in both.) Goal {5}: nothing adds 5, infinity; goal {} and a
    state holding the goal: 0."""
    for order, expected in (((0, 1, 2, 3, 4, 5), 3.0), ((0, 1, 2, 3, 5, 4), 4.0)):
        task, native = _tiny(order, [2, 4])
        assert FF(task)([0]) == expected and _wlsearch.ff(native, [0]) == expected, order
    for goal, expected in (([5], math.inf), ([2, 5], math.inf), ([], 0.0), ([0], 0.0)):
        task, native = _tiny((0, 1, 2, 3, 4, 5), goal)
        assert FF(task)([0]) == expected and _wlsearch.ff(native, [0]) == expected, goal
    task, native = _tiny((0, 1, 2, 3, 4, 5), [2, 4])
    assert FF(task)([1, 3]) == 2.0 == _wlsearch.ff(native, [3, 1])  # {a1, a5}: 2 <- a1, 4 <- a5 (first of a5, a6)


def _outcome(res) -> tuple:
    return (res.plan, res.reason, res.expanded, res.generated, res.evaluated, res.heuristic_calls, res.h_init,
            res.counters.get("ff_init"))


@pytest.mark.parametrize("domain", ["ferry", "blocksworld"])
def test_compiled_hybrid_equals_the_python_hybrid(domain, tmp_path):
    model, problem = _train(domain, tmp_path / domain)
    compiled = CompiledSearch(model, problem)
    classical = ground_ff(problem)
    for limits in (SearchLimits(300, 60), SearchLimits(7, 60)):
        ref = hybrid_gbfs(problem.mimir, model.bind(problem), classical, limits)
        ours = compiled.search("hybrid_gbfs", limits)
        assert _outcome(ours) == _outcome(ref), (domain, limits)
    assert ref.reason == "node_limit" and ref.expanded == 7
    assert ours.counters["ff_init"] == classical(problem.mimir.initial_state()) > 0
    assert ours.counters["ff_init"] == compiled.ff(problem.mimir.initial_state())
    timers: dict = {}
    compiled.hybrid_gbfs(SearchLimits(300, 60), timers)
    assert "classical" in timers and "novelty" not in timers


def test_dead_ends_of_the_relaxation_are_pruned(tmp_path):
    """A problem whose goal no action reaches (no mine to dig gold from): hFF of the initial state is infinite, so the hybrid
    stops at once (`dead_end`, nothing expanded, ff_init None), where gbfs expands every state."""
    domain, problem = tmp_path / "domain.pddl", tmp_path / "p.pddl"
    domain.write_text("(define (domain d) (:requirements :strips) (:predicates (at ?x) (link ?x ?y) (mine ?x) (gold))\n"
                      "(:action go :parameters (?x ?y) :precondition (and (at ?x) (link ?x ?y))\n"
                      " :effect (and (at ?y) (not (at ?x))))\n"
                      "(:action dig :parameters (?x) :precondition (and (at ?x) (mine ?x)) :effect (gold)))")
    problem.write_text("(define (problem x) (:domain d) (:objects a b c) (:init (at a) (link a b) (link b c))\n"
                       "(:goal (gold)))")
    mimir = MimirTask(domain, problem)
    task = ground(mimir, domain)
    assert FF(task)(task.init) == math.inf == _wlsearch.ff(native_task(task), task.init)
    constant = lambda states: [0.0] * len(states)  # noqa: E731
    res = hybrid_gbfs(mimir, constant, lambda s: FF(task)(task.state_ids(mimir, s)), SearchLimits(100, 60))
    assert (res.reason, res.expanded, res.evaluated, res.counters["ff_init"]) == ("dead_end", 0, 1, None)
    assert gbfs(mimir, constant, SearchLimits(100, 60)).expanded == 3


@pytest.fixture(scope="module")
def ferry(tmp_path_factory):
    return _train("ferry", tmp_path_factory.mktemp("hybrid") / "ferry")


def test_the_hybrid_strategies_plan_through_the_planner_interface(ferry):
    model, problem = ferry
    for kind in ("hybrid-ff-gbfs", "compiled-hybrid-ff-gbfs"):
        assert "hybrid" in kind and strategies.parse(kind).kind == kind
        assert kind in registry.FAMILIES["heuristic"].strategy_kinds
    settings = {"search": {"max_expansions": 1000, "time_limit": 30}}
    attempt = HeuristicSearchPlanner(model, strategies.parse("compiled-hybrid-ff-gbfs"), settings).solve(problem)
    ref = HeuristicSearchPlanner(model, strategies.parse("hybrid-ff-gbfs"), settings).solve(problem)
    assert attempt.reason == "goal" and attempt.plan == ref.plan
    assert (attempt.states_expanded, attempt.model_calls, attempt.counters["generated"], attempt.counters["evaluated"],
            attempt.counters["ff_init"]) == (ref.states_expanded, ref.model_calls, ref.counters["generated"],
                                             ref.counters["evaluated"], ref.counters["ff_init"])
    assert attempt.counters["ff_init"] > 0
    compiled = CompiledSearch(model, problem)
    assert compiled.hybrid_gbfs(SearchLimits(2, 30)).reason == "node_limit"
    assert compiled.hybrid_gbfs(SearchLimits(1000, 1e-9)).reason == "time_limit"
    tight = SearchLimits(1000, 30, memory_limit_mb=1)
    assert compiled.hybrid_gbfs(tight).reason == "memory_limit"
