"""The heuristic family trained from plans (`train: {data: plans}`, no state space): plan states
with their plan length to go, sibling pairs hand-checked on a three-step Gripper plan, a model
trained from hand-written Gripper plans (VAL-checked by the trajectories stage) solving a larger
problem by GBFS and by lazy GBFS with VAL-valid plans, and the workflow's inputs of such an entry."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import run_cli

from genplan import registry, val
from genplan.datasets.plan_neighbourhood import neighbourhood, problem_files
from genplan.domains import domain_file
from genplan.errors import GenplanError
from genplan.formats import manifest
from genplan.formats.trajectories import load
from genplan.pddl_io import plan_to_text
from genplan.planners.base import Problem
from genplan.planners.search import SearchLimits, gbfs, lazy_gbfs
from genplan.stages.trajectories import trajectories_split

GRIPPERS = ("left", "right")


def gripper_problem(n: int, grippers=GRIPPERS) -> str:
    balls = [f"b{i}" for i in range(1, n + 1)]
    init = ["(room ra)", "(room rb)", "(at-robby ra)", *(f"(gripper {g})" for g in grippers),
            *(f"(free {g})" for g in grippers), *(f"(ball {b})" for b in balls), *(f"(at {b} ra)" for b in balls)]
    return (f"(define (problem g{n}) (:domain gripper-strips) (:objects ra rb {' '.join(grippers)} {' '.join(balls)})"
            f" (:init {' '.join(init)}) (:goal (and {' '.join(f'(at {b} rb)' for b in balls)})))\n")


def gripper_plan(n: int, grippers=GRIPPERS) -> str:
    """The obvious plan: carry the balls over as many at a time as there are grippers."""
    balls, out = [f"b{i}" for i in range(1, n + 1)], []
    for k in range(0, n, len(grippers)):
        group = list(zip(balls[k:k + len(grippers)], grippers))
        out += [f"(pick {b} ra {g})" for b, g in group] + ["(move ra rb)"]
        out += [f"(drop {b} rb {g})" for b, g in group] + (["(move rb ra)"] if k + len(grippers) < n else [])
    return "\n".join(out) + "\n"


def _bench(root, sizes, grippers=GRIPPERS):
    """A benchmark folder laid out as the workflow's (problems/<b>/<d>, trajectories/<b>/<d>/train.json.gz)."""
    bench = root / "problems" / "tiny" / "gripper"
    (bench / "train").mkdir(parents=True)
    (bench / "domain.pddl").write_text(domain_file("gripper").read_text())
    plans = root / "plans"
    plans.mkdir()
    rows = []
    for n in sizes:
        (bench / "train" / f"p{n:02d}.pddl").write_text(gripper_problem(n, grippers))
        (plans / f"p{n:02d}.plan").write_text(gripper_plan(n, grippers))
        rows.append({"problem": f"p{n:02d}", "split": "train", "file": f"train/p{n:02d}.pddl", "size": n,
                     "num_objects": n + 2 + len(grippers), "seed": 0, "canonical": ""})
    (bench / "manifest.csv").write_text(manifest.to_csv(rows))
    (root / "plans.csv").write_text("problem,config,status\n" + "".join(f"{r['problem']},hand,ok\n" for r in rows))
    traj = root / "trajectories" / "tiny" / "gripper" / "train.json.gz"
    traj.parent.mkdir(parents=True)
    trajectories_split(bench, "train", plans, root / "plans.csv", traj)
    return bench, traj


@pytest.fixture(scope="module")
def gripper(tmp_path_factory):
    return _bench(tmp_path_factory.mktemp("plans"), [1, 2, 3, 4])


def test_plan_states_get_their_plan_length_to_go_and_siblings_pair_below_the_next_plan_state(tmp_path):
    # one ball, one gripper: pick b1 ra left; move ra rb; drop b1 rb left
    bench, traj = _bench(tmp_path, [1], grippers=("left",))
    doc = load(traj)
    files = problem_files(doc, traj)
    assert files == {"p01": bench / "train" / "p01.pddl"}
    problem = Problem(bench / "domain.pddl", files["p01"])
    actions = [("pick", "b1", "ra", "left"), ("move", "ra", "rb"), ("drop", "b1", "rb", "left")]
    hood = neighbourhood(problem.mimir, actions)
    assert hood.plan_length == 3 and hood.to_go.tolist() == [3, 2, 1, 0]
    fluents = [problem.mimir.fluents(s) for s in hood.states]
    assert fluents[:4] == [frozenset(map(tuple, map(str.split, s))) for s in (
        ["at-robby ra", "at b1 ra", "free left"], ["at-robby ra", "carry b1 left"], ["at-robby rb", "carry b1 left"],
        ["at-robby rb", "at b1 rb", "free left"])]
    # the only successor of a plan state that is no plan state: move ra rb before picking
    assert hood.siblings == 1 and fluents[4] == {("at-robby", "rb"), ("at", "b1", "ra"), ("free", "left")}
    assert hood.sibling_steps == [(0, 4)]
    better, worse = hood.pairs()
    assert sorted(zip(better.tolist(), worse.tolist())) == [(1, 0), (1, 4), (2, 1), (3, 2)]
    # max_siblings 0 keeps the plan and its own pairs
    none = neighbourhood(problem.mimir, actions, max_siblings=0)
    assert none.siblings == 0 and sorted(zip(*map(list, none.pairs()))) == [(1, 0), (2, 1), (3, 2)]


def test_problem_files_are_named_when_missing(gripper, tmp_path):
    bench, traj = gripper
    elsewhere = tmp_path / "train.json.gz"
    elsewhere.write_bytes(traj.read_bytes())
    with pytest.raises(GenplanError, match="no problem file for problem 'p01'"):
        problem_files(load(elsewhere), elsewhere)
    assert set(problem_files(load(elsewhere), elsewhere, [bench])) == {"p01", "p02", "p03", "p04"}


def test_wl_pruning_is_collected_saved_and_read_back_and_an_unknown_one_is_refused(gripper):
    from pathlib import Path

    import yaml

    from genplan.features import wlplan_edge as edge
    from genplan.features.wl import WLEncoder
    from genplan.models import heuristic
    from genplan.models.heuristic import from_plans, learners

    bench, traj = gripper
    schema = yaml.safe_load((Path(heuristic.__file__).parent / "schema.yaml").read_text())
    assert schema["heuristic"]["properties"]["encoder"]["properties"]["pruning"]["enum"] == list(edge.PRUNING)
    dims = {}
    for pruning in ("none", "i-mf"):
        doc, path, problems, encoder = from_plans.read("gripper", {"train": [traj]}, {"pruning": pruning})
        fitted, data = from_plans.plan_data("h", doc, path, problems, encoder, "ridge",
                                            learners.HeuristicTraining(data="plans"), 13)
        assert fitted.pruning == pruning and fitted.to_dict()["pruning"] == pruning
        dims[pruning] = fitted.dim
        again = WLEncoder.from_dict(fitted.to_dict())  # as a checkpoint reads it back
        assert again.pruning == pruning and again.dim == fitted.dim == data.X.shape[1]
    assert dims["i-mf"] < dims["none"]  # the rare colours of the plan states are merged away
    with pytest.raises(GenplanError, match="unknown WL pruning 'most'"):
        WLEncoder(bench / "domain.pddl", pruning="most")


def _train(root, traj, learner, *extra):
    out = root / learner / "model.ckpt"
    settings = {"family": "heuristic", "learner": learner, "train": {"data": "plans"}}
    res = run_cli("train", "--model", f"h_{learner}", "--settings", json.dumps(settings), "--domain", "gripper",
                  "--train", traj, *extra, "--validation", traj, "--seed", "13", "--out", out,
                  "--summary", out.with_name("summary.json"))
    assert res.returncode == 0, res.stderr[-3000:]
    return out, json.loads(out.with_name("summary.json").read_text())


@pytest.mark.slow  # ~11 s each on a quiet machine: `genplan train` as a user runs it, then two searches and VAL
@pytest.mark.parametrize("learner", ["ridge", "rank"])
def test_a_model_trained_from_plans_solves_a_larger_problem_by_gbfs_and_lazy_gbfs(gripper, tmp_path, learner):
    bench, traj = gripper
    ckpt, summary = _train(tmp_path, traj, learner)
    plan_states = sum(n_actions + 1 for n_actions in (3, 5, 9, 11))  # the hand plans of 1..4 balls
    assert summary["training_data"] == "plans" and summary["target"] == "plan_length_to_go"
    assert summary["train_problems"] == 4 and summary["plan_states"] == plan_states
    assert summary["fit_time_s"] >= 0 and summary["job_time_s"] > 0
    if learner == "rank":
        # every plan step and sibling relation is a pair; those of states with equal features cannot be ordered
        assert summary["sibling_states"] > 0 and summary["pairs"] >= summary["rank_pairs"] > plan_states - 4
    else:
        assert summary["sibling_states"] == 0 and summary["goal_abs_h_max"] < 0.5
    model = registry.load_model(ckpt, expect_domain="gripper")
    test = tmp_path / "g8.pddl"
    test.write_text(gripper_problem(8))
    for search in (gbfs, lazy_gbfs):
        problem = Problem(bench / "domain.pddl", test)
        res = search(problem.mimir, model.bind(problem), SearchLimits(20000, 30))
        assert res.reason == "goal", (search.__name__, res)
        plan = tmp_path / f"{search.__name__}.plan"
        plan.write_text(plan_to_text(res.plan))
        assert val.validate(bench / "domain.pddl", test, plan).valid


def test_the_workflow_trains_a_plans_entry_on_trajectories_and_problems_only():
    fam = registry.family("heuristic")
    assert fam.impl.trains_from({"train": {"data": "plans"}}) == ("trajectories", "problems")
    assert fam.impl.trains_from({"train": {"alpha": 0.1}}) == ("trajectories", "statespaces")
    assert fam.impl.check("h", {"train": {"data": "plans", "max_states": 10}})  # max_states draws from state spaces
    assert fam.impl.check("h", {"train": {"data": "plans", "max_siblings": 10}}) == []
    # XGBoost would read the sparse rows' zeros as missing values: refused by name
    assert "learner xgb cannot train" in fam.impl.check("h", {"learner": "xgb", "train": {"data": "plans"}})[0]
    assert fam.impl.check("h", {"learner": "xgb", "train": {"alpha": 0.1}}) == []


def test_ridge_dual_form_for_wide_features_equals_the_primal(monkeypatch):
    from genplan.models.heuristic import learners

    rng = np.random.default_rng(0)
    X, y, w = rng.normal(size=(30, 120)), rng.normal(size=30), rng.random(30) + 0.5
    primal = learners.fit_ridge(X, y, w, 0.1)
    monkeypatch.setattr(learners, "DUAL_ABOVE", 100)
    dual = learners.fit_ridge(X, y, w, 0.1)
    np.testing.assert_allclose(dual[0], primal[0], atol=1e-10)
    assert abs(dual[1] - primal[1]) < 1e-10


def test_sparse_rows_fit_and_dedupe_as_the_dense_ones(monkeypatch):
    """The from-plans features are CSR (wide WL colours): ridge (primal and dual), the ranking
    fit and the merging of equal rows must give what the dense rows give."""
    from scipy import sparse

    from genplan.models.heuristic import learners

    rng = np.random.default_rng(1)
    dense = rng.integers(0, 3, size=(40, 150)) * (rng.random((40, 150)) < 0.1)
    dense[5] = dense[7]  # one repeated row
    dense = dense.astype(np.float64)
    y, w = rng.normal(size=40), rng.random(40) + 0.5
    X = sparse.csr_matrix(dense)
    for dual_above in (8192, 100):  # primal, then dual (150 features > 100 > 40 rows)
        monkeypatch.setattr(learners, "DUAL_ABOVE", dual_above)
        ws, bs = learners.fit_ridge(X, y, w, 0.1)
        wd, bd = learners.fit_ridge(dense, y, w, 0.1)
        np.testing.assert_allclose(ws, wd, atol=1e-9)
        assert abs(bs - bd) < 1e-9
    before = (X.indptr.copy(), X.indices.copy(), X.data.copy())
    Xu, yu, tu, inv = learners.dedupe(X, y, w)
    Du, ydu, tdu, invd = learners.dedupe(dense, y, w)
    assert all(np.array_equal(a, b) for a, b in zip(before, (X.indptr, X.indices, X.data)))  # X left as it was
    assert Xu.shape[0] == Du.shape[0] == 39 and inv[5] == inv[7]
    np.testing.assert_array_equal(Xu[inv].toarray(), dense)  # every row maps back to its own features
    np.testing.assert_allclose(yu[inv], np.where(np.isin(np.arange(40), [5, 7]), (w[5] * y[5] + w[7] * y[7]) /
                                                 (w[5] + w[7]), y))
    np.testing.assert_allclose(np.sort(yu), np.sort(ydu))
    # a row holding a stored zero equals the same row without it; an all-zero row is a row of its own
    Z = sparse.csr_matrix((np.array([0.0, 2.0, 2.0]), np.array([1, 3, 3]), np.array([0, 2, 3, 3])), shape=(3, 150))
    inv = learners.dedupe(Z, np.zeros(3))[3]
    assert inv[0] == inv[1] != inv[2]
    better, worse = np.arange(0, 20), np.arange(20, 40)
    rs, _, _ = learners.fit_rank(X, better, worse, 0.1, 50)
    rd, _, _ = learners.fit_rank(dense, better, worse, 0.1, 50)
    np.testing.assert_allclose(rs, rd, atol=1e-6)


def _reference_h(model, problem):
    """The test oracle of the bound heuristic: each state rebuilt from its fluent
    atoms (the package's tuples, sorted, as at training: `ProblemConverter.state`) and scored by
    wlplan's `predict` one state at a time, the intercept added to each value."""
    from genplan.models.heuristic.model import MimirStates

    converter = MimirStates(model.encoder, problem).converter
    w_b = model._linear[1]

    def h(states):
        fg = model.linear_generator()
        fg.set_problem(converter.problem)
        model.encoder._active = None  # the bound heuristic sets its own problem again
        return np.array([fg.predict(converter.state(problem.mimir.fluents(s))) + w_b for s in states])

    return h


def _recorded(heuristic, calls):
    """`heuristic`, each call's batch of pymimir state indices appended to `calls`."""
    def h(states):
        calls.append([s.get_index() for s in states])
        return heuristic(states)

    return h


def test_the_bound_heuristic_scores_as_the_state_by_state_reference_and_gbfs_expands_the_same(gripper, tmp_path):
    """The bound heuristic (atoms looked up by pymimir index and cached, a batch in one call) gives
    the reference's values bit for bit, so eager and lazy GBFS evaluate the same batches in the same
    order (hence expand the same nodes) and return the same plan: the oracle for any change to the
    heuristic's path. The values are also wlplan's embedding times the weights (numpy), up to
    rounding. Gripper has static atoms (room, ball, gripper): every state holds them."""
    from genplan.models.heuristic.train import train_heuristic

    bench, traj = gripper
    train_heuristic("h_ridge", {"family": "heuristic", "learner": "ridge", "train": {"data": "plans"}}, "gripper",
                    {"train": [traj, bench], "validation": []}, 13, tmp_path / "model.ckpt")
    model = registry.load_model(tmp_path / "model.ckpt")
    test = tmp_path / "g6.pddl"
    test.write_text(gripper_problem(6))
    problem = Problem(bench / "domain.pddl", test)
    bound, reference = model.bind(problem), _reference_h(model, problem)
    assert problem.task.statics and bound.wl_state._statics  # the statics path is exercised
    for search in (gbfs, lazy_gbfs):
        runs = []
        for h in (bound, reference):
            calls = []
            res = search(problem.mimir, _recorded(h, calls), SearchLimits(5000, 60))
            runs.append((res.reason, res.plan, res.expanded, res.generated, res.evaluated, res.h_init, calls))
        assert runs[0] == runs[1], search.__name__
        assert runs[0][0] == "goal" and runs[0][2] > 10 and len(runs[0][6]) > 10
    states, seen = [problem.mimir.initial_state()], set()
    for state in states:  # breadth first, 200 states in one batch
        if len(states) >= 200:
            break
        fresh = [s for _, s in problem.mimir.successors(state) if s.get_index() not in seen]
        seen.update(s.get_index() for s in fresh)
        states += fresh
    h = bound(states)
    assert len(states) > 50 and np.array_equal(h, reference(states)) and np.array_equal(bound(states[:1]), h[:1])
    np.testing.assert_allclose(h, model.predict(bound.features(states)), rtol=1e-12, atol=1e-9)
    assert bound(states[:0]).shape == (0,)


def test_svr_recovers_a_linear_truth_and_is_ridge_at_epsilon_zero():
    """Linear support-vector regression (learners.fit_svr, LinearSVR's squared epsilon-insensitive
    loss): on noiseless linear targets it returns the truth, sparse rows as dense ones; at epsilon 0
    it is ridge; with noise inside the epsilon tube the truth is still found (to the noise's size)."""
    from scipy import sparse

    from genplan.models.heuristic import learners

    rng = np.random.default_rng(2)
    X = rng.integers(0, 4, size=(300, 12)).astype(np.float64)
    truth, weight = rng.normal(size=12), rng.random(300) + 0.5
    y = X @ truth + 3.0
    for rows in (X, sparse.csr_matrix(X)):
        w, b, stats = learners.fit_svr(rows, y, weight, 1e-8, 0.5, 1000)
        np.testing.assert_allclose(w, truth, atol=1e-6)
        assert abs(b - 3.0) < 1e-6 and stats["within_epsilon"] == pytest.approx(1.0)
    noisy = y + rng.normal(scale=2.0, size=300)  # residuals well beyond epsilon: the loss is ridge's
    w, b, _ = learners.fit_svr(X, noisy, weight, 0.1, 0.0, 1000)
    wr, br = learners.fit_ridge(X, noisy, weight, 0.1)
    np.testing.assert_allclose(w, wr, atol=1e-5)
    assert abs(b - br) < 1e-5
    inside = y + rng.uniform(-0.3, 0.3, size=300)
    w, b, _ = learners.fit_svr(X, inside, weight, 1e-8, 0.5, 1000)
    np.testing.assert_allclose(w, truth, atol=0.05)


def test_svr_with_a_large_epsilon_ignores_small_residuals():
    """Residuals within epsilon cost nothing: moving the targets of rows inside the tube (keeping
    them inside) leaves the fit as it is, while ridge follows every move; and a shift of the targets
    by less than epsilon after a fit with epsilon 0 is not chased where epsilon is larger."""
    from genplan.models.heuristic import learners

    rng = np.random.default_rng(3)
    X = rng.integers(0, 4, size=(200, 6)).astype(np.float64)
    truth, weight = rng.normal(size=6), np.ones(200)
    y = X @ truth + 1.0 + rng.normal(scale=1.5, size=200)  # some rows outside a tube of 1, some inside
    eps = 1.0
    w, b, stats = learners.fit_svr(X, y, weight, 0.01, eps, 2000)
    r = X @ w + b - y
    inside = np.abs(r) < eps - 0.2
    assert 0.2 < stats["within_epsilon"] < 1 and inside.sum() > 20
    moved = y.copy()
    moved[inside] += np.where(r[inside] > 0, 0.1, -0.1) * rng.random(inside.sum())  # still inside the tube
    w2, b2, _ = learners.fit_svr(X, moved, weight, 0.01, eps, 2000)
    np.testing.assert_allclose(w2, w, atol=1e-4)
    assert abs(b2 - b) < 1e-4
    assert np.abs(learners.fit_ridge(X, moved, weight, 0.01)[0] - learners.fit_ridge(X, y, weight, 0.01)[0]).max() \
        > 1e-3  # ridge is pulled by the same moves


def test_the_gpr_posterior_mean_with_a_dot_product_kernel_is_ridge():
    """The equivalence learners.py states instead of a GPR learner: the posterior mean of a GP with
    k(x, x') = sigma0^2 + x.x' and noise sigma_n^2 / weight_i equals ridge with alpha = sigma_n^2 and the
    bias penalised by sigma_n^2 / sigma0^2; as sigma0 grows, our ridge (unpenalised bias)."""
    from genplan.models.heuristic import learners

    rng = np.random.default_rng(4)
    X, y, weight = rng.normal(size=(50, 8)), rng.normal(size=50) + 5.0, rng.random(50) + 0.5
    test = rng.normal(size=(7, 8))
    noise = 0.3
    for sigma0 in (1.0, 1e4):
        K = sigma0**2 + X @ X.T
        mean = (sigma0**2 + test @ X.T) @ np.linalg.solve(K + np.diag(noise / weight), y)
        # ridge with the bias penalised: the normal equations of [X 1] with penalty diag(noise, ..., noise / sigma0^2)
        A = np.hstack([X, np.ones((50, 1))])
        P = np.diag([noise] * 8 + [noise / sigma0**2])
        theta = np.linalg.solve(A.T @ (A * weight[:, None]) + P, A.T @ (weight * y))
        np.testing.assert_allclose(mean, test @ theta[:8] + theta[8], atol=1e-6)
    w, b = learners.fit_ridge(X, y, weight, noise)
    np.testing.assert_allclose(mean, test @ w + b, atol=1e-4)  # sigma0 = 1e4: the bias all but free


def test_an_svr_model_trained_from_plans_plans_with_the_compiled_search(gripper, tmp_path):
    """svr trained from the Gripper plans: a linear checkpoint naming its learner and epsilon, which
    the compiled GBFS takes and which solves a larger problem with a VAL-valid plan."""
    from genplan.models.heuristic.train import train_heuristic
    from genplan.planners import strategies
    from genplan.planners.search import HeuristicSearchPlanner

    bench, traj = gripper
    summary = train_heuristic("h_svr", {"family": "heuristic", "learner": "svr", "train": {"data": "plans"}},
                              "gripper", {"train": [traj, bench], "validation": []}, 13, tmp_path / "model.ckpt")
    assert summary["learner"] == summary["variant"] == "svr" and summary["target"] == "plan_length_to_go"
    assert summary["sibling_states"] == 0 and summary["svr_iterations"] >= 0 and summary["goal_abs_h_max"] < 1
    fam = registry.family("heuristic")
    assert fam.impl.check("h", {"learner": "svr", "train": {"data": "plans", "epsilon": 0.25}}) == []
    assert fam.impl.ARCHITECTURE["svr"] == "linear (SVR)"
    model = registry.load_model(tmp_path / "model.ckpt", expect_domain="gripper")
    assert model.learner == "svr" and model._linear is not None
    assert model.ckpt["config"]["train"]["epsilon"] == 0.5 and model.ckpt["identity"]["learner"] == "svr"
    test = tmp_path / "g8.pddl"
    test.write_text(gripper_problem(8))
    attempt = HeuristicSearchPlanner(model, strategies.parse("compiled-gbfs"),
                                     {"search": {"max_expansions": 20000, "time_limit": 30}}).solve(
        Problem(bench / "domain.pddl", test))
    assert attempt.reason == "goal"
    plan = tmp_path / "g8.plan"
    plan.write_text(plan_to_text(attempt.plan))
    assert val.validate(bench / "domain.pddl", test, plan).valid
