"""Rerunning one rule for one domain (docs/cluster.md) leaves every other domain's files alone."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from genplan.paths import Layout

REPO = Path(__file__).resolve().parents[1]
SMOKE = "workflow/configs/smoke.yaml"
SKIP_TOP = {"results", "runs", "logs", ".snakemake", ".git", ".pytest_cache", ".benchmarks", ".venv", "build",
            ".whl", ".gl", ".ci"}


def _copy_repo(dest: Path) -> Path:
    def ignore(folder, names):
        skip = {n for n in names if n == "__pycache__" or n.endswith(".egg-info")}
        if Path(folder).resolve() == REPO:
            skip |= SKIP_TOP & set(names)
        return skip

    shutil.copytree(REPO, dest, ignore=ignore, symlinks=True)
    return dest


def _snakemake(repo: Path, *args: str) -> subprocess.CompletedProcess:
    res = subprocess.run(["timeout", "-k", "10", "300", sys.executable, "-m", "snakemake", "--cores", "2", *args],
                         cwd=repo, capture_output=True, text=True)
    assert res.returncode == 0, (res.stdout + res.stderr)[-4000:]
    return res


def _mtimes(repo: Path) -> dict[str, int]:
    return {str(p.relative_to(repo)): p.stat().st_mtime_ns
            for top in ("runs",) for p in (repo / top).rglob("*") if p.is_file()}


@pytest.mark.slow
def test_rerun_plan_split_for_one_domain(tmp_path):
    repo = _copy_repo(tmp_path / "repo")
    config = yaml.safe_load((REPO / SMOKE).read_text())
    lay, (other, domain) = Layout(config["results_dir"]), config["domains"][:2]
    target = lay.plans_table("generated", domain, "train")
    # the training plans of two smoke domains
    _snakemake(repo, target, lay.plans_table("generated", other, "train"), "--configfile", SMOKE)
    before = _mtimes(repo)

    # the documented command: one rule, one domain, one split
    res = _snakemake(repo, target, "--forcerun", "plan_split", "--configfile", SMOKE)
    after = _mtimes(repo)

    assert "plan_split" in res.stdout + res.stderr
    changed = {f for f in before if after.get(f) != before[f]}
    new = set(after) - set(before)
    touched = changed | new
    # only the domain's training plans (table, plan files, log, job stats) were rewritten
    assert target in changed
    assert all(f"{domain}/train" in f for f in touched), sorted(touched)
    untouched_other = [f for f in before if f"/{other}" in f]
    assert untouched_other and not any(f in changed for f in untouched_other)
    assert not any(f in changed for f in before if f.startswith(f"{lay.root}/problems/"))


def test_retraining_a_committed_model_writes_only_under_its_own_root(tmp_path):
    """The retrain of one committed model in docs/configurations.md (paper-cpu's Logistics heuristic) runs
    under a results root of its own (`results_dir`), so the stages it reruns (problems, plans, state
    spaces, trajectories) never write over the committed results/: a dry run lists every output."""
    root = tmp_path / "retrain"
    target = Layout(str(root)).checkpoint("paper", "logistics", "heuristic_ridge", 13)
    res = subprocess.run([sys.executable, "-m", "snakemake", "-n", target, "--cores", "2", "--configfile",
                          "workflow/configs/paper-cpu.yaml", "--config", f"results_dir={root}",
                          "paper_splits=../shared/benchmarks/paper-splits"],
                         cwd=REPO, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr[-3000:]
    out = res.stdout + res.stderr
    outputs = [o.strip() for line in out.splitlines() if line.strip().startswith(("output:", "log:", "benchmark:"))
               for o in line.split(":", 1)[1].split(",")]
    assert str(target) in outputs and len(outputs) >= 7
    assert all(o.startswith(str(root)) for o in outputs), [o for o in outputs if not o.startswith(str(root))]
    assert "statespace_split" in out and "train_model_cpu" in out
