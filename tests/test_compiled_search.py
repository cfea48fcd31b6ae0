"""The compiled search (genplan._wlsearch, strategy `compiled-gbfs`, issue 57) against the Python
reference: on every IPC 2023 learning-track domain's first easy problem, with a ridge heuristic
trained from a few of the domain's training plans, the compiled h equals the Python path's h
(wlplan's own predict + b) exactly on the states near the initial state, and the compiled GBFS
returns the same plan, reason and counters as `best_first.gbfs`. Plus the grounding's refusals,
the XGBoost refusal, the limits, and the strategy's wiring."""

from __future__ import annotations

import gzip
import json
import shutil

import pytest
from conftest import IPC2023, shared_folder

from genplan import manifest, registry
from genplan.domains import domain_key
from genplan.errors import GenplanError
from genplan.mimir import MimirTask
from genplan.planners import strategies
from genplan.planners.base import Problem
from genplan.planners.best_first import SearchLimits, gbfs
from genplan.planners.compiled import CompiledSearch
from genplan.planners.grounding import ground, without_negative_preconditions
from genplan.planners.search import HeuristicSearchPlanner

DOMAINS = ("blocksworld", "childsnack", "ferry", "floortile", "miconic", "rovers", "satellite", "sokoban", "spanner",
           "transport")


def _train(domain: str, work, n: int = 3, **entry):
    """A heuristic trained on the first n training problems' reference plans (as
    perf/search_speed.py's train_from_plans)."""
    from genplan.models.heuristic.train import train_heuristic
    from genplan.stages.trajectories import document, trajectory

    src = shared_folder(IPC2023, "the IPC 2023 learning track is") / domain
    (work / "train").mkdir(parents=True)
    shutil.copy(src / "domain.pddl", work / "domain.pddl")
    rows, recs = [], []
    for p in sorted((src / "training" / "easy").glob("p*.pddl"))[:n]:
        shutil.copy(p, work / "train" / p.name)
        rows.append({"problem": p.stem, "split": "train", "file": f"train/{p.name}", "size": 0, "num_objects": 0,
                     "seed": 0, "canonical": ""})
        recs.append(trajectory(work / "domain.pddl", work / "train" / p.name,
                               src / "plans" / "training" / "easy" / f"{p.stem}.plan"))
    (work / "manifest.csv").write_text(manifest.to_csv(rows))
    with gzip.open(work / "train.json.gz", "wt") as fh:
        json.dump(document("train", work / "domain.pddl", recs, []), fh)
    entry = {"family": "heuristic", "learner": "ridge"} | entry
    entry["train"] = {"data": "plans"} | entry.get("train", {})
    train_heuristic("h", entry, domain_key(work / "domain.pddl"), {"train": [work / "train.json.gz", work],
                                                                    "validation": []}, 13, work / "model.ckpt")
    return registry.load_model(work / "model.ckpt"), Problem(src / "domain.pddl", src / "testing" / "easy" / "p01.pddl")


def _near_states(task, n: int = 150) -> list:
    """Up to n states breadth first from the initial state."""
    frontier, seen = [task.initial_state()], {}
    while frontier and len(seen) < n:
        state = frontier.pop(0)
        if state.get_index() in seen:
            continue
        seen[state.get_index()] = state
        frontier += [s for _, s in task.successors(state)]
    return list(seen.values())


@pytest.mark.parametrize("domain", DOMAINS)
def test_compiled_h_and_gbfs_equal_the_python_path(domain, tmp_path):
    pruning = "i-mf" if domain in ("blocksworld", "rovers") else "none"  # pruned colour dictionaries too
    model, problem = _train(domain, tmp_path / domain, encoder={"pruning": pruning})
    compiled = CompiledSearch(model, problem)
    states = _near_states(problem.mimir)
    python_h = [float(v) for v in model.bind(problem)(states)]
    assert [compiled.h(s) for s in states] == python_h  # exact: the same doubles
    limits = SearchLimits(300, 60)
    ref, ours = gbfs(problem.mimir, model.bind(problem), limits), compiled.gbfs(limits)
    assert (ours.plan, ours.reason, ours.expanded, ours.generated, ours.evaluated, ours.heuristic_calls, ours.h_init) \
        == (ref.plan, ref.reason, ref.expanded, ref.generated, ref.evaluated, ref.heuristic_calls, ref.h_init)


def test_the_strategy_plans_through_the_planner_interface_and_honours_its_limits(tmp_path):
    model, problem = _train("ferry", tmp_path / "ferry")
    assert strategies.parse("compiled-gbfs").kind == "compiled-gbfs"
    assert "compiled-gbfs" in registry.FAMILIES["heuristic"].strategy_kinds
    planner = HeuristicSearchPlanner(model, strategies.parse("compiled-gbfs"),
                                     {"search": {"max_expansions": 1000, "time_limit": 30}})
    attempt = planner.solve(problem)
    ref = HeuristicSearchPlanner(model, strategies.parse("gbfs"),
                                 {"search": {"max_expansions": 1000, "time_limit": 30}}).solve(problem)
    assert attempt.reason == "goal" and attempt.plan == ref.plan and attempt.states_expanded == ref.states_expanded
    assert CompiledSearch(model, problem).gbfs(SearchLimits(2, 30)).reason == "node_limit"
    assert CompiledSearch(model, problem).gbfs(SearchLimits(1000, 1e-9)).reason == "time_limit"


def test_xgboost_is_refused_by_name(tmp_path):
    """An XGBoost heuristic (the ridge model's WL features, a booster fitted to its h on the states
    near the initial state) stays on the Python path: refused by name."""
    import copy

    import xgboost as xgb

    from genplan import checkpoint
    from genplan.models.boosters import booster_to_bytes
    from genplan.models.heuristic.model import HeuristicModel

    ridge, problem = _train("ferry", tmp_path / "ferry", n=2)
    bound = ridge.bind(problem)
    states = _near_states(problem.mimir, 30)
    booster = xgb.train({"max_depth": 2}, xgb.DMatrix(bound.features(states), label=bound(states)), 3)
    envelope = copy.deepcopy(checkpoint.read(tmp_path / "ferry" / "model.ckpt"))
    envelope["identity"]["learner"], envelope["weights"] = "xgb", booster_to_bytes(booster)
    model = HeuristicModel.from_envelope(envelope, tmp_path / "xgb.ckpt")
    with pytest.raises(GenplanError, match="linear heuristics only"):
        CompiledSearch(model, problem)
    attempt = HeuristicSearchPlanner(model, strategies.parse("compiled-gbfs"), {}).solve(problem)
    assert attempt.reason == "refused" and "linear heuristics only" in attempt.counters["message"]


def test_negative_preconditions_are_dropped_for_exploration_only():
    text = "(:action a :parameters (?x) :precondition (and (p ?x) (not (q ?x))) :effect (and (not (p ?x)) (q ?x)))"
    assert without_negative_preconditions(text) == \
        "(:action a :parameters (?x) :precondition (and (p ?x) ) :effect (and (not (p ?x)) (q ?x)))"
    solo = "(:action a :precondition (not (q)) :effect (q))"
    assert without_negative_preconditions(solo) == "(:action a :precondition (and) :effect (q))"


def test_conditional_effects_are_refused_naming_the_problem(tmp_path):
    domain, problem = tmp_path / "domain.pddl", tmp_path / "p.pddl"
    domain.write_text("(define (domain d) (:requirements :strips :negative-preconditions :conditional-effects) (:predicates (p) (q))\n"
                      "(:action a :parameters () :precondition (p) :effect (when (q) (not (p)))))")
    problem.write_text("(define (problem x) (:domain d) (:init (p) (q)) (:goal (not (p))))")
    with pytest.raises(GenplanError, match="conditional effects") as err:
        ground(MimirTask(domain, problem), domain)
    assert str(problem) in str(err.value)
