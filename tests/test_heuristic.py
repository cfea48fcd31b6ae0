"""The heuristic family end to end on tiny Blocksworld data made by the pipeline's own commands
(generate, Fast Downward + VAL plans, trajectories, state spaces): training through `genplan
train`, features at inference equal to training's, h at goal states, GBFS and descent with h* as
heuristic (optimal plans), the node and time limits, and `genplan solve` / `genplan evaluate`
with VAL."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest
from conftest import run_cli

from genplan import registry
from genplan.datasets.statespace import load_split
from genplan.planners.base import Problem
from genplan.planners.search import UNLIMITED, Guidance, Rules, SearchLimits, descent, gbfs, lazy_gbfs
from genplan.report import collect

SIZES = {"sizes": {"train": [3, 4], "validation": [4], "interpolation": [4], "extrapolation": [7]},
         "per_size": {"train": 2, "validation": 1, "interpolation": 1, "extrapolation": 1}}
PLANNER = {"optimal": {"time_limit": 10}, "fallback": {"enabled": True, "time_limit": 10},
           "lama": {"enabled": True, "time_limit": 10}, "memory_limit_mb": 2048}


def _ok(res):
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-3000:]
    return res


@pytest.fixture(scope="module")
def blocks(tmp_path_factory):
    d = tmp_path_factory.mktemp("heuristic")
    bench = d / "problems"
    _ok(run_cli("generate", "--domain", "blocks", "--params", json.dumps(SIZES), "--seed", "3", "--out", bench))
    for split in ("train", "validation", "extrapolation"):
        _ok(run_cli("plan", "--benchmark-dir", bench, "--split", split, "--params", json.dumps(PLANNER),
                    "--out-dir", d / "plans" / split, "--out-table", d / "plans" / f"{split}.csv"))
    for split in ("train", "validation"):
        _ok(run_cli("trajectories", "--benchmark-dir", bench, "--split", split, "--plans-dir", d / "plans" / split,
                    "--plans-table", d / "plans" / f"{split}.csv", "--out", d / f"{split}.json.gz"))
    _ok(run_cli("statespace", "--benchmark-dir", bench, "--split", "train", "--max-states", "10000",
                "--out-dir", d / "ss" / "train", "--out-table", d / "ss" / "train.csv"))
    return d


def _train(blocks, learner: str, tag: str = "", **train):
    out = blocks / "models" / (learner + tag) / "model.ckpt"
    settings = {"family": "heuristic", "learner": learner, "train": train}
    _ok(run_cli("train", "--model", f"h_{learner}", "--settings", json.dumps(settings), "--domain", "blocks",
                "--train", blocks / "ss" / "train.csv", blocks / "train.json.gz",
                "--validation", blocks / "validation.json.gz", "--seed", "13", "--out", out,
                "--log", out.with_name("training.csv"), "--summary", out.with_name("summary.json")))
    return out


@pytest.fixture(scope="module")
def ridge(blocks):
    return _train(blocks, "ridge")


def _spaces(blocks):
    return load_split(blocks / "ss" / "train")


def _mimir_states(task):
    """Every reachable pymimir state of a tiny problem (breadth first)."""
    frontier, seen = [task.initial_state()], {}
    while frontier:
        state = frontier.pop()
        if state.get_index() in seen:
            continue
        seen[state.get_index()] = state
        frontier += [s for _, s in task.successors(state)]
    return list(seen.values())


def _oracle(task, space):
    """h* of pymimir states, looked up in the expanded state space."""
    index = {space.state(i): i for i in range(len(space))}
    return lambda states: np.array([space.h_star[index[task.fluents(s)]] for s in states], dtype=float)


def _problem(blocks, split: str, name: str) -> Problem:
    return Problem(blocks / "problems" / "domain.pddl", blocks / "problems" / split / f"{name}.pddl")


@pytest.mark.slow
def test_training_summary_counts_states_and_reports_the_goal_residual(ridge, blocks):
    summary = json.loads(ridge.with_name("summary.json").read_text())
    spaces = _spaces(blocks)
    assert summary["family"] == "heuristic" and summary["learner"] == "ridge"
    assert summary["train_states"] == sum(len(s) for s in spaces) and summary["dead_ends_excluded"] == 0
    assert summary["goal_rows"] >= 1 and summary["goal_abs_h_max"] < 0.5  # h is ~0 where h* is 0
    assert summary["parameters"] == summary["feature_dim"] + 1 and summary["job_cpu_s"] > 0
    assert not collect.missing_reported(summary)  # every field the reports read
    model = registry.load_model(ridge, expect_domain="blocks")
    assert (model.family, model.system, model.variant) == ("heuristic", "learned_heuristic", "ridge")


@pytest.mark.slow
def test_a_heuristic_checkpoint_loads_without_torch_to_the_same_model(ridge, blocks, tmp_path):
    """The learned heuristic plans without torch, so its checkpoint is read without it
    (genplan.checkpoint_numpy): the same envelope as torch.load's, weights equal to the bit, and a
    process that loads the model never imports torch (2-3 s of CPU a planner's budget counts)."""
    import subprocess
    import sys

    import torch

    from genplan import checkpoint, checkpoint_numpy

    plain, light = checkpoint.read(ridge), checkpoint.read(ridge, numpy_families=("heuristic",))
    assert isinstance(plain["weights"]["w"], torch.Tensor) and isinstance(light["weights"]["w"], np.ndarray)
    assert np.array_equal(plain["weights"]["w"].numpy(), light["weights"]["w"])
    assert plain["weights"]["w"].numpy().dtype == light["weights"]["w"].dtype
    assert float(plain["weights"]["b"]) == float(light["weights"]["b"])
    assert all(plain[k] == light[k] for k in ("format", "version", "family", "identity", "config", "vocabulary",
                                              "training", "summary"))
    with pytest.raises(checkpoint_numpy.NeedsTorch):  # another family's model: torch reads it
        checkpoint_numpy.load(ridge, ("transition",))
    odd = tmp_path / "odd.ckpt"  # a global outside the tensors' own: torch.load decides
    torch.save({"family": "heuristic", "x": torch.nn.Linear(1, 1)}, odd)
    with pytest.raises(checkpoint_numpy.NeedsTorch):
        checkpoint_numpy.load(odd, ("heuristic",))
    code = ("import sys; from genplan.solve_setup import load_model; "
            f"m = load_model({str(ridge)!r}, {str(blocks / 'problems' / 'domain.pddl')!r}); "
            "print(m.family, 'torch' in sys.modules)")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.returncode == 0 and res.stdout.split() == ["heuristic", "False"], res.stderr[-2000:]


@pytest.mark.slow
def test_inference_features_equal_training_features_and_h_is_small_at_the_goal(ridge, blocks):
    from wlplan.data import DomainDataset

    from genplan.models.heuristic.train import _dataset

    model = registry.load_model(ridge)
    space = max(_spaces(blocks), key=len)
    problem = _problem(blocks, "train", space.name)
    bound = model.bind(problem)
    states = _mimir_states(problem.mimir)
    index = {space.state(i): i for i in range(len(space))}
    idx = np.array([index[problem.mimir.fluents(s)] for s in states])
    assert len(idx) == len(space)
    trained = np.asarray(model.encoder._generator().embed(DomainDataset(model.encoder.domain,
                                                                        [_dataset(model.encoder, space, idx)])))
    assert np.array_equal(bound.features(states), trained)
    h = bound(states)
    np.testing.assert_allclose(h, model.predict(trained), atol=1e-9)  # wlplan's predict = numpy's
    residual = np.abs(h[space.is_goal[idx]])
    assert residual.max() < 0.5, f"h at goal states {residual}"


@pytest.mark.parametrize("search", [gbfs, descent])
def test_search_with_h_star_returns_an_optimal_plan(blocks, search):
    for space in _spaces(blocks):
        task = _problem(blocks, "train", space.name).mimir
        res = search(task, _oracle(task, space), SearchLimits())
        assert res.reason == "goal" and len(res.plan) == space.h_star[space.initial], space.name
        state = task.initial_state()
        for action in res.plan:
            state = task.apply(state, action)
        assert task.is_goal(state)


@pytest.mark.parametrize("search", [gbfs, descent])
def test_the_search_respects_its_node_limit(blocks, search):
    space = max(_spaces(blocks), key=len)
    task = _problem(blocks, "train", space.name).mimir
    blind = lambda states: np.zeros(len(states))  # noqa: E731  (no guidance: the limit must stop it)
    res = search(task, blind, SearchLimits(max_expansions=3))
    assert res.reason == "node_limit" and res.expanded == 3 and len(res.plan) <= 3  # descent: the path so far
    assert gbfs(task, blind, SearchLimits(time_limit=1e-9)).reason == "time_limit"


def test_descent_under_symt_guidance_rules(blocks):
    """heuristic-greedy's rules: h* still leads to an optimal plan; ties go to the first successor
    in pymimir's order (the default rules: the lexicographic first); the horizon and the token cap
    end the walk with reason `horizon`."""
    space = max(_spaces(blocks), key=len)
    problem = _problem(blocks, "train", space.name)
    task = problem.mimir
    rules = Guidance().rules(len(problem.task.objects))
    assert rules == Rules("pymimir", "entered", horizon=100, max_tokens=500)
    res = descent(task, _oracle(task, space), UNLIMITED, rules)
    assert res.reason == "goal" and len(res.plan) == space.h_star[space.initial] >= 2
    blind = lambda states: np.zeros(len(states))  # noqa: E731  (every successor ties)
    successors = [a for a, _ in task.successors(task.initial_state())]
    res = descent(task, blind, UNLIMITED, Rules("pymimir", "entered", horizon=1))
    assert (res.reason, res.plan, res.tokens) == ("horizon", successors[:1], len(successors[0]))
    assert descent(task, blind, UNLIMITED, Rules(horizon=1)).plan == [min(successors)]
    res = descent(task, blind, UNLIMITED, Rules("pymimir", "entered", max_tokens=len(successors[0])))
    assert res.reason == "horizon" and res.plan == successors[:1]


def test_blind_gbfs_exhausts_a_problem_and_finds_a_plan(blocks):
    space = max(_spaces(blocks), key=len)
    task = _problem(blocks, "train", space.name).mimir
    res = gbfs(task, lambda states: np.zeros(len(states)), SearchLimits())
    assert res.reason == "goal" and res.expanded < len(space)


@pytest.mark.slow
@pytest.mark.parametrize("strategy", ["gbfs", "lazy-gbfs", "descent"])
def test_solve_plans_an_unseen_larger_problem_and_val_accepts_it(ridge, blocks, strategy, tmp_path):
    problem = next((blocks / "problems" / "extrapolation").glob("*.pddl"))
    out = tmp_path / "plan"
    res = _ok(run_cli("solve", "--model", ridge, blocks / "problems" / "domain.pddl", problem, "--strategy", strategy,
                      "--out", out, "--settings", json.dumps({"search": {"max_expansions": 5000, "time_limit": 60}})))
    assert "Plan valid (VAL)" in res.stdout and out.is_file()


@pytest.mark.slow
def test_evaluate_writes_learned_heuristic_rows(ridge, blocks, tmp_path):
    out = tmp_path / "extrapolation.gbfs.csv"
    _ok(run_cli("evaluate", "--model", ridge, "--benchmark-dir", blocks / "problems", "--split", "extrapolation",
                "--plans-table", blocks / "plans" / "extrapolation.csv", "--out", out))
    rows = list(csv.DictReader(out.open()))
    assert rows and all(r["system"] == "learned_heuristic" and r["variant"] == "ridge" for r in rows)
    assert {r["strategy"] for r in rows} == {"gbfs"}  # no --strategy: the family's default, as for solve
    assert all(r["solved"] == "yes" and r["val"] == "valid" for r in rows)
    assert json.loads(rows[0]["counters"])["generated"] > 0


@pytest.mark.slow
@pytest.mark.parametrize("learner", ["rank", "xgb"])
def test_the_other_learners_train_and_plan(blocks, learner):
    ckpt = _train(blocks, learner, n_estimators=20) if learner == "xgb" else _train(blocks, learner)
    summary = json.loads(ckpt.with_name("summary.json").read_text())
    model = registry.load_model(ckpt)
    assert model.variant == learner and summary["parameters"] > 0
    if learner == "rank":
        assert summary["rank_pairs"] > 0 and summary["rank_pairs_misordered"] < 0.5
    problem = _problem(blocks, "validation", next((blocks / "problems" / "validation").glob("*.pddl")).stem)
    from genplan.planners.solve import solve_and_validate

    outcome = solve_and_validate(registry.planner(model, "gbfs", {"search": {"max_expansions": 2000}}), problem)
    assert outcome.solved


def test_unknown_training_settings_are_named(blocks, tmp_path):
    settings = {"family": "heuristic", "learner": "ridge", "train": {"alpah": 1}}
    res = run_cli("train", "--model", "h", "--settings", json.dumps(settings), "--domain", "blocks",
                  "--train", blocks / "ss" / "train.csv", blocks / "train.json.gz",
                  "--validation", blocks / "validation.json.gz", "--seed", "1", "--out", tmp_path / "m.ckpt")
    assert res.returncode != 0 and "alpah" in res.stderr and not (tmp_path / "m.ckpt").exists()


def test_max_states_draws_that_many_states_even_when_a_space_gets_none(blocks):
    ckpt = _train(blocks, "ridge", "-sampled", max_states=5)  # 5 of every state: most spaces contribute nothing
    summary = json.loads(ckpt.with_name("summary.json").read_text())
    assert summary["train_states"] == 5 and registry.load_model(ckpt).dim == summary["feature_dim"]


def test_lazy_gbfs_evaluates_one_state_per_expansion_and_finds_a_valid_plan(blocks):
    """lazy-gbfs: h is computed for the expanded state only (one call of one state per expansion,
    where eager GBFS evaluates every new successor); with h* it reaches the goal; its node limit holds."""
    for space in _spaces(blocks):
        task = _problem(blocks, "train", space.name).mimir
        calls = []
        oracle = _oracle(task, space)

        def counted(states, oracle=oracle):
            calls.append(len(states))
            return oracle(states)

        res = lazy_gbfs(task, counted, SearchLimits())
        assert res.reason == "goal" and set(calls) <= {1} and len(calls) == res.expanded == res.evaluated
        state = task.initial_state()
        for action in res.plan:
            state = task.apply(state, action)
        assert task.is_goal(state)
    res = lazy_gbfs(task, lambda states: np.zeros(len(states)), SearchLimits(max_expansions=2))
    assert res.reason in ("node_limit", "goal") and res.expanded <= 2


def test_novelty_gbfs_measures_novelty_per_h_and_finds_valid_plans(blocks):
    """novelty-gbfs: a state is novel (w = 1) when it has a fluent atom unseen among the states of its
    rounded h (the open list's first key); with h* and with a blind h (every
    state 0: the novelty alone orders the search) it reaches the goal; its node limit holds."""
    from genplan.planners.best_first import _width, novelty_gbfs

    space = _spaces(blocks)[0]
    task = _problem(blocks, "train", space.name).mimir
    s0 = task.initial_state()
    seen: dict = {}
    assert _width(task, s0, 3.0, seen) == 1 and _width(task, s0, 3.2, seen) == 2  # the same atoms, h rounds to 3
    assert _width(task, s0, 4.0, seen) == 1  # another h: another partition
    child = task.successors(s0)[0][1]
    assert _width(task, child, 3.0, seen) == 1 and _width(task, child, 3.0, seen) == 2
    for heuristic in (_oracle(task, space), lambda states: np.zeros(len(states))):
        res = novelty_gbfs(task, heuristic, SearchLimits())
        assert res.reason == "goal" and res.counters["novel"] > 0
        state = s0
        for action in res.plan:
            state = task.apply(state, action)
        assert task.is_goal(state)
    res = novelty_gbfs(task, lambda states: np.zeros(len(states)), SearchLimits(max_expansions=3))
    assert res.reason in ("node_limit", "goal") and res.expanded <= 3


@pytest.mark.parametrize("content, said", [(b"", "empty PDDL problem file"),
                                           (b"(define (problem p) \xff\xfe", "PDDL problem file is not UTF-8 text"),
                                           (None, "PDDL problem file not found"),
                                           (b"(define (problem p) (:domain blocks", "malformed PDDL problem")])
def test_solve_names_a_bad_problem_file_as_every_family_does(blocks, ridge, tmp_path, content, said):
    """The heuristic family's message for an empty, binary or missing problem was blank or
    Python's own; now the one every family gives, naming the file, before any search."""
    problem = tmp_path / "p.pddl"
    if content is not None:
        problem.write_bytes(content)
    res = run_cli("solve", "--model", ridge, blocks / "problems" / "domain.pddl", problem, "--out", tmp_path / "x.plan")
    assert res.returncode == 1 and "Traceback" not in res.stderr, res.stderr
    errors = [line for line in res.stderr.splitlines() if line.startswith("genplan: error:")]
    assert len(errors) == 1 and str(problem) in errors[0] and said in errors[0], res.stderr
    assert not (tmp_path / "x.plan").exists()


@pytest.mark.parametrize("signum, status", [("SIGTERM", 143), ("SIGINT", 130)])
def test_solve_ended_by_a_signal_leaves_nothing_behind(blocks, ridge, tmp_path, signum, status):
    """SIGTERM of `genplan solve` (any `timeout`) left $TMPDIR/genplan-solve-* and VAL
    running; Ctrl-C printed a KeyboardInterrupt traceback. Now: one line, exit 128 + the signal, an
    empty $TMPDIR, no plan. The signal comes while the search runs (a 40-block problem, 60 s)."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from genplan.stages.problems import generate_benchmark

    bench = tmp_path / "big"
    generate_benchmark("blocks", {"sizes": {"train": [40]}, "per_size": {"train": 1}}, 0, bench)
    problem = next((bench / "train").glob("*.pddl"))
    tmp = tmp_path / "tmpdir"
    tmp.mkdir()
    out = tmp_path / "plan"
    proc = subprocess.Popen([sys.executable, "-m", "genplan", "solve", "--model", str(ridge), str(bench / "domain.pddl"),
                             str(problem), "--strategy", "gbfs", "--out", str(out), "--settings",
                             json.dumps({"search": {"max_expansions": 10**7, "time_limit": 60}})],
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "TMPDIR": str(tmp)},
                            # Ctrl-C's disposition as in a user's shell: a runner started in the background
                            # (nohup, `&`) ignores SIGINT, its children inherit that, and the search ran its 60 s
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    lines = []
    for line in proc.stderr:  # the search starts after the settings' log line
        lines.append(line)
        if "planning settings" in line:
            break
    time.sleep(1.5)
    assert proc.poll() is None, "".join(lines)
    proc.send_signal(getattr(signal, signum))
    rest = proc.stderr.read()
    assert proc.wait(timeout=30) == status, rest
    assert "Traceback" not in rest, rest
    assert rest.strip().splitlines()[-1] == (f"genplan: interrupted by {signum}: planning and VAL ended, temporary "
                                             "folders removed, no plan written"), rest
    assert list(tmp.iterdir()) == [] and not out.exists()
