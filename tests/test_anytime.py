"""Anytime LAMA: the `lama_anytime` configuration for real (a run the time
limit ends after a plan is a success with its last plan), the stage that runs it only where the
plans table proves no optimum, the command's refusals, and the reports' best-known lengths that
read its table (quality never above 1)."""

from __future__ import annotations

import csv
import random

import pytest
from conftest import run_cli

from genplan import val
from genplan.domains import domain_file
from genplan.formats.plans_table import COLUMNS, read_table
from genplan.formats.tables import write_csv
from genplan.paths import Layout
from genplan.pddl_io import parse_domain, plan_to_text, problem_to_pddl
from genplan.report import collect
from genplan.report.best_known import PLANNER, best_known
from genplan.report.leaderboard import best_known as leaderboard_best_known
from genplan.stages import fast_downward as fd
from genplan.stages import fd_codes
from genplan.stages.anytime import anytime_split
from genplan.stages.generators import generate_size
from genplan.stages.problems import generate_benchmark

BLOCKS = domain_file("blocks")


def _problem(tmp_path, size, seed):
    prob = generate_size("blocks", size, random.Random(seed))
    path = tmp_path / f"blocks{size}.pddl"
    path.write_text(problem_to_pddl(path.stem, parse_domain(BLOCKS).name, prob.objects, prob.init, prob.goal))
    return path


def test_anytime_lama_on_a_tiny_problem_finishes_with_a_valid_plan(tmp_path):
    problem = _problem(tmp_path, 3, 0)
    res = fd.run_fast_downward(BLOCKS, problem, "lama_anytime", 10, 2048)
    assert res.status == "satisficing" and res.plan and res.returncode == 0
    assert "the last kept; the search finished" in res.reason
    plan = tmp_path / "p.plan"
    plan.write_text(plan_to_text(res.plan))
    assert val.validate(BLOCKS, problem, plan).valid


def test_anytime_lama_stopped_by_its_time_limit_keeps_its_best_plan(tmp_path):
    # 14 blocks: the first plan comes at once, the improving iterations run into the 2 s limit
    problem = _problem(tmp_path, 14, 3)
    res = fd.run_fast_downward(BLOCKS, problem, "lama_anytime", 2, 2048)
    assert res.returncode in fd_codes.RESOURCE and res.status == "satisficing", res
    assert "then out of time" in res.reason
    lengths = [int(n) for n in res.reason.split(" plan(s) of ")[1].split(" steps")[0].split(", ")]
    assert len(res.plan) == lengths[-1] == min(lengths)
    plan = tmp_path / "p.plan"
    plan.write_text(plan_to_text(res.plan))
    assert val.validate(BLOCKS, problem, plan).valid


def test_the_last_numbered_plan_is_kept_and_no_plan_is_a_timeout(tmp_path):
    spec = fd.CONFIGS["lama_anytime"]
    for i in range(1, 12):  # plan.1 .. plan.11: plan.11 is the last, though "plan.11" < "plan.2"
        (tmp_path / f"plan.{i}").write_text("(a)\n" * (30 - i))
    res = fd._result("lama_anytime", spec, 23, "", tmp_path / "plan", 61.0)
    assert res.status == "satisficing" and len(res.plan) == 19 and res.reason.startswith("11 plan(s) of 29, 28,")
    empty = tmp_path / "none"
    empty.mkdir()
    res = fd._result("lama_anytime", spec, 23, "", empty / "plan", 61.0)
    assert (res.status, res.plan) == ("timeout", None)
    res = fd._result("lama_anytime", spec, 35, "boom", tmp_path / "plan", 1.0)  # a crash stays an error
    assert res.status == "error" and res.plan is None


def test_a_translator_killed_at_the_time_limit_is_a_timeout_and_before_it_an_error(tmp_path):
    """Fast Downward's driver exits 247 (256 - SIGKILL) when the translator passes its hard CPU limit
    ("Driver aborting after translate", IPC 2023 Ferry hard at 60 s): a time-out at or past the run's
    limit; killed before it (the OOM killer) it stays an error."""
    spec = fd.CONFIGS["lama_first"]
    log = "Driver aborting after translate\nINFO     Planner time: 61.37s"
    res = fd._result("lama_first", spec, 247, log, tmp_path / "plan", 61.4, time_limit=60)
    assert (res.status, res.plan) == ("timeout", None) and "time limit" in res.reason
    res = fd._result("lama_first", spec, 247, log, tmp_path / "plan", 12.0, time_limit=60)
    assert res.status == "error" and res.reason.startswith("SIGKILL (247)")


def _bench_and_plans(tmp_path):
    """Two generated Blocksworld problems; the plans table says A* proved the first optimal."""
    bench = tmp_path / "bench"
    rows = generate_benchmark("blocks", {"sizes": {"validation": [3]}, "per_size": {"validation": 2}}, 0, bench)
    p1, p2 = [r["problem"] for r in rows]
    table = tmp_path / "validation.csv"
    write_csv(table, [
        {"problem": p1, "config": "astar_lmcut", "status": "optimal", "plan_length": 4, "valid": "yes"},
        {"problem": p2, "config": "astar_lmcut", "status": "timeout", "plan_length": "", "valid": ""},
        {"problem": p2, "config": "gbfs_ff", "status": "satisficing", "plan_length": 9, "valid": "yes"},
    ], COLUMNS)
    return bench, table, p1, p2


def test_the_stage_runs_only_where_no_optimum_is_proven(tmp_path):
    bench, table, p1, p2 = _bench_and_plans(tmp_path)
    params = {"memory_limit_mb": 2048, "lama_anytime": {"time_limit": 5}}
    out = anytime_split(bench, "validation", table, params, tmp_path / "anytime", tmp_path / "validation.anytime.csv")
    assert [{k: str(v) for k, v in r.items()} for r in out] == read_table(tmp_path / "validation.anytime.csv")
    rows = {r["problem"]: r for r in out}
    assert [r["problem"] for r in out] == [p1, p2]  # one row per problem, the manifest's order
    assert rows[p1]["status"] == "skipped-optimal" and "4-step plan optimal" in rows[p1]["reason"]
    assert rows[p1]["plan_file"] == "" and rows[p1]["valid"] == ""
    assert (rows[p2]["config"], rows[p2]["status"], rows[p2]["valid"]) == ("lama_anytime", "satisficing", "yes")
    assert (tmp_path / "anytime" / rows[p2]["plan_file"]).is_file()
    assert sorted(p.name for p in (tmp_path / "anytime").iterdir()) == [".genplan-output", f"{p2}.lama_anytime.plan"]


def test_the_command_refuses_bad_input_with_one_message(tmp_path):
    bench, table, p1, p2 = _bench_and_plans(tmp_path)
    out_dir, out_table = tmp_path / "anytime", tmp_path / "validation.anytime.csv"

    def cli(plans=table, params='{"memory_limit_mb": 2048, "lama_anytime": {"time_limit": 5}}', split="validation"):
        return run_cli("plan-anytime", "--benchmark-dir", bench, "--split", split, "--plans-table", plans,
                       "--params", params, "--out-dir", out_dir, "--out-table", out_table)

    foreign = tmp_path / "other.csv"  # a plans table of other problems
    write_csv(foreign, [{"problem": "probX", "config": "astar_lmcut", "status": "optimal", "plan_length": 3,
                         "valid": "yes"}], COLUMNS)
    not_plans = tmp_path / "not-plans.csv"
    not_plans.write_text("problem,length\np1,3\n")
    cases = {
        "foreign plans table": (cli(plans=foreign), [str(foreign), "no row for problem(s)", p1]),
        "missing plans table": (cli(plans=tmp_path / "none.csv"), ["none.csv", "plans table not found"]),
        "not a plans table": (cli(plans=not_plans), [str(not_plans), "not a plans table"]),
        "misspelt key": (cli(params='{"memory_limit_mb": 2048, "lama_anytime": {"time_limt": 5}}'),
                         ["--params", "lama_anytime: unknown key(s) ['time_limt']"]),
        "no block": (cli(params='{"memory_limit_mb": 2048}'), ["--params", "'lama_anytime' is a required property"]),
        "disabled": (cli(params='{"memory_limit_mb": 2048, "lama_anytime": {"enabled": false}}'),
                     ["lama_anytime.enabled is false"]),
        "bad split": (cli(split="tset"), ["--split must be one of"]),
    }
    for name, (res, words) in cases.items():
        err = res.stderr.strip().splitlines()
        assert res.returncode == 1, (name, res.stderr)
        assert len(err) == 1 and err[0].startswith("genplan: error: ") and "Traceback" not in res.stderr, (name, err)
        assert all(w in err[0] for w in words), (name, err[0])
        assert not out_dir.exists() and not out_table.exists(), name


def _plans_root(tmp_path):
    """p1: A* proved 10 optimal; p2: no optimum, LAMA-first 40, anytime LAMA 30; p3: LAMA-first 20,
    anytime LAMA 20 too (a tie: the plans table keeps it)."""
    lay = Layout(str(tmp_path))
    write_csv(lay.plans_table("paper", "blocks", "extrapolation"), [
        {"problem": "p1", "config": "astar_lmcut", "status": "optimal", "plan_length": 10, "valid": "yes", "time": 1.0},
        {"problem": "p1", "config": "lama_first", "status": "satisficing", "plan_length": 12, "valid": "yes", "time": 1.0},
        {"problem": "p2", "config": "astar_lmcut", "status": "timeout", "plan_length": "", "valid": "", "time": 60.0},
        {"problem": "p2", "config": "lama_first", "status": "satisficing", "plan_length": 40, "valid": "yes", "time": 1.0},
        {"problem": "p3", "config": "astar_lmcut", "status": "timeout", "plan_length": "", "valid": "", "time": 60.0},
        {"problem": "p3", "config": "lama_first", "status": "satisficing", "plan_length": 20, "valid": "yes", "time": 1.0},
    ], COLUMNS)
    write_csv(lay.anytime_table("paper", "blocks", "extrapolation"), [
        {"problem": "p1", "config": "lama_anytime", "status": "skipped-optimal", "plan_length": "", "valid": ""},
        {"problem": "p2", "config": "lama_anytime", "status": "satisficing", "plan_length": 30, "valid": "yes", "time": 1.0},
        {"problem": "p3", "config": "lama_anytime", "status": "satisficing", "plan_length": 20, "valid": "yes", "time": 1.0},
    ], COLUMNS)
    return lay


def test_best_known_takes_the_anytime_table(tmp_path):
    _plans_root(tmp_path)
    plans = collect.plans_tables(tmp_path)
    assert list(plans) == [("paper", "blocks", "extrapolation")]  # <split>.anytime.csv is no split
    assert [r["config"] for r in plans[("paper", "blocks", "extrapolation")]][-3:] == ["lama_anytime"] * 3
    assert len(collect.plans_tables(tmp_path, anytime=False)[("paper", "blocks", "extrapolation")]) == 6
    best = best_known(plans, [])
    key = ("paper", "blocks", "extrapolation")
    assert (best[(*key, "p1")].length, best[(*key, "p1")].source) == (10, "astar_lmcut")
    assert (best[(*key, "p2")].length, best[(*key, "p2")].kind, best[(*key, "p2")].source) == (30, PLANNER, "lama_anytime")
    assert (best[(*key, "p3")].length, best[(*key, "p3")].source) == (20, "lama_first")  # ties: the plans table
    learned = [{"benchmark": "paper", "domain": "blocks", "split": "extrapolation", "problem": "p2", "system": "s",
                "variant": "v", "solved": "yes", "plan_length": "35"}]
    assert leaderboard_best_known(tmp_path, learned) == {(*key, "p1"): 10, (*key, "p2"): 30, (*key, "p3"): 20}


def test_quality_never_exceeds_one_against_anytime_lama(tmp_path):
    lay = _plans_root(tmp_path)
    from genplan.formats.evaluation_csv import COLUMNS as EVAL_COLUMNS

    # a learned plan of 35 steps on p2: shorter than LAMA-first's 40, longer than anytime LAMA's 30
    rows = []
    for p, n in (("p1", 10), ("p2", 35), ("p3", 20)):
        row = {c: "" for c in EVAL_COLUMNS}
        row.update(benchmark="paper", domain="blocks", split="extrapolation", system="learned_heuristic",
                   variant="ridge", model="h", seed="13", strategy="gbfs", problem=p, size="5", num_objects="5",
                   solved="yes", reason="goal", val="valid", plan_length=n, time="1.0", counters="{}")
        rows.append(row)
    write_csv(lay.evaluation("paper", "blocks", "h", "13", "extrapolation", "gbfs"), rows, EVAL_COLUMNS)
    res = run_cli("report", "leaderboard", "--results", tmp_path)
    assert res.returncode == 0, res.stderr[-2000:]
    board = {(r["system"], r["variant"]): r for r in csv.DictReader(open(tmp_path / "tables" / "leaderboard.csv"))}
    assert ("fast_downward", "lama_anytime") not in board  # a best-known source, not a row
    mine = board[("learned_heuristic", "ridge")]
    assert float(mine["quality"]) == pytest.approx((1 + 30 / 35 + 1) / 3, abs=1e-4)
    lama = board[("fast_downward", "lama_first")]
    assert float(lama["quality"]) == pytest.approx((10 / 12 + 30 / 40 + 1) / 3, abs=1e-4)
    assert all(float(r["quality"]) <= 1.0 for r in board.values() if r["quality"])
