"""The resource protocol (genplan.limits, genplan.evaluation.isolated): every planner run held to CPU seconds of
its whole process group, a wall cap and an address-space limit, and measured; `genplan evaluate
--time-limit` plans every problem in a fresh process under it, one at a time a core; every table
counts a problem solved only within its budget (genplan.report.counting)."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import sixth_family_env
from test_evaluate_parallel import SEARCH, _bench, blind_checkpoint

from genplan import limits
from genplan.report import counting

SPIN = [sys.executable, "-c", "while True: pass"]


def test_a_cpu_bound_run_ends_at_its_cpu_limit_and_is_measured():
    m = limits.run(SPIN, limits.Limits(1.0))
    assert m.outcome == "cpu_limit" and 0.9 <= m.cpu_time <= 2.5, m
    assert m.wall_time >= m.cpu_time * 0.8 and m.peak_memory_mb > 1


def test_the_whole_process_group_is_held_to_the_cpu_limit():
    # two spinning children of a shell: each alone stays under its RLIMIT_CPU of 3 s, together they pass the
    # group's 3 + 2 s margin and the group is ended
    two = ["sh", "-c", f"{SPIN[0]} -c 'while True: pass' & {SPIN[0]} -c 'while True: pass' & wait"]
    m = limits.run(two, limits.Limits(3.0, wall_s=60))
    assert m.outcome == "cpu_limit" and 4.5 <= m.cpu_time <= 6.5 and m.wall_time < 30, m


def test_a_sleeping_run_ends_at_the_wall_cap():
    m = limits.run(["sleep", "30"], limits.Limits(5.0, wall_s=1.0))
    assert m.outcome == "wall_limit" and m.wall_time < 5 and m.cpu_time < 1, m


def test_an_allocation_past_the_memory_limit_is_a_memory_limit(tmp_path):
    out, log = tmp_path / "m.json", tmp_path / "log"
    measured = limits.limit_command([sys.executable, "-c", "x = bytearray(2 * 1024**3)"],
                                    limits.Limits(10.0, memory_mb=512), out, log=log)
    assert measured.outcome == "memory_limit", log.read_text()
    doc = json.loads(out.read_text())
    assert doc["outcome"] == "memory_limit" and doc["limits"]["memory_mb"] == 512


@pytest.mark.parametrize("value", [0, -1, float("nan"), float("inf")])
def test_limits_must_be_positive_and_finite(value):
    with pytest.raises(Exception, match="positive finite"):
        limits.Limits(value)


def test_starved_names_runs_that_shared_their_core():
    assert limits.starved(30.0, 60.0) and not limits.starved(59.0, 60.0) and not limits.starved(0.1, 0.5)
    row = {"solved": "no", "counters": json.dumps({"cpu_time": 61.0, "wall_time": 120.0})}
    assert counting.evaluation_starved(row)
    assert not counting.evaluation_starved({**row, "solved": "yes"})
    assert counting.plans_starved({"valid": "", "cpu_time": "61.2", "time": "119.0"})


def test_every_table_counts_a_plan_found_after_its_budget_unsolved():
    # under the protocol the CPU seconds count, whatever the wall clock said; before it, time + loading
    ok = {"solved": "yes", "time": "50.0", "counters": json.dumps({"time_limit": 60, "cpu_time": 59.0})}
    late = {**ok, "counters": json.dumps({"time_limit": 60, "cpu_time": 60.5, "wall_time": 61})}
    old = {"solved": "yes", "time": "55.0", "counters": json.dumps({"time_limit": 60, "load_time": 6.0})}
    assert counting.evaluation_counts(ok) and not counting.evaluation_counts(late)
    assert not counting.evaluation_counts(old)
    fd = {"valid": "yes", "plan_length": "12", "time": "107.0", "cpu_time": "58.0"}
    assert counting.plans_counts(fd, 60) and not counting.plans_counts({**fd, "cpu_time": "60.4"}, 60)
    assert not counting.plans_counts({**fd, "cpu_time": ""}, 60)  # before the protocol: its wall seconds


def _with_hashes(bench: Path, table: Path, split: str) -> None:
    """The plans table with each problem's SHA-256, as the plans stage writes it."""
    from genplan.formats import manifest
    from genplan.formats.plans_table import COLUMNS, read_table, with_hashes
    from genplan.formats.tables import write_csv

    write_csv(table, with_hashes(read_table(table), manifest.read(bench, split)), list(COLUMNS))


@pytest.fixture(scope="module")
def blind(tmp_path_factory):
    root = tmp_path_factory.mktemp("protocol")
    bench, tables = _bench(root)
    for split in tables:
        _with_hashes(bench, tables[split], split)
    return bench, tables, blind_checkpoint(root)


def _evaluate(blind, split: str, out: Path, *extra: str) -> list[dict]:
    bench, tables, ckpt = blind
    cmd = [sys.executable, "-m", "genplan", "evaluate", "--model", str(ckpt), "--benchmark-dir", str(bench),
           "--split", split, "--plans-table", str(tables[split]), "--strategy", "gbfs", "--settings",
           json.dumps(SEARCH), "--out", str(out), *extra]
    res = subprocess.run(cmd, env=sixth_family_env(), capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-3000:]
    with open(out, newline="") as fh:
        return list(csv.DictReader(fh))


@pytest.mark.slow  # a process a problem, each loading the model: about 2 CPU-seconds each
def test_evaluate_under_the_protocol_measures_every_row(blind, tmp_path):
    rows = _evaluate(blind, "easy", tmp_path / "e" / "easy.gbfs.csv", "--time-limit", "20")
    assert [r["solved"] for r in rows] == ["yes", "yes", "yes", "no", "yes"] and rows[3]["reason"] == "refused"
    for r in rows:
        c = json.loads(r["counters"])
        assert c["cpu_time"] > 0 and c["wall_time"] > 0 and c["peak_memory_mb"] > 0, c
        assert c["time_limit"] == 20 and c["memory_limit_mb"] == limits.DEFAULT_MEMORY_MB  # the declared budget


@pytest.mark.slow
def test_two_runs_asked_of_one_core_run_one_after_the_other(blind, tmp_path):
    rows = _evaluate(blind, "hard", tmp_path / "h" / "hard.gbfs.csv", "--time-limit", "2", "--jobs", "1")
    spans = sorted((json.loads(r["counters"])["run_start"], json.loads(r["counters"])["run_end"]) for r in rows)
    assert all(end <= start for (_, end), (start, _) in zip(spans, spans[1:])), spans
    for r in rows:  # GBFS with h = 0 on 40 balls: the CPU limit ends each run, as a time-limit row
        c = json.loads(r["counters"])
        assert r["solved"] == "no" and r["reason"] == "time_limit" and c["ended"] == "cpu_limit", r
        assert 1.5 <= c["cpu_time"] <= 4.5, c


@pytest.mark.slow
def test_a_learned_run_over_its_memory_limit_is_a_memory_limit_row(blind, tmp_path):
    # the planner's process gets less address space than importing its libraries needs: every problem
    # ends as a memory-limit row (or the planner's own MemoryError), never a crash of the command
    rows = _evaluate(blind, "hard", tmp_path / "m" / "hard.gbfs.csv", "--time-limit", "30",
                     "--memory-limit-mb", "200")
    assert {r["reason"] for r in rows} == {"memory_limit"}, [(r["reason"], r["counters"]) for r in rows]
    assert all(r["solved"] == "no" for r in rows)


def test_an_outside_planners_runs_become_an_evaluation_counted_by_the_same_rule(tmp_path):
    # Fast Downward's driver stands in for an outside planner: `genplan limit` runs it on every problem of
    # the split, `genplan import-runs` checks each plan against the task and by VAL and writes the rows
    from conftest import run_cli

    from genplan.tools import fast_downward_driver

    bench, tables = _bench(tmp_path / "root")
    _with_hashes(bench, tables["easy"], "easy")
    runs = tmp_path / "runs"
    for problem in ("g1", "g2", "g3", "gx", "g4"):
        folder = runs / problem
        folder.mkdir(parents=True)
        cmd = [sys.executable, str(fast_downward_driver()), "--alias", "lama-first", "--plan-file",
               str(folder / "plan"), str(bench / "domain.pddl"), str(bench / "easy" / f"{problem}.pddl")]
        res = run_cli("limit", "--time-limit", "20", "--out", folder / "measure.json", "--log", folder / "log",
                      "--", *cmd)
        assert res.returncode == 0, res.stderr
    (runs / "g2" / "plan").write_text("(move rooma roomb)\n(pick ball1 rooma left)\n")  # not a plan of g2's goal
    out = tmp_path / "root" / "evaluation" / "generated" / "gripper" / "outside" / "seed0" / "easy.lama.csv"
    res = run_cli("import-runs", "--benchmark-dir", bench, "--split", "easy", "--plans-table", tables["easy"],
                  "--runs", runs, "--system", "outside", "--model", "fd", "--strategy", "lama", "--out", out,
                  "--benchmark", "generated")
    assert res.returncode == 0, res.stderr
    with open(out, newline="") as fh:
        rows = {r["problem"]: r for r in csv.DictReader(fh)}
    assert [rows[p]["solved"] for p in ("g1", "g2", "g3", "gx", "g4")] == ["yes", "no", "yes", "no", "yes"]
    assert rows["g2"]["reason"] == "val_rejected" and rows["gx"]["reason"] in ("error", "dead_end")
    c = json.loads(rows["g1"]["counters"])
    assert c["cpu_time"] > 0 and c["time_limit"] == 20 and c["states_expanded"] > 0, c
    assert counting.evaluation_counts(rows["g1"])
    recheck = run_cli("validate", "--evaluation", out)
    assert recheck.returncode == 0, recheck.stdout + recheck.stderr
    (runs / "stray").mkdir()
    refused = run_cli("import-runs", "--benchmark-dir", bench, "--split", "easy", "--plans-table", tables["easy"],
                      "--runs", runs, "--system", "outside", "--model", "fd", "--strategy", "lama", "--out",
                      tmp_path / "other" / "seed0" / "easy.lama.csv")
    assert refused.returncode == 1 and "stray" in refused.stderr


def test_starved_lists_the_files_to_rerun(tmp_path):
    from conftest import run_cli

    from genplan.formats.evaluation_csv import COLUMNS as EVAL_COLUMNS
    from genplan.formats.plans_table import COLUMNS as PLAN_COLUMNS
    from genplan.formats.tables import write_csv

    root = tmp_path / "results"
    fd = root / "plans" / "ipc2023" / "ferry" / "easy.csv"
    write_csv(fd, [{"problem": "p01", "config": "lama_first", "status": "timeout", "time": "119.0", "valid": "",
                    "reason": "out of time", "cpu_time": "61.1"},
                   {"problem": "p02", "config": "lama_first", "status": "timeout", "time": "62.0", "valid": "",
                    "reason": "out of time", "cpu_time": "61.0"}], list(PLAN_COLUMNS))
    quiet = root / "plans" / "ipc2023" / "rovers" / "easy.csv"
    write_csv(quiet, [{"problem": "p01", "config": "lama_first", "status": "timeout", "time": "62.0", "valid": "",
                       "reason": "out of time", "cpu_time": "61.0"}], list(PLAN_COLUMNS))
    row = {c: "" for c in EVAL_COLUMNS}
    row.update(benchmark="ipc2023", domain="ferry", split="easy", problem="p01", solved="no", reason="time_limit",
               model="m", seed="1")
    shared = root / "evaluation" / "ipc2023" / "ferry" / "m" / "seed1" / "easy.gbfs.csv"
    write_csv(shared, [{**row, "strategy": "gbfs", "counters": json.dumps({"cpu_time": 60.0, "wall_time": 99.0})}],
              EVAL_COLUMNS)
    alone = root / "evaluation" / "ipc2023" / "ferry" / "m" / "seed1" / "easy.novelty.csv"
    write_csv(alone, [{**row, "strategy": "novelty", "counters": json.dumps({"cpu_time": 60.0, "wall_time": 61.0})}],
              EVAL_COLUMNS)
    res = run_cli("starved", "--results", root)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == [str(fd), str(shared)]
