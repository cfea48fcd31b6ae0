"""`genplan evaluate --jobs N` (genplan.evaluation.parallel): the problems of a split planned in worker
processes give the same CSV (the time column aside) and the same stored plans as --jobs 1; a
problem that fails in a worker, or a worker that dies, ends the command naming the problem, with
no output written. The model is the throwaway `blind` family of tests/fixtures/sixth_family (the
shared GBFS with h = 0: real pymimir successors, real VAL), registered in the commands' environment
as the workflow registers it (conftest.sixth_family_env)."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import FIXTURES, sixth_family_env
from transition_doubles import gripper_problem

from genplan.domains import domain_file
from genplan.formats import manifest
from genplan.formats.plans_table import COLUMNS as PLAN_COLUMNS
from genplan.formats.tables import write_csv

GRIPPER = domain_file("gripper")
SEARCH = {"search": {"max_expansions": 10000, "time_limit": 10}}


def _bench(root: Path) -> tuple[Path, Path]:
    """A benchmark folder (gripper) and its plans table: split `easy`, problems g1 to g4 of 1 to 4
    balls and gx, a problem of another domain (pymimir refuses it); split `hard`, three problems of
    40 balls (GBFS with h = 0: far beyond a minute)."""
    bench = root / "problems" / "generated" / "gripper"
    (bench / "domain.pddl").parent.mkdir(parents=True)
    (bench / "domain.pddl").write_text(GRIPPER.read_text())
    rows = []
    for split, balls in (("easy", {"g1": 1, "g2": 2, "g3": 3, "gx": 2, "g4": 4}),
                         ("hard", {"big1": 40, "big2": 40, "big3": 40})):
        (bench / split).mkdir()
        for name, n in balls.items():
            path = gripper_problem(bench / split / f"{name}.pddl", GRIPPER, n)
            if name == "gx":
                path.write_text(path.read_text().replace("(:domain gripper-strips)", "(:domain gripper-other)"))
            rows.append({"problem": name, "split": split, "file": f"{split}/{name}.pddl", "size": n,
                         "num_objects": 4 + n, "seed": 0, "canonical": ""})
    (bench / "manifest.csv").write_text(manifest.to_csv(rows))
    tables = {}
    for split, plans in (("easy", [{"problem": "g1", "config": "astar_lmcut", "status": "optimal", "plan_length": 3,
                                    "valid": "yes"}]), ("hard", [])):
        tables[split] = root / f"{split}.csv"
        write_csv(tables[split], plans, list(PLAN_COLUMNS))
    return bench, tables


def blind_checkpoint(root: Path) -> Path:
    """`root`/m.ckpt: a checkpoint of the blind family, trained by the family's own code in a child process."""
    code = ("import sys; from sixth_family.family import train; "
            "train('blind', {'family': 'blind'}, 'gripper', {}, 13, sys.argv[1])")
    res = subprocess.run([sys.executable, "-c", code, str(root / "m.ckpt")], check=False, env=sixth_family_env(),
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return root / "m.ckpt"


@pytest.fixture(scope="module")
def blind(tmp_path_factory):
    """The benchmark, its plans tables and a checkpoint of the blind family (its own training)."""
    root = tmp_path_factory.mktemp("parallel-eval")
    bench, tables = _bench(root)
    return bench, tables, blind_checkpoint(root)


def _evaluate(blind, split: str, out: Path, jobs: int, settings=SEARCH) -> subprocess.Popen:
    """`genplan evaluate` started (not waited for) on one split of the bench."""
    bench, tables, ckpt = blind
    cmd = [sys.executable, "-m", "genplan", "evaluate", "--model", str(ckpt), "--benchmark-dir", str(bench),
           "--split", split, "--plans-table", str(tables[split]), "--strategy", "gbfs", "--settings",
           json.dumps(settings), "--out", str(out), "--jobs", str(jobs)]
    return subprocess.Popen(cmd, env=sixth_family_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _rows_without_time(path: Path) -> list[dict]:
    """The rows without their measured seconds: `time`, and the counters' `load_time` (each worker's
    own start and model load, which `genplan evaluate` records in every row)."""
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    for r in rows:
        counters = json.loads(r["counters"])
        assert counters.pop("load_time") > 0, r  # the command's rows count their loading
        r["counters"] = json.dumps(counters, sort_keys=True)
    return [{k: v for k, v in r.items() if k != "time"} for r in rows]


@pytest.mark.slow  # two commands and two workers, each loading torch: 15 s on a loaded 2-core machine
def test_two_workers_write_the_csv_and_plans_of_one(blind, tmp_path):
    one, two = tmp_path / "one" / "easy.gbfs.csv", tmp_path / "two" / "easy.gbfs.csv"
    runs = [_evaluate(blind, "easy", one, 1), _evaluate(blind, "easy", two, 2)]  # side by side: the test's time
    for proc in runs:
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err[-3000:]
    assert "(2 workers)" in err and "[worker" in err  # the refused gx: a worker's log line
    rows = _rows_without_time(one)
    assert [r["problem"] for r in rows] == ["g1", "g2", "g3", "gx", "g4"]  # the manifest's order
    assert [r["solved"] for r in rows] == ["yes", "yes", "yes", "no", "yes"] and rows[3]["reason"] == "refused"
    assert _rows_without_time(two) == rows
    plans = "easy.gbfs.plans.json.gz"
    assert one.with_name(plans).read_bytes() == two.with_name(plans).read_bytes()


def _workers(parent: int) -> list[int]:
    """The pids of the `genplan evaluate` process's worker processes (multiprocessing's spawned
    children; its resource tracker is not one), oldest first."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except (OSError, ValueError):
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == parent and b"spawn_main" in cmdline:
            found.append(int(entry.name))
    return sorted(found)


def test_a_worker_that_dies_fails_the_command_naming_its_problem(blind, tmp_path):
    out = tmp_path / "eval" / "hard.gbfs.csv"
    proc = _evaluate(blind, "hard", out, 2, settings={"search": {"max_expansions": 10**8, "time_limit": 60}})
    try:
        deadline = time.monotonic() + 60
        while len(workers := _workers(proc.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert len(workers) == 2, "the two workers did not start"
        os.kill(workers[0], signal.SIGKILL)  # the first worker plans the first problem
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 1, err[-3000:]
    problem = blind[0] / "hard" / "big1.pddl"
    assert f"genplan: error: {problem}: the worker process planning problem 'big1' died (ended by SIGKILL" in err
    assert not out.parent.exists() or not any(out.parent.iterdir())  # nothing written, no temporaries
    assert _workers(proc.pid) == []  # the other worker was ended


def test_a_problem_that_raises_in_a_worker_is_named(blind, monkeypatch, caplog):
    """A task the worker cannot record (its manifest row lacks `size`): the exception's type and
    message, with the problem and its file, in one GenplanError; the worker's traceback in the log.
    The workers, spawned from this process, find the blind family as the commands do (its folder
    on their path, GENPLAN_FAMILIES in their environment)."""
    from genplan.errors import GenplanError
    from genplan.evaluation.parallel import evaluate_rows

    bench, _, ckpt = blind
    monkeypatch.syspath_prepend(str(FIXTURES))
    monkeypatch.setenv("GENPLAN_FAMILIES", "sixth_family")
    rows = manifest.read(bench, "easy")[:2]
    del rows[1]["size"]
    with pytest.raises(GenplanError) as err:
        list(evaluate_rows(ckpt, bench / "domain.pddl", "gbfs", SEARCH, [(r, None, None) for r in rows], 2))
    assert str(err.value) == f"{bench / 'easy' / 'g2.pddl'}: planning problem 'g2' failed: KeyError: 'size'"
    assert "worker traceback" in caplog.text and "Traceback (most recent call last)" in caplog.text
