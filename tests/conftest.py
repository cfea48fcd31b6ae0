"""Shared fixtures: the papers' instances beside the checkout (read-only), and small helpers."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
PAPER_SPLITS = REPO.parent / "shared" / "benchmarks" / "paper-splits"
# what a copy of the repository leaves out: results, runs and whatever the machine made
NOT_COPIED = shutil.ignore_patterns("results", "runs", "logs", ".snakemake", ".git", "*.egg-info", "__pycache__",
                                    ".venv", ".whl", ".gl")
# the throwaway sixth family (tests/fixtures/sixth_family: `blind`, GBFS with h = 0) and one model of it
FIXTURES = REPO / "tests" / "fixtures"
BLIND = {"family": "blind", "seeds": [13], "strategies": ["gbfs"],
         "search": {"max_expansions": 10000, "time_limit": 10}}


@pytest.fixture(scope="session")
def paper_splits() -> Path:
    if not PAPER_SPLITS.is_dir():
        if os.environ.get("GENPLAN_REQUIRE_SHARED"):  # CI: the folder must be there
            pytest.fail(f"GENPLAN_REQUIRE_SHARED is set but {PAPER_SPLITS} is missing")
        pytest.skip(f"the papers' instances are not beside the checkout ({PAPER_SPLITS})")
    return PAPER_SPLITS


def run_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """Run the installed `genplan` command line as a user would."""
    return subprocess.run([sys.executable, "-m", "genplan", *map(str, args)], capture_output=True, text=True, cwd=cwd)


def sixth_family_env() -> dict:
    """The environment that registers the sixth family in a child process (Snakemake and the
    `genplan` commands of its jobs): its folder on PYTHONPATH, its registry entry in GENPLAN_FAMILIES."""
    path = os.pathsep.join(filter(None, [str(FIXTURES), os.environ.get("PYTHONPATH")]))
    return {**os.environ, "PYTHONPATH": path, "GENPLAN_FAMILIES": "sixth_family"}


@pytest.fixture(scope="session")
def smoke_run(tmp_path_factory) -> Path:
    """The smoke configuration end to end in a copy of the repository (results start empty), with
    one model of the sixth family beside the five families' models: the copy's
    workflow/configs/smoke.yaml holds it, and every command on the copy runs with sixth_family_env().
    One run serves the workflow's tests and the sixth family's (tests/test_sixth_family.py)."""
    work = tmp_path_factory.mktemp("smoke") / "repo"
    shutil.copytree(REPO, work, ignore=NOT_COPIED)
    smoke = work / "workflow" / "configs" / "smoke.yaml"
    config = yaml.safe_load(smoke.read_text())
    config["models"]["blind"] = BLIND
    smoke.write_text(yaml.safe_dump(config, sort_keys=False))
    res = subprocess.run([sys.executable, "-m", "snakemake", "--cores", "2", "--configfile", str(smoke)], cwd=work,
                         env=sixth_family_env(), capture_output=True, text=True, timeout=1500)
    assert res.returncode == 0, res.stderr[-4000:]
    return work


# The suite runs on two workers (pytest-xdist, `-n 2 --dist loadgroup` in pyproject.toml's addopts):
# each test module stays on one worker, so that its module-scoped fixtures run once, and the modules
# that use the session's smoke run (workflow, sixth family, SLURM, stored plans) share one worker, so
# that the smoke configuration runs once. The SLURM cluster's run, which waits on the scheduler most
# of the time, then overlaps with the rest of the suite instead of following it.
def pytest_collection_modifyitems(config, items):
    smoke_modules = {item.module.__name__ for item in items if "smoke_run" in getattr(item, "fixturenames", ())}
    for item in items:
        module = item.module.__name__
        item.add_marker(pytest.mark.xdist_group("smoke" if module in smoke_modules else module))
