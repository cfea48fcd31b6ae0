"""`genplan evaluate` under the resource protocol (genplan.limits): every problem planned by a fresh
process of its own, as Fast Downward plans every problem, so that the budget holds a learned
planner and Fast Downward alike: CPU seconds of the whole run (the interpreter's start, the imports,
loading the model, parsing, grounding, search) under RLIMIT_CPU, a wall cap, RLIMIT_AS.

The child (`python -m genplan.evaluation.isolated SPEC OUT`) loads the model, makes its planner, plans the one
problem and writes its attempt as JSON; it does not call VAL, which runs in the parent outside the
budget (as VAL runs on Fast Downward's plans). A child that ran out of memory exits with
`limits.MEMORY_EXIT`. The parent makes the problem's row (genplan.evaluation.problem.record) from the
attempt, or, for a child the protocol ended, a row of reason `time_limit` (CPU or wall) or
`memory_limit`; a child that crashed otherwise gets a row of reason `error` naming its exit and the
last line it wrote. Every row's counters hold the measurement: `cpu_time` (which the reports' budget
counts), `wall_time`, `peak_memory_mb`, `ended` (genplan.limits.Measurement.outcome).

The search's own time limit is lifted to the wall cap in the child: the CPU limit is what ends a
search under the protocol, and a wall-clock limit inside would end a search sharing its core early."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from genplan import limits

log = logging.getLogger("genplan")


def child_settings(settings: dict, budget: limits.Limits) -> dict:
    """The planning settings a child plans with: the search's time limit lifted to the wall cap."""
    out = json.loads(json.dumps(settings))
    if isinstance(out.get("search"), dict) and "time_limit" in out["search"]:
        out["search"]["time_limit"] = budget.wall
    return out


def _attempt_json(attempt) -> dict:
    from genplan.pddl_io import atom_to_str

    return {"plan": [atom_to_str(a) for a in attempt.plan], "reason": attempt.reason, "time": attempt.time,
            "steps": attempt.steps, "horizon": attempt.horizon, "model_calls": attempt.model_calls,
            "states_expanded": attempt.states_expanded, "tokens_generated": attempt.tokens_generated,
            "counters": attempt.counters}


def _attempt_from_json(doc: dict):
    from genplan.pddl_io import str_to_atom
    from genplan.planners.base import Attempt

    return Attempt([str_to_atom(a) for a in doc["plan"]], doc["reason"], float(doc["time"]), int(doc["steps"]),
                   doc["horizon"], int(doc["model_calls"]), int(doc["states_expanded"]),
                   int(doc["tokens_generated"]), dict(doc["counters"]))


def child_main(spec_path: str, out_path: str) -> int:
    """The child's life: plan one problem, write its attempt to `out_path`; exit MEMORY_EXIT on a
    failed allocation."""
    spec = json.loads(Path(spec_path).read_text())
    try:
        from genplan import atomic
        from genplan.pddl_io import str_to_atom
        from genplan.planners.base import Problem
        from genplan.planners.solve import attempt_on
        from genplan.registry import planner as make_planner
        from genplan.solve_setup import load_model

        planner = make_planner(load_model(spec["checkpoint"], spec["domain"], threads=1), spec["strategy"],
                               spec["settings"])
        reference = None if spec["reference"] is None else [str_to_atom(a) for a in spec["reference"]]
        attempt = attempt_on(planner, Problem(spec["domain"], spec["problem"], reference))
        atomic.write_text(out_path, json.dumps(_attempt_json(attempt)))
    except MemoryError:
        return limits.MEMORY_EXIT
    return 0


def _row(domain: Path, task: tuple, budget: limits.Limits, measured: limits.Measurement, out: Path,
         log_text: str) -> dict:
    """The problem's record: from the child's attempt, or from how the protocol ended it."""
    from genplan.evaluation.problem import record
    from genplan.planners.solve import Outcome, validate_attempt

    row, best, _ = task
    measures = {"cpu_time": round(measured.cpu_time, 3), "wall_time": round(measured.wall_time, 3),
                "peak_memory_mb": round(measured.peak_memory_mb, 1), "ended": measured.outcome,
                # when it ran (seconds since the epoch): which runs shared the machine
                "run_start": round(measured.started, 2), "run_end": round(measured.ended, 2),
                # the declared budget (what the reports count against), not the search's lifted limit
                "time_limit": budget.cpu_s, "wall_limit": budget.wall, "memory_limit_mb": budget.memory_mb}
    if measured.outcome == "exited" and measured.returncode == 0 and out.is_file():
        attempt = _attempt_from_json(json.loads(out.read_text()))
        attempt.counters.update(measures)
        verdict = None if attempt.reason == "refused" else validate_attempt(domain, Path(row["path"]), attempt)
        return record(row, best, Outcome(attempt, verdict))
    from genplan.planners.base import Attempt

    if measured.outcome in ("cpu_limit", "wall_limit"):
        reason = "time_limit"
    elif measured.outcome == "memory_limit" or (measured.returncode != 0 and limits.names_out_of_memory(log_text)):
        reason = "memory_limit"
    else:
        last = next((line for line in reversed(log_text.strip().splitlines()) if line.strip()), "")
        reason = "error"
        measures["message"] = f"exit {measured.returncode}: {last}"[:300]
        log.warning("%s: the planner process ended with exit %s: %s", row["problem"], measured.returncode, last)
    return record(row, best, Outcome(Attempt([], reason, measured.wall_time, counters=measures), None))


def evaluate_rows(checkpoint: str | Path, domain: Path, strategy: str, settings: dict, tasks: list[tuple],
                  budget: limits.Limits, jobs: int = 1):
    """Yield (index, record) for each of `tasks` ((row, best, reference) as
    genplan.evaluation.problem.evaluate_problem takes them), each planned by a child process under `budget`,
    `jobs` children at once (one a core: the rule asks for `jobs` threads)."""
    from genplan.pddl_io import atom_to_str

    settings = child_settings(settings, budget)
    env = {**os.environ, **{name: "1" for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                                                   "NUMEXPR_NUM_THREADS", "VECLIB_MAXIMUM_THREADS")}}

    def one(index: int) -> tuple[int, dict]:
        row, _, reference = tasks[index]
        with tempfile.TemporaryDirectory(prefix=f"genplan-isolated-{os.getpid()}-") as tmp:
            spec, out, child_log = Path(tmp) / "spec.json", Path(tmp) / "attempt.json", Path(tmp) / "log"
            spec.write_text(json.dumps({
                "checkpoint": str(Path(checkpoint).resolve()), "domain": str(Path(domain).resolve()),
                "problem": str(Path(row["path"]).resolve()), "strategy": strategy, "settings": settings,
                "reference": None if reference is None else [atom_to_str(a) for a in reference]}))
            with open(child_log, "w+") as handle:
                measured = limits.run([sys.executable, "-m", "genplan.evaluation.isolated", str(spec), str(out)], budget,
                                      stdout=handle, stderr=subprocess.STDOUT, env=env,
                                      register=lambda proc: running.__setitem__(proc.pid, proc))
                handle.seek(0)
                text = handle.read()
            return index, _row(Path(domain), tasks[index], budget, measured, out, text)

    running: dict[int, subprocess.Popen] = {}  # the children started, to end on an interruption
    pool = ThreadPoolExecutor(max(1, jobs), thread_name_prefix="genplan-isolated")
    try:
        for future in [pool.submit(one, i) for i in range(len(tasks))]:
            yield future.result()
    finally:  # a signal, an error, or the caller closing the generator: no child outlives it
        pool.shutdown(wait=False, cancel_futures=True)
        for proc in list(running.values()):
            if proc.returncode is None:
                limits.kill_group(proc.pid)
        pool.shutdown(wait=True)


if __name__ == "__main__":
    raise SystemExit(child_main(sys.argv[1], sys.argv[2]))
