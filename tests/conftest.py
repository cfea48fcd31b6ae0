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


IPC2023 = REPO.parent / "shared" / "benchmarks" / "ipc2023-learning"


def shared_folder(path: Path, what: str) -> Path:
    """A folder of ../shared the test reads: skipped with the reason where it is absent, failed in CI
    (GENPLAN_REQUIRE_SHARED), where it must be there."""
    if not path.is_dir():
        if os.environ.get("GENPLAN_REQUIRE_SHARED"):
            pytest.fail(f"GENPLAN_REQUIRE_SHARED is set but {path} is missing")
        pytest.skip(f"{what} not beside the checkout ({path})")
    return path


@pytest.fixture(scope="session")
def paper_splits() -> Path:
    return shared_folder(PAPER_SPLITS, "the papers' instances are")


@pytest.fixture(scope="session")
def ipc_dir() -> Path:
    """The IPC 2023 learning track's benchmark folder."""
    return shared_folder(IPC2023, "the IPC 2023 benchmark is")


# what the working tree holds but a clone would not (the fallback below, for a copy without its .git)
MADE_HERE = {".git", ".venv", "__pycache__", ".snakemake", ".pytest_cache", ".hypothesis", "runs", "logs", "build"}


def committed_files(*paths: str) -> list[str]:
    """The repository's committed files under `paths` (all with none), relative to REPO, as `git ls-files`
    lists them. `safe.directory=*`: git refuses a repository that another user owns ("dubious ownership"),
    as a checkout made by one account and tested by another (root in CI) is. In a copy without .git, the
    files on disk, less what a machine makes (MADE_HERE, imported problems folders, egg-info)."""
    res = subprocess.run(["git", "-c", "safe.directory=*", "ls-files", "-z", "--", *paths], cwd=REPO,
                         capture_output=True)
    if res.returncode == 0:
        return [f for f in res.stdout.decode().split("\0") if f]
    if (REPO / ".git").exists():
        raise RuntimeError(f"git ls-files failed in {REPO}: {res.stderr.decode().strip()}")
    out = []
    for top in [REPO / p for p in paths] or [REPO]:
        for f in ([top] if top.is_file() else sorted(top.rglob("*"))):
            rel = f.relative_to(REPO)
            parts = rel.parts
            if (f.is_file() and not MADE_HERE & set(parts) and not any(p.endswith(".egg-info") for p in parts)
                    and not (parts[0] == "results" and "problems" in parts)):
                out.append(rel.as_posix())
    return out


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


# The suite runs on two workers (pytest-xdist, `-n 2` in pyproject.toml's addopts). The scheduler
# below keeps each test module on one worker, so that its module-scoped fixtures run once, and sends
# the tests that use the session's smoke run (SMOKE_SCOPE: whole modules, or single tests of a module
# named `module::test`) to one worker together, so that the smoke configuration runs once; the SLURM
# cluster's run, which mostly waits on the scheduler, then overlaps with the rest of the suite. The
# smoke scope, the longest by far, is handed out first and the known-long modules (LONG_MODULES) next,
# so that no long module starts last and runs alone at the end. (xdist's own `--dist loadgroup` does
# not group under pytest 9: the group it appends to a test's id is lost.)
SMOKE_SCOPE = {"tests/test_sixth_family.py", "tests/test_slurm.py", "tests/test_stored_plans.py",
               "tests/test_workflow.py::test_smoke_run_end_to_end",
               "tests/test_workflow.py::test_every_family_summary_holds_what_the_reports_read",
               "tests/test_workflow.py::test_rerun_does_nothing_and_tables_regenerate_from_files"}
# the modules over about 40 s, longest first (one worker on a loaded machine, 2026-11-29: 50-140 s each;
# the smoke scope about 700 s with the SLURM tests), handed out before the rest
LONG_MODULES = ("tests/test_symt_trained.py", "tests/test_bad_inputs.py", "tests/test_committed_plans.py",
                "tests/test_workflow.py", "tests/test_diffusion.py", "tests/test_heuristic.py", "tests/test_plangpt.py",
                "tests/test_gpu_check.py")


def scope_of(nodeid: str) -> str:
    """The scheduler's unit of a test: "smoke" for the smoke run's users, else the test's module."""
    module, _, rest = nodeid.partition("::")
    name = rest.split("[", 1)[0]
    return "smoke" if module in SMOKE_SCOPE or f"{module}::{name}" in SMOKE_SCOPE else module


def pytest_xdist_make_scheduler(config, log):
    from xdist.scheduler import LoadScopeScheduling

    class ModuleScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return scope_of(nodeid)

        def _assign_work_unit(self, node) -> None:
            # the longest units first (the queue comes ordered by number of tests): the smoke run's, then LONG_MODULES
            for scope in reversed(("smoke", *LONG_MODULES)):
                if scope in self.workqueue:
                    self.workqueue.move_to_end(scope, last=False)
            super()._assign_work_unit(node)

    return ModuleScheduling(config, log)


def pytest_collection_modifyitems(config, items):
    """A test that uses the smoke run outside SMOKE_SCOPE would run it a second time on the other
    worker: refused, naming the test."""
    for item in items:
        if "smoke_run" in getattr(item, "fixturenames", ()) and scope_of(item.nodeid) != "smoke":
            raise pytest.UsageError(f"{item.nodeid} uses the smoke_run fixture: add it to SMOKE_SCOPE in tests/conftest.py")
