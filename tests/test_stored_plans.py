"""Every plan an evaluation finds is stored beside its CSV, and `genplan validate
--evaluation` checks a whole evaluation's plans again with real VAL. On the suite's one smoke run
(conftest.smoke_run): every evaluation of every family agrees with its CSV, and a plan changed by
one action is a disagreement naming the file and the problem. The run's files are read, never
changed: the tampered plan lives in a copy."""

from __future__ import annotations

import gzip
import json
import shutil

import pytest
from conftest import run_cli

from genplan.formats import stored_plans
from genplan.formats.evaluation_csv import read_evaluation

EVAL = ("runs", "smoke", "evaluation")


@pytest.mark.slow
def test_validate_rechecks_every_stored_plan_of_the_smoke_run(smoke_run):
    folder = smoke_run.joinpath(*EVAL)
    csvs = sorted(folder.rglob("seed*/*.csv"))
    assert csvs and all(stored_plans.plans_path(c).is_file() for c in csvs), "every evaluation stores its plans"
    rows = sum(len(read_evaluation(c)) for c in csvs)
    res = run_cli("validate", "--evaluation", folder)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-2000:]
    lines = [l for l in res.stdout.splitlines() if l.startswith(str(folder))]
    assert len(lines) == len(csvs) and all(l.endswith(" disagree, 0 missing") and ", 0 disagree" in l for l in lines)
    refused = sum(r["reason"] == "refused" for c in csvs for r in read_evaluation(c))
    assert f"{len(csvs)} evaluation(s), {rows} plans rechecked" in res.stdout and refused < rows


@pytest.mark.slow
def test_a_plan_changed_by_one_action_fails_validate_naming_file_and_problem(smoke_run, tmp_path):
    src = smoke_run.joinpath(*EVAL, "generated", "gripper", "heuristic_ridge", "seed13", "validation.gbfs.csv")
    copy = tmp_path / src.name
    shutil.copy(src, copy)
    with gzip.open(stored_plans.plans_path(src), "rt") as fh:
        doc = json.load(fh)
    problem, entry = next((p, e) for p, e in doc["problems"].items() if e["plan"])
    entry["plan"][0] = "(drop ball1 roomb left)"  # robby is in rooma and holds nothing
    stored_plans.plans_path(copy).write_bytes(stored_plans.encode(doc))
    problems = smoke_run.joinpath("runs", "smoke", "problems", "generated", "gripper")
    res = run_cli("validate", "--evaluation", copy, "--problems", problems)
    assert res.returncode == 1
    assert f"DISAGREE {copy}: {problem}: VAL now says 'Plan failed because of unsatisfied precondition" in res.stdout
    assert "solved would be no, the CSV says yes" in res.stdout
    assert "1 file(s) with a disagreement" in res.stdout


def test_each_best_known_names_its_plan_set_and_where_the_plan_is_stored():
    from genplan.report.best_known import (
        COLUMNS,
        LEARNED,
        PLANNER,
        best_known,
        table_rows,
    )

    key = ("paper", "blocks", "extrapolation")
    plans = {key: [
        {"problem": "p1", "config": "astar_lmcut", "valid": "yes", "plan_length": "20", "plan_file": "p1.astar_lmcut.plan"},
        {"problem": "p2", "config": "lama_first", "valid": "yes", "plan_length": "132", "plan_file": "p2.lama_first.plan"},
        {"problem": "p3", "config": "lama_first", "valid": "yes", "plan_length": "40", "plan_file": "p3.lama_first.plan"},
        {"problem": "p3", "config": "lama_anytime", "valid": "yes", "plan_length": "30", "plan_file": "p3.lama_anytime.plan"},
        {"problem": "p4", "config": "reference", "valid": "yes", "plan_length": "9", "plan_file": ""}]}
    source = "results/evaluation/paper/blocks/wl_xgb_delta/seed13/extrapolation.beam3-pooled.csv"
    evals = [{"benchmark": "paper", "domain": "blocks", "split": "extrapolation", "problem": p, "system": "wl_xgb",
              "variant": "delta", "solved": "yes", "plan_length": n, "source": source}
             for p, n in (("p1", "20"), ("p2", "52"))]
    rows = {r["problem"]: r for r in table_rows(best_known(plans, evals))}
    assert list(rows["p1"]) == COLUMNS and list(rows) == ["p1", "p2", "p3", "p4"]
    assert (rows["p1"]["best_known"], rows["p1"]["best_known_kind"], rows["p1"]["best_known_source"]) == (20, PLANNER, "astar_lmcut")
    assert rows["p1"]["best_known_plan"] == "plans/paper/blocks/extrapolation/p1.astar_lmcut.plan"  # ties: the planner
    assert (rows["p2"]["best_known"], rows["p2"]["best_known_kind"], rows["p2"]["best_known_source"]) == (52, LEARNED, "wl_xgb delta")
    assert rows["p2"]["best_known_plan"] == (
        "evaluation/paper/blocks/wl_xgb_delta/seed13/extrapolation.beam3-pooled.plans.json.gz#p2")
    assert (rows["p3"]["best_known_source"], rows["p3"]["best_known_plan"]) == (
        "lama_anytime", "plans/paper/blocks/extrapolation.anytime/p3.lama_anytime.plan")
    assert (rows["p4"]["best_known_source"], rows["p4"]["best_known_plan"]) == ("reference", "")

