"""SymT^E trained from plans (`train: {data: plans}`): no state space and no validation
split, as on the IPC 2023 learning track. A tiny model learns from hand-written plans of a small
typed domain with a constant (tests/fixtures/typed_courier; the trajectories stage checks the plans
with VAL), selects its weights on held-out training problems, plans a larger problem with GBFS
(VAL-valid), and a test problem with more objects than its object pool is a `refused` row of the
evaluation, with its message in the log and in the IPC report, not a crash."""

from __future__ import annotations

import csv
import hashlib
import json
import logging
from itertools import pairwise
from pathlib import Path

import pytest

from genplan import registry, val
from genplan.configuration import _models_without_validation
from genplan.errors import GenplanError
from genplan.evaluation.split import evaluate_split
from genplan.formats import evaluation_csv, manifest
from genplan.formats.trajectories import load
from genplan.models.symt.model import SymTSettings
from genplan.pddl_io import plan_to_text
from genplan.planners.base import Problem
from genplan.planners.search import SearchLimits, gbfs
from genplan.solve_setup import load_model
from genplan.stages.trajectories import trajectories_split

FIXTURE = Path(__file__).parent / "fixtures" / "typed_courier" / "domain.pddl"
POOL = 10
NETWORK = {"d_model": 32, "n_heads": 2, "n_layers": 2, "d_token": 8}
TRAIN = {"data": "plans", "epochs": 40, "batch_size": 16, "lr": 0.003, "warmup_steps": 5, "patience": None,
         "val_fraction": 0.25}
ENTRY = {"family": "symt", "architecture": "encoder", "object_pool": POOL, "rename": "random",
         "loss_weights": [1, 0, 0], "network": NETWORK, "train": TRAIN, "seeds": [13], "strategies": ["gbfs"],
         "search": {"max_expansions": 2000, "time_limit": 30}}
SIZES = {"train": [(1, 1), (2, 1), (1, 2), (2, 2), (3, 1), (3, 2), (2, 3), (1, 3)],  # (places, parcels)
         "easy": [(3, 3), (4, 6)]}  # 9 and 12 objects with the depot: the second is past the pool of 10


def _csv(path: Path) -> list[dict]:
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def courier(places: int, parcels: int) -> tuple[str, str]:
    """(problem PDDL, plan) of a line of places depot - l1 - ... - l<places>, the truck at the depot
    and parcel x<i> waiting at the place i-th from the end: one parcel at a time, fetched and delivered."""
    line = ["depot"] + [f"l{i}" for i in range(1, places + 1)]
    roads = [f"(road {a} {b}) (road {b} {a})" for a, b in pairwise(line)]
    where = {f"x{i}": line[places - (i - 1) % places] for i in range(1, parcels + 1)}
    pddl = (f"(define (problem courier-{places}-{parcels}) (:domain typed-courier)\n"
            f"  (:objects {' '.join(line[1:])} - place t1 - truck {' '.join(where)} - parcel)\n"
            f"  (:init (at t1 depot) {' '.join(f'(waiting {x} {p})' for x, p in where.items())} {' '.join(roads)})\n"
            f"  (:goal (and {' '.join(f'(delivered {x})' for x in where)})))\n")
    plan = []
    for x, p in where.items():
        k = line.index(p)
        plan += [f"(drive t1 {a} {b})" for a, b in pairwise(line[:k + 1])] + [f"(load {x} t1 {p})"]
        plan += [f"(drive t1 {a} {b})" for a, b in pairwise(line[k::-1])]
        plan += [f"(unload {x} t1 depot)", f"(deliver {x})"]
    return pddl, "\n".join(plan) + "\n"


def _bench(root: Path) -> tuple[Path, Path]:
    """A benchmark folder laid out as the workflow's (problems/<b>/<d>/{train,easy}), the easy level's
    plans table, and the train split's trajectories file (trajectories/<b>/<d>/train.json.gz, VAL-checked)."""
    bench = root / "problems" / "ipc2023" / "courier"
    plans = root / "hand-plans"
    plans.mkdir(parents=True)
    rows, table = [], []
    for split, sizes in SIZES.items():
        (bench / split).mkdir(parents=True)
        for k, (places, parcels) in enumerate(sizes, 1):
            name = f"p{k:02d}"
            pddl, plan = courier(places, parcels)
            (bench / split / f"{name}.pddl").write_text(pddl)
            rows.append({"problem": name, "split": split, "file": f"{split}/{name}.pddl", "size": parcels,
                         "num_objects": places + parcels + 2, "seed": 0, "canonical": ""})
            if split == "train":
                (plans / f"{name}.plan").write_text(plan)
            else:
                digest = hashlib.sha256((bench / split / f"{name}.pddl").read_bytes()).hexdigest()
                table.append(f"{name},hand,ok,{plan.count(chr(10))},yes,{digest}\n")  # a current table: hashes
    (bench / "domain.pddl").write_text(FIXTURE.read_text())
    (bench / "manifest.csv").write_text(manifest.to_csv(rows))
    (root / "plans.csv").write_text("problem,config,status\n" + "".join(f"p{k:02d},hand,ok\n" for k in
                                                                         range(1, len(SIZES["train"]) + 1)))
    (root / "easy.csv").write_text("problem,config,status,plan_length,valid,problem_sha256\n" + "".join(table))
    traj = root / "trajectories" / "ipc2023" / "courier" / "train.json.gz"
    traj.parent.mkdir(parents=True)
    trajectories_split(bench, "train", plans, root / "plans.csv", traj)
    return bench, traj


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    root = tmp_path_factory.mktemp("symt-plans")
    bench, traj = _bench(root)
    out = root / "model.ckpt"
    fam = registry.family("symt")
    settings = registry.weight_settings(ENTRY)
    data = {"train": [traj], "validation": []}  # no validation split, as the workflow gives ipc2023
    assert fam.impl.trains_from(ENTRY) == ("trajectories",)
    summary = fam.impl.train("symt_e", settings, "typed-courier", data, 13, out, log_csv=root / "training.csv",
                             summary_json=root / "summary.json")
    return bench, traj, out, summary


def test_training_from_plans_without_validation_holds_out_training_problems(trained):
    bench, traj, ckpt, summary = trained
    doc = load(traj)
    states = {rec["problem"]: len(rec["states"]) for rec in doc["problems"]}  # a plan's states, its goal state too
    held = summary["held_out_problems"]
    assert summary["training_data"] == "plans" and summary["target"] == "plan_length_to_go"
    assert summary["validation_from"] == "held-out training problems" and len(held) == 2  # 0.25 of 8
    assert summary["train_problems"] == 6 and set(held) < set(states)
    assert summary["plan_states"] == summary["train_examples"] == sum(n for p, n in states.items() if p not in held)
    assert summary["val_examples"] == sum(states[p] for p in held)
    assert "statespace_problems" not in summary  # no state space was read
    rows = _csv(ckpt.with_name("training.csv"))
    assert len(rows) == TRAIN["epochs"] and float(rows[-1]["pred_loss"]) < float(rows[0]["pred_loss"])
    model = load_model(ckpt, bench / "domain.pddl")  # as evaluation loads it: one torch thread
    assert model.system == "symt_e" and model.settings.train.data == "plans"
    # the estimate falls along a training plan (the target: plan length to go)
    problem = Problem(bench / "domain.pddl", bench / "train" / "p06.pddl")
    h = model.bind(problem)
    state, values = problem.mimir.initial_state(), []
    for action in doc["problems"][5]["actions"]:
        values.append(h([state])[0])
        state = problem.mimir.apply(state, tuple(action.strip("()").split()))
    assert values[0] > values[-1] + 2, values
    # `names`: random renamings, drawn per problem from the seed, h their mean
    init = [problem.mimir.initial_state()]
    one = [model.bind(problem, names={"order": "random", "samples": 1, "seed": s})(init)[0] for s in (0, 1, 2)]
    four = model.bind(problem, names={"order": "random", "samples": 4, "seed": 5})(init)[0]
    assert four == model.bind(problem, names={"order": "random", "samples": 4, "seed": 5})(init)[0]
    assert len(set(one)) > 1 and model.bind(problem, names={"order": "pool"})(init)[0] == h(init)[0]


def test_symt_e_from_plans_solves_a_larger_problem_with_gbfs(trained, tmp_path):
    bench, _, ckpt, _ = trained
    model = load_model(ckpt, bench / "domain.pddl")
    test = bench / "easy" / "p01.pddl"  # 3 places, 3 parcels: longer than every training plan but one
    problem = Problem(bench / "domain.pddl", test)
    res = gbfs(problem.mimir, model.bind(problem), SearchLimits(2000, 30))
    assert res.reason == "goal", res
    plan = tmp_path / "p01.plan"
    plan.write_text(plan_to_text(res.plan))
    assert val.validate(bench / "domain.pddl", test, plan).valid


def test_more_objects_than_the_pool_is_a_refused_row_with_its_message(trained, tmp_path, caplog):
    bench, _, ckpt, _ = trained
    out = tmp_path / "evaluation" / "ipc2023" / "courier" / "symt_e" / "seed13" / "easy.gbfs.csv"
    with caplog.at_level(logging.WARNING, logger="genplan"):
        records = evaluate_split(ckpt, bench, "easy", bench.parent.parent.parent / "easy.csv", "gbfs",
                                            {"search": ENTRY["search"]}, out, benchmark="ipc2023")
    rows = {r["problem"]: r for r in evaluation_csv.read_evaluation(out)}
    assert rows["p01"]["solved"] == "yes" and rows["p01"]["val"] == "valid"
    big = rows["p02"]  # 12 objects, 10 object tokens
    assert (big["solved"], big["reason"], big["val"], big["plan_length"]) == ("no", "refused", "", "")
    message = "problem has 12 objects, more than the 10 object tokens of the model's vocabulary"
    assert json.loads(big["counters"])["message"] == message
    assert [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING] == [f"p02: {message}"]
    assert records[1]["plan"] is None
    # the IPC report: the model's rows (its system from the family's identity) beside the others'
    from test_report_ipc import _eval, _write

    from genplan.report import build_report

    results = tmp_path
    _write(results / "problems" / "ipc2023" / "courier" / "upper_bounds.csv",
           [{"split": "easy", "problem": p, "best_known_cost": r["best_known"]} for p, r in rows.items()],
           ["split", "problem", "best_known_cost"])
    heuristic = [_eval("courier", 13, p, r["best_known"], "1.5000") for p, r in rows.items()]
    for r in heuristic:
        r["counters"] = json.dumps({"time_limit": 30})
    _write(results / "evaluation" / "ipc2023" / "courier" / "wl_ridge" / "seed13" / "easy.gbfs.csv", heuristic,
           evaluation_csv.COLUMNS)
    build_report("ipc2023", results, results)
    levels = {r["planner"]: r for r in _csv(results / "tables" / "ipc2023-levels.csv")}
    assert set(levels) == {"symt_e · gbfs", "wl_ridge · gbfs"}
    symt = levels["symt_e · gbfs"]
    assert (symt["system"], symt["variant"], symt["solved"], symt["refused"]) == ("symt_e", "no_contrastive", "1",
                                                                                  "1/2")
    assert "| courier | easy | symt_e · gbfs | learned | 30 s, loading not measured | 1/2 (refused 1/2) |" in \
        (results / "tables" / "ipc2023-levels.md").read_text()


def test_the_workflow_trains_a_plans_entry_on_trajectories_only_and_without_validation():
    impl = registry.family("symt").impl
    assert impl.trains_from({"train": {"data": "plans"}}) == ("trajectories",)
    assert impl.trains_from({"train": {"examples": 10}}) == ("trajectories", "statespaces")
    assert impl.trains_without_validation(ENTRY) and not impl.trains_without_validation({**ENTRY, "train": {}})
    config = {"benchmarks": ["ipc2023"], "models": {"symt_e": ENTRY, "symt_ss": {**ENTRY, "train": {}}}}
    lines = _models_without_validation(config, {"ipc2023": ["train", "easy", "medium", "hard"]})
    assert len(lines) == 1 and lines[0].startswith("models.symt_ss: family 'symt' cannot train on benchmark")
    assert registry.check_models({"symt_e": ENTRY}) == []


def test_the_state_space_path_stores_its_settings_as_before():
    """The checkpoint's settings and the partial state's key of a state-space entry have no new keys."""
    plain = SymTSettings.from_entry({"family": "symt", "architecture": "encoder", "train": {"examples": 10}})
    assert set(plain.to_dict()["train"]) == {"epochs", "batch_size", "lr", "warmup_steps", "weight_decay",
                                             "grad_clip", "patience", "checkpoint_every", "examples", "val_examples"}
    plans = SymTSettings.from_entry(ENTRY)
    assert plans.to_dict()["train"]["data"] == "plans" and plans.to_dict()["train"]["val_fraction"] == 0.25
    assert SymTSettings.from_entry({**plans.to_dict(), "family": "symt"}) == plans  # as the checkpoint reloads it
    for bad, match in (({"data": "states"}, "train.data"), ({"data": "plans", "val_fraction": 1.0}, "val_fraction")):
        with pytest.raises(GenplanError, match=match):
            SymTSettings.from_entry({**ENTRY, "train": bad})


def test_plan_inputs_are_named_when_wrong(tmp_path):
    from genplan.models.symt.plan_data import plan_inputs

    with pytest.raises(GenplanError, match="one trajectories file of the train split"):
        plan_inputs({"train": [tmp_path / "train.json.gz", tmp_path / "train.csv"], "validation": []})


def test_plan_cases_with_a_validation_split_a_cap_and_for_symt_ed(trained):
    from genplan.models.symt.plan_data import plan_cases

    _, traj, _, _ = trained
    doc = load(traj)
    states = sum(len(rec["states"]) for rec in doc["problems"])
    settings = SymTSettings.from_entry({**ENTRY, "train": {**TRAIN, "examples": 20}}).train
    cases, info, val_cases = plan_cases(doc, traj, doc, traj, settings, 13, keep_goal_states=True)
    assert (info["validation_from"], info["held_out_problems"], info["train_problems"]) == ("validation split", [], 8)
    assert info["plan_states"] == states and len(cases) == 20 and len(val_cases) == states  # val_examples 500
    # SymT^ED: the rest of each plan from every state but the goal state
    cases, info, _ = plan_cases(doc, traj, doc, traj, settings, 13, keep_goal_states=False)
    assert info["target"] == "rest_of_plan" and info["plan_states"] == states - len(doc["problems"])
    assert all(case.plan for case in cases)


def test_symt_ed_trains_from_plans_too(trained, tmp_path):
    _, traj, _, _ = trained
    entry = {**ENTRY, "architecture": "encoder_decoder", "rename": "sorted", "strategies": ["greedy"],
             "train": {**TRAIN, "epochs": 2}}
    summary = registry.family("symt").impl.train("symt_ed", registry.weight_settings(entry), "typed-courier",
                                                 {"train": [traj]}, 13, tmp_path / "ed.ckpt")
    assert summary["system"] == "symt_ed" and summary["target"] == "rest_of_plan" and summary["epochs"] == 2
