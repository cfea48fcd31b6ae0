"""SymT^E and SymT^ED (genplan.models.symt) end to end: trained by `genplan train` on tiny Gripper data,
then planned by `genplan solve` and the family's planners (every strategy, VAL, caps, names and the
renaming ensemble), where exit 0 means a VAL-valid plan. The network's own properties:
tests/test_symt.py."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import run_cli
from test_features import DOMAIN, gripper_data  # noqa: F401  (fixture)

from genplan import registry
from genplan.errors import GenplanError
from genplan.tokens.renaming import Renaming

# --- end to end ------------------------------------------------------------------------------------

# A test of the machinery (training, checkpoint, every strategy, VAL, caps), not of generalisation,
# with a few seconds of training: SymT^E learns h* of the 1-3 ball state spaces with the contrastive
# loss (rename-one); SymT^ED memorises the 1-ball state space with objects always in pool order
# (`rename: sorted`, no contrastive term): with random names a tiny decoder needs far longer to learn
# to copy them. Each validates on its own training problems' plans (selection by validation loss on
# larger problems keeps the first epoch's weights).
TRAIN = {"epochs": 30, "batch_size": 16, "lr": 0.003, "warmup_steps": 10, "examples": 300, "patience": None}
NETWORK = {"d_model": 48, "n_heads": 4, "n_layers": 2, "d_token": 16}
MODELS = {
    "encoder": {"family": "symt", "architecture": "encoder", "object_pool": 10, "rename": "rename-one",
                "network": NETWORK, "train": TRAIN},
    "encoder_decoder": {"family": "symt", "architecture": "encoder_decoder", "object_pool": 10, "rename": "sorted",
                        "loss_weights": [1, 0, 0], "network": NETWORK, "train": {**TRAIN, "examples": 200}},
}
BALLS = {"encoder": (1, 2, 3), "encoder_decoder": (1,)}


def _statespaces(gripper_data, balls):
    from genplan.stages import statespace

    folder = gripper_data["dir"] / f"statespaces-{len(balls)}" / "train"
    folder.mkdir(parents=True)
    for n in balls:
        np.savez_compressed(folder / f"gripper-{n}.npz", **statespace.expand(DOMAIN, gripper_data["files"][n], 10000))
    table = folder.with_suffix(".csv")
    table.write_text("problem\n")  # the folder beside it is what training reads
    return table


@pytest.fixture(scope="module", params=["encoder", "encoder_decoder"])
def symt(request, gripper_data, tmp_path_factory):  # noqa: F811
    from test_features import trajectory_record, write_split

    arch = request.param
    out = tmp_path_factory.mktemp(arch) / "model.ckpt"
    table = _statespaces(gripper_data, BALLS[arch])
    val = write_split(out.with_name("validation.json.gz"),
                      [trajectory_record(gripper_data["files"][n]) for n in BALLS[arch]])
    res = run_cli("train", "--model", f"tiny_{arch}", "--settings", json.dumps(MODELS[arch]),
                  "--domain", "gripper", "--train", gripper_data["train"], table,
                  "--validation", val, "--seed", "3", "--out", out,
                  "--log", out.with_name("training.csv"), "--summary", out.with_name("summary.json"))
    assert res.returncode == 0, res.stderr[-3000:]
    return request.param, out


@pytest.mark.slow
def test_training_summary_and_log(symt):
    arch, ckpt = symt
    summary = json.loads(ckpt.with_name("summary.json").read_text())
    assert summary["family"] == "symt" and summary["system"] == ("symt_e" if arch == "encoder" else "symt_ed")
    assert summary["contrastive"] == (arch == "encoder") and summary["divergences"] >= 0
    assert isinstance(summary["divergence_events"], list) and summary["dead_end_states_excluded"] == 0
    assert summary["parameters"] == sum(summary["parameters_by_part"].values())
    assert (arch == "encoder") == ("memory_mean_cosine" not in summary)
    assert arch == "encoder" or -1 <= summary["memory_mean_cosine"] <= 1
    rows = ckpt.with_name("training.csv").read_text().splitlines()
    assert rows[0].startswith("epoch,train_loss,pred_loss,att_loss,hid_loss,val_loss") and len(rows) == 31
    first, last = (float(r.split(",")[2]) for r in (rows[1], rows[-1]))
    assert last < first  # the prediction loss falls
    model = registry.load_model(ckpt, expect_domain="gripper")
    variant = "contrastive" if arch == "encoder" else "no_contrastive"
    assert (model.family, model.system, model.variant) == ("symt", summary["system"], variant)
    if arch == "encoder":  # the contrastive terms are logged
        assert all(r.split(",")[3] and r.split(",")[4] for r in rows[1:])


def _strategies(arch):
    return ["heuristic-greedy"] if arch == "encoder" else ["greedy", "greedy-applicable", "greedy-reground"]


@pytest.mark.slow
def test_solve_exits_0_only_for_a_val_valid_plan(symt, gripper_data, tmp_path):  # noqa: F811
    arch, ckpt = symt
    for strategy in _strategies(arch):
        out = tmp_path / f"{strategy}.plan"
        res = run_cli("solve", "--model", ckpt, DOMAIN, gripper_data["files"][1], "--strategy", strategy, "--out", out)
        assert res.returncode == 0, (strategy, res.stdout + res.stderr[-2000:])
        assert "Plan valid (VAL): 3 actions" in res.stdout and out.is_file()
        # a cap too small for any plan: no valid plan, exit 1, nothing written
        capped = tmp_path / f"{strategy}-capped.plan"
        res = run_cli("solve", "--model", ckpt, DOMAIN, gripper_data["files"][1], "--strategy", strategy,
                      "--settings", json.dumps({"generate": {"max_tokens": 3}}), "--out", capped)
        assert res.returncode == 1 and not capped.exists(), (strategy, res.stdout)
    res = run_cli("solve", "--model", ckpt, DOMAIN, gripper_data["files"][1], "--strategy",
                  "greedy" if arch == "encoder" else "heuristic-greedy")
    assert res.returncode != 0 and "offers the strategies" in res.stderr


@pytest.mark.slow
def test_symt_ed_plans_under_one_random_renaming_of_its_seed(symt, gripper_data):  # noqa: F811
    """`names: {order: random, seed: S}`: SymT^ED's decoding names the objects by one renaming drawn
    from S (the same for the same seed), pool order without it."""
    from genplan.models.symt.family import planner
    from genplan.planners.base import Problem
    from genplan.planners.strategies import parse

    arch, ckpt = symt
    if arch != "encoder_decoder":
        pytest.skip("SymT^ED's decoding")
    model = registry.load_model(ckpt, expect_domain="gripper")
    problem = Problem(DOMAIN, gripper_data["files"][2])
    runs = [planner(model, parse("greedy-applicable"), settings) for settings in
            ({}, *({"names": {"order": "random", "seed": s}} for s in (0, 0, 1)))]
    for run in runs:
        run.solve(problem)
    pool, first, again, other = (dict(run.renaming.forward) for run in runs)
    task = problem.task
    assert pool == dict(Renaming.identity_order(task.objects, None, model.vocab).forward)
    assert first == again and len({tuple(sorted(m.items())) for m in (pool, first, other)}) == 3


@pytest.mark.slow
def test_symt_ed_decodes_with_a_renaming_ensemble(symt, gripper_data, monkeypatch):  # noqa: F811
    """`names: {order: random, samples: K}`: each token from the mean of K namings' distributions; one
    naming K times decodes as that naming alone, with K model calls a token; beams and sampling refuse."""
    from genplan.models.symt.family import planner
    from genplan.planners.base import Problem
    from genplan.planners.strategies import parse

    arch, ckpt = symt
    if arch != "encoder_decoder":
        pytest.skip("SymT^ED's decoding")
    model = registry.load_model(ckpt, expect_domain="gripper")
    problem = Problem(DOMAIN, gripper_data["files"][2])
    cap = {"max_tokens": 30}  # the 2-ball plan is 18 tokens; random names may run on, not for long
    for strategy in _strategies(arch):
        single = planner(model, parse(strategy), {"generate": cap}).solve(problem)
        three = planner(model, parse(strategy), {"generate": cap,
                                                 "names": {"order": "random", "samples": 3, "seed": 1}})
        attempt = three.solve(problem)
        assert len(three.ensemble) == 3 and attempt.reason in ("goal", "not_goal", "inapplicable", "token_cap",
                                                               "malformed")
        pool = Renaming.identity_order(problem.task.objects, None, model.vocab)
        monkeypatch.setattr(Renaming, "at_evaluation", classmethod(lambda cls, *a, **k: [pool, pool]))
        twice = planner(model, parse(strategy), {"generate": cap, "names": {"order": "random", "samples": 2}}).solve(
            problem)
        monkeypatch.undo()
        assert (twice.plan, twice.reason) == (single.plan, single.reason), strategy
        assert twice.model_calls == 2 * single.model_calls and twice.tokens_generated == single.tokens_generated
    from genplan.planners.autoregressive import SequencePlanner

    with pytest.raises(GenplanError, match="renaming ensemble"):  # one hypothesis a step only
        SequencePlanner(model, parse("topp0.9x2"), names={"order": "random", "samples": 2})


@pytest.mark.slow
def test_symt_e_plans_with_gbfs_within_its_search_limits(symt, gripper_data, tmp_path):  # noqa: F811
    """SymT^E's estimate guides the heuristic family's GBFS; its `search` settings limit it."""
    arch, ckpt = symt
    problem = gripper_data["files"][2]
    res = run_cli("solve", "--model", ckpt, DOMAIN, problem, "--strategy", "gbfs", "--out", tmp_path / "plan")
    if arch != "encoder":
        assert res.returncode != 0 and "offers the strategies" in res.stderr
        return
    assert res.returncode == 0 and "Plan valid (VAL)" in res.stdout, res.stdout + res.stderr[-2000:]
    res = run_cli("solve", "--model", ckpt, DOMAIN, problem, "--strategy", "gbfs",
                  "--settings", json.dumps({"search": {"max_expansions": 1}}))
    assert res.returncode == 1 and "stopped (node_limit)" in res.stdout, res.stdout


@pytest.mark.slow
def test_more_objects_than_the_pool_is_refused(symt, tmp_path):
    from transition_doubles import gripper_problem

    arch, ckpt = symt
    big = gripper_problem(tmp_path / "g9.pddl", DOMAIN, 9)  # 9 balls + 4 > 10 object tokens
    res = run_cli("solve", "--model", ckpt, DOMAIN, big)
    assert res.returncode == 1 and "more than the 10 object tokens" in res.stdout
