"""Real Fast Downward at the edge: A* + LM-cut with a GBFS + FF fallback, and LAMA (its first
plan, or run as an anytime planner to its time limit: the best-known reference).

Every run gets its own working directory (`genplan-fd-*` in the temporary directory), the
driver's own time and memory limits, and a status from the driver's documented exit codes.

Every run starts in a session of its own and is registered with genplan.processes while it runs,
so that a signal to the command ends its whole process group (the driver, the translator and the
search); a command plans through `processes.run_pool` inside `processes.interruptible`."""

from __future__ import annotations

import math
import re
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from genplan import atomic, limits, processes
from genplan.errors import GenplanError
from genplan.pddl_io import parse_domain, parse_problem, read_plan
from genplan.stages import fd_codes
from genplan.stages.fd_codes import ExitCode
from genplan.tools import fast_downward_driver

# Planner configurations by name: driver arguments placed after the task files (or an alias).
CONFIGS = {
    "astar_lmcut": {"search": ["--search", "astar(lmcut())"], "optimal": True},
    "gbfs_ff": {
        "search": ["--evaluator", "h=ff()", "--search", "lazy_greedy([h], preferred=[h])"],
        "optimal": False,
    },
    "gbfs_ff_eager": {"search": ["--search", "eager_greedy([ff()])"], "optimal": False},
    "lama_first": {"alias": "lama-first", "optimal": False},
    # anytime: writes plan.1, plan.2, ..., each cheaper than the one before; a run the time (or
    # memory) limit ends after a plan is a success with the last plan (see `_anytime_result`)
    "lama_anytime": {"alias": "seq-sat-lama-2011", "optimal": False, "anytime": True},
}

# What each configuration is, in words (the commands' --help).
DESCRIPTIONS = {
    "astar_lmcut": "A* with the LM-cut heuristic (`astar(lmcut())`): optimal plans, or a proof that none exists",
    "gbfs_ff": "lazy greedy best-first search with the FF heuristic and its preferred operators: "
               "satisficing, usually fast, no proof of unsolvability",
    "gbfs_ff_eager": "eager greedy best-first search with the FF heuristic, no preferred operators "
                     "(`eager_greedy([ff()])`): satisficing; the same search as a learned heuristic's GBFS",
    "lama_first": "the first plan of LAMA 2011 (alias `lama-first`: FF and landmark heuristics): satisficing; "
                  "the pipeline uses it for best-known plan lengths",
    "lama_anytime": "LAMA 2011 as an anytime planner (alias `seq-sat-lama-2011`) run to its time limit, "
                    "improving its plan: the last (cheapest) plan is kept; satisficing; the pipeline's "
                    "stronger best-known reference on problems without a proven optimum",
}



@dataclass
class PlanResult:
    config: str
    status: str  # optimal | satisficing | timeout | unsolvable | error
    plan: list | None  # list of ground actions when solved
    time: float
    reason: str = ""
    returncode: int | None = None
    cpu_time: float | None = None  # CPU seconds of the run's whole process group (genplan.limits)
    peak_memory_mb: float | None = None
    expansions: int | None = None  # the search's last "Expanded N state(s)." line


_EXPANDED = re.compile(r"Expanded (\d+) state")


def expansions(log: str) -> int | None:
    """The states Fast Downward's search expanded, from its last report (None where it printed none)."""
    found = _EXPANDED.findall(log)
    return int(found[-1]) if found else None


# CPU seconds the driver's own Python start takes out of its overall limit (it counts them).
DRIVER_MARGIN_S = 1


def driver_time_limit(time_limit: float) -> int:
    """The driver's `--overall-time-limit` in whole seconds (the only unit it takes) for a run of
    `time_limit` seconds: the limit rounded up (1.9 -> 2, never cut to 1) plus `DRIVER_MARGIN_S`,
    because the driver counts its own start against the limit and rounds what is left down: with
    `int(t)` a limit under 2 s left the search 0 s and every run ended as a time-out."""
    return math.ceil(time_limit) + DRIVER_MARGIN_S


def goal_true_initially(domain: str | Path, problem: str | Path) -> bool:
    """Whether every goal atom of `problem` holds in its initial state (an empty goal included);
    False for a problem that does not parse (the translator then says what is wrong)."""
    try:
        task = parse_problem(problem, parse_domain(domain))
    except (GenplanError, ValueError, OSError):
        return False
    return task.goal <= (task.init | task.statics)


def run_fast_downward(
    domain: str | Path,
    problem: str | Path,
    config: str,
    time_limit: float,
    memory_limit_mb: int,
) -> PlanResult:
    """Run one planner configuration on one problem; never raises for planner failures (raises
    `processes.Stopped` when `processes.stop_all` was called). Its run directory is removed however it ends. Called
    in the main thread, an exception there (a signal) ends the run's process group before it goes
    on; commands call it from `processes.run_pool`'s workers. A goal true in the initial state gets the empty
    plan, optimal, without a run."""
    if config not in CONFIGS:
        raise ValueError(f"Unknown value {config=}. Must be from {sorted(CONFIGS)}")
    spec = CONFIGS[config]
    start = time.perf_counter()
    if goal_true_initially(domain, problem):  # A* + LM-cut cannot run on an empty goal (FD exit 34)
        return PlanResult(config, "optimal", [], time.perf_counter() - start,
                          "the goal holds in the initial state: the empty plan", 0)
    cmd = [sys.executable, str(fast_downward_driver())]
    if "alias" in spec:
        cmd += ["--alias", spec["alias"]]
    processes.check_allowed()
    work = atomic.run_dir("genplan-fd-")  # removes the run folders of killed processes first
    try:
        plan_file = work / "plan"
        cmd += [
            "--plan-file", str(plan_file),
            "--overall-time-limit", f"{driver_time_limit(time_limit)}s",
            "--overall-memory-limit", f"{int(memory_limit_mb)}M",
            str(Path(domain).resolve()), str(Path(problem).resolve()),
        ]
        cmd += spec.get("search", [])
        # the pipeline's protocol over the driver's own limits: its whole process group held to the
        # same CPU seconds, a wall cap, and measured (CPU, wall, peak memory) as a learned run is
        budget = limits.Limits(driver_time_limit(time_limit), memory_mb=int(memory_limit_mb))
        started: list[subprocess.Popen] = []
        with open(work / "driver.log", "w+") as out:
            try:
                measured = limits.run(cmd, budget, cwd=work, stdout=out, stderr=subprocess.STDOUT,
                                      register=lambda proc: (started.append(proc), processes.register(proc)))
            finally:
                for proc in started:
                    processes.forget(proc)
            out.seek(0)
            log = out.read()
        code = measured.returncode
        if measured.outcome == "wall_limit":
            code, log = ExitCode.SEARCH_OUT_OF_TIME, f"killed at the wall-clock cap of {budget.wall:g} s (CPU {measured.cpu_time:.1f} s)"
        elif measured.outcome == "cpu_limit" and code == -signal.SIGKILL:
            code, log = ExitCode.SEARCH_OUT_OF_TIME, f"killed at the CPU limit ({measured.cpu_time:.1f} CPU-s)"
        result = _result(config, spec, code, log, plan_file, measured.wall_time, time_limit)
        result.cpu_time, result.peak_memory_mb = measured.cpu_time, measured.peak_memory_mb
        result.expansions = expansions(log)
        return result
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _plan_files(plan_file: Path) -> list[Path]:
    """The plans a run wrote: `plan`, or an anytime search's plan.1, plan.2, ... in the order
    written (by number: plan.10 comes after plan.9)."""
    if plan_file.exists():
        return [plan_file]
    numbered = [p for p in plan_file.parent.glob(plan_file.name + ".*") if p.suffix[1:].isdigit()]
    return sorted(numbered, key=lambda p: int(p.suffix[1:]))


def _result(config, spec, code, log, plan_file, elapsed, time_limit: float | None = None) -> PlanResult:
    """A run's status from its exit code (genplan.stages.fd_codes names each) and the plans it wrote."""
    if spec.get("anytime"):
        found = _anytime_result(config, code, plan_file, elapsed)
        if found is not None:
            return found
    if code == ExitCode.SUCCESS:
        candidates = _plan_files(plan_file)
        if not candidates:
            return PlanResult(config, "error", None, elapsed, "exit 0 but no plan file", code)
        plan = read_plan(candidates[-1])
        status = "optimal" if spec["optimal"] else "satisficing"
        return PlanResult(config, status, plan, elapsed, "", code)
    if code in fd_codes.PLAN_FOUND_OUT_OF and _plan_files(plan_file):  # a plan, then a limit: not proved optimal
        return PlanResult(config, "satisficing", read_plan(_plan_files(plan_file)[-1]), elapsed,
                          f"a plan, then {fd_codes.PLAN_FOUND_OUT_OF[code]} ({fd_codes.name(code)})", code)
    if code in fd_codes.UNSOLVABLE:
        return PlanResult(config, "unsolvable", None, elapsed, f"proved unsolvable ({fd_codes.name(code)})", code)
    if code in fd_codes.RESOURCE:
        return PlanResult(config, "timeout", None, elapsed, fd_codes.RESOURCE[code], code)
    if code == fd_codes.UNSOLVED_INCOMPLETE:  # proves nothing: recorded as an error, and the fallback runs
        return PlanResult(config, "error", None, elapsed,
                          f"incomplete search ended without a plan ({fd_codes.name(code)})", code)
    if code == -signal.SIGKILL and processes.stopping():
        return PlanResult(config, "error", None, elapsed, "ended: the command was interrupted", code)
    if code in fd_codes.KILLED and time_limit is not None and elapsed >= time_limit:
        return PlanResult(config, "timeout", None, elapsed, f"killed at the time limit ({fd_codes.name(code)})", code)
    # the input, critical and unsupported errors (30-37) and anything else: an error, named, with the log's tail
    tail = " | ".join(l for l in log.strip().splitlines()[-3:])
    return PlanResult(config, "error", None, elapsed, f"{fd_codes.name(code)}: {tail}"[:300], code)


def _anytime_result(config, code, plan_file, elapsed) -> PlanResult | None:
    """An anytime run that wrote plans and then finished (exit 0) or ran out of time or memory
    (the driver's resource codes, its plan-found-then-out-of codes, our own kill included) is a
    success: the last plan written is the cheapest. The reason says how many plans came and how the
    run ended. None otherwise (no plan, or another exit: the ordinary statuses apply)."""
    files = _plan_files(plan_file)
    ran_out = {**fd_codes.RESOURCE, **fd_codes.PLAN_FOUND_OUT_OF}
    if not files or (code != ExitCode.SUCCESS and code not in ran_out):
        return None
    plan = read_plan(files[-1])
    lengths = ", ".join(str(len(read_plan(f))) for f in files)
    ended = "the search finished" if code == ExitCode.SUCCESS else f"then {ran_out[code]}"
    return PlanResult(config, "satisficing", plan, elapsed,
                      f"{len(files)} plan(s) of {lengths} steps, the last kept; {ended}", code)


def plan_with_fallback(domain, problem, optimal_cfg: dict, fallback_cfg: dict, memory_limit_mb: int) -> list[PlanResult]:
    """A* + LM-cut (unless `optimal_cfg["enabled"]` is false); if it neither finds a plan nor
    proves unsolvability, or did not run, GBFS + FF (unless `fallback_cfg["enabled"]` is false)."""
    results = []
    if optimal_cfg.get("enabled", True):
        results.append(run_fast_downward(domain, problem, "astar_lmcut", optimal_cfg["time_limit"], memory_limit_mb))
    if fallback_cfg.get("enabled", True) and not (results and results[0].status in ("optimal", "unsolvable")):
        results.append(run_fast_downward(domain, problem, "gbfs_ff", fallback_cfg["time_limit"], memory_limit_mb))
    return results
