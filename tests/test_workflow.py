"""The Snakemake workflow as users run it: lint, dry runs of every configuration, and one real
end-to-end run of the smoke configuration in a copy of the repository."""

from __future__ import annotations

import csv
import gzip
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO

CONFIGS = ["config.yaml", "workflow/configs/smoke.yaml", "workflow/configs/paper.yaml", "workflow/configs/paper-cpu.yaml",
           "workflow/configs/paper-cpu.yaml workflow/configs/paper-cpu-lstm-seeds.yaml"]


def snakemake(*args, cwd=REPO, timeout=900):
    return subprocess.run([sys.executable, "-m", "snakemake", *args], cwd=cwd, capture_output=True, text=True, timeout=timeout)


def test_lint_is_clean():
    res = snakemake("--lint")
    assert res.returncode == 0 and "Congratulations" in res.stdout + res.stderr, res.stdout + res.stderr


@pytest.mark.parametrize("configfile", CONFIGS)
def test_dry_run(configfile):
    res = snakemake("-n", "--cores", "2", "--configfile", *configfile.split())
    assert res.returncode == 0, res.stderr[-3000:]


def test_config_is_validated(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("domains: [chess]\n")
    res = snakemake("-n", "--cores", "1", "--configfile", str(bad))
    assert res.returncode != 0 and "chess" in res.stdout + res.stderr


@pytest.fixture(scope="module")
def smoke_run(tmp_path_factory):
    """The smoke configuration end to end, in a copy of the repository (results start empty)."""
    work = tmp_path_factory.mktemp("smoke") / "repo"
    shutil.copytree(REPO, work, ignore=shutil.ignore_patterns("results", "logs", ".snakemake", ".git", "*.egg-info", "__pycache__", ".venv", ".whl", ".gl"))
    res = snakemake("--cores", "2", "--configfile", "workflow/configs/smoke.yaml", cwd=work, timeout=1200)
    assert res.returncode == 0, res.stderr[-4000:]
    return work


@pytest.mark.slow
def test_smoke_run_end_to_end(smoke_run):
    res = smoke_run / "results"
    for domain in ("blocks", "gripper"):
        manifest = list(csv.DictReader(open(res / "problems" / "generated" / domain / "manifest.csv")))
        for split in ("train", "validation", "interpolation", "extrapolation"):
            table = list(csv.DictReader(open(res / "plans" / "generated" / domain / f"{split}.csv")))
            problems = {r["problem"] for r in manifest if r["split"] == split}
            assert {r["problem"] for r in table} == problems, "every problem has a recorded status"
            with gzip.open(res / "trajectories" / "generated" / domain / f"{split}.json.gz", "rt") as fh:
                doc = json.load(fh)
            solved = {p["problem"] for p in doc["problems"]}
            assert solved | {p["problem"] for p in doc["without_plan"]} == problems
        spaces = list(csv.DictReader(open(res / "statespaces" / "generated" / domain / "train.csv")))
        assert spaces and all(int(r["states"]) > 0 for r in spaces)
    stats = list(csv.DictReader(open(res / "tables" / "dataset-statistics.csv")))
    assert len(stats) == 8 and all(r["published_problems"] for r in stats)
    assert (res / "tables" / "dataset-statistics.md").read_text().startswith("# Dataset statistics")


@pytest.mark.slow
def test_rerun_does_nothing_and_tables_regenerate_from_files(smoke_run):
    res = snakemake("-n", "--cores", "2", "--configfile", "workflow/configs/smoke.yaml", cwd=smoke_run)
    assert "Nothing to be done" in res.stdout + res.stderr
    table = smoke_run / "results" / "tables" / "dataset-statistics.csv"
    before = table.read_text()
    table.unlink()
    res = snakemake(str(table.relative_to(smoke_run)), "--cores", "1", "--configfile", "workflow/configs/smoke.yaml", cwd=smoke_run)
    assert res.returncode == 0 and table.read_text() == before
