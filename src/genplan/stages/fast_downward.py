"""Real Fast Downward at the edge: A* + LM-cut with a GBFS + FF fallback, and LAMA.

Every run gets its own working directory, the driver's own time and memory limits, and a status
from the driver's documented exit codes."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from genplan.pddl_io import read_plan
from genplan.tools import fast_downward_driver

# Planner configurations by name: driver arguments placed after the task files (or an alias).
CONFIGS = {
    "astar_lmcut": {"search": ["--search", "astar(lmcut())"], "optimal": True},
    "gbfs_ff": {
        "search": ["--evaluator", "h=ff()", "--search", "lazy_greedy([h], preferred=[h])"],
        "optimal": False,
    },
    "lama_first": {"alias": "lama-first", "optimal": False},
}

# Fast Downward driver exit codes (driver/returncodes.py).
_UNSOLVABLE = {10, 11}
_RESOURCE = {
    20: "translator out of memory", 21: "translator out of time",
    22: "out of memory", 23: "out of time", 24: "out of time and memory",
    -24: "killed by the CPU time limit (SIGXCPU)", 232: "killed by the CPU time limit (SIGXCPU)",
}
_UNSOLVED_INCOMPLETE = 12


@dataclass
class PlanResult:
    config: str
    status: str  # optimal | satisficing | timeout | unsolvable | error
    plan: list | None  # list of ground actions when solved
    time: float
    reason: str = ""
    returncode: int | None = None


def run_fast_downward(
    domain: str | Path,
    problem: str | Path,
    config: str,
    time_limit: float,
    memory_limit_mb: int,
) -> PlanResult:
    """Run one planner configuration on one problem; never raises for planner failures."""
    if config not in CONFIGS:
        raise ValueError(f"Unknown value {config=}. Must be from {sorted(CONFIGS)}")
    spec = CONFIGS[config]
    work = Path(tempfile.mkdtemp(prefix="genplan-fd-"))
    plan_file = work / "plan"
    cmd = [sys.executable, str(fast_downward_driver())]
    if "alias" in spec:
        cmd += ["--alias", spec["alias"]]
    cmd += [
        "--plan-file", str(plan_file),
        "--overall-time-limit", f"{max(1, int(time_limit))}s",
        "--overall-memory-limit", f"{int(memory_limit_mb)}M",
        str(Path(domain).resolve()), str(Path(problem).resolve()),
    ]
    cmd += spec.get("search", [])
    start = time.perf_counter()
    # the driver and its translator/search processes share a session, so a driver that overruns
    # its own limit is killed together with its children
    proc = subprocess.Popen(cmd, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        log, _ = proc.communicate(timeout=time_limit + 60)
        code = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        code, log = 23, "killed: the driver overran its own time limit"
    elapsed = time.perf_counter() - start
    try:
        return _result(config, spec, code, log, plan_file, elapsed)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _result(config, spec, code, log, plan_file, elapsed) -> PlanResult:
    if code == 0:
        # lama-first writes plan.1, plan.2, ... only for anytime aliases; lama-first writes `plan`.
        candidates = [plan_file] if plan_file.exists() else sorted(plan_file.parent.glob("plan.*"))
        if not candidates:
            return PlanResult(config, "error", None, elapsed, "exit 0 but no plan file", code)
        plan = read_plan(candidates[-1])
        status = "optimal" if spec["optimal"] else "satisficing"
        return PlanResult(config, status, plan, elapsed, "", code)
    if code in _UNSOLVABLE:
        return PlanResult(config, "unsolvable", None, elapsed, "proved unsolvable", code)
    if code in _RESOURCE:
        return PlanResult(config, "timeout", None, elapsed, _RESOURCE[code], code)
    if code == _UNSOLVED_INCOMPLETE:  # proves nothing: recorded as an error, and the fallback runs
        return PlanResult(config, "error", None, elapsed, "incomplete search ended without a plan (exit 12)", code)
    tail = " | ".join(l for l in log.strip().splitlines()[-3:])
    return PlanResult(config, "error", None, elapsed, f"exit {code}: {tail}"[:300], code)


def plan_with_fallback(domain, problem, optimal_cfg: dict, fallback_cfg: dict, memory_limit_mb: int) -> list[PlanResult]:
    """A* + LM-cut; if it neither finds a plan nor proves unsolvability, GBFS + FF."""
    results = [run_fast_downward(domain, problem, "astar_lmcut", optimal_cfg["time_limit"], memory_limit_mb)]
    if results[0].status not in ("optimal", "unsolvable") and fallback_cfg.get("enabled", True):
        results.append(run_fast_downward(domain, problem, "gbfs_ff", fallback_cfg["time_limit"], memory_limit_mb))
    return results
