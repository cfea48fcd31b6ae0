"""One problem's row of an evaluation (genplan.formats.evaluation_csv.COLUMNS): plan it with a planner held in
memory, VAL-check the plan (genplan.planners.solve), measure. Used by `genplan evaluate` in its own
process (genplan.evaluation.split) and in its worker processes (genplan.evaluation.parallel), so that neither
of those imports the other for it."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

log = logging.getLogger("genplan")


def counters_json(counters: dict) -> str:
    return json.dumps(counters, sort_keys=True, separators=(",", ":"))


def process_age() -> float | None:
    """Seconds since this process started (Linux's /proc: the interpreter's start, the imports and
    whatever ran since), None where /proc is not there. `genplan evaluate` records it, taken when the
    model is loaded and its planner made, as each row's `load_time` counter: what a planner started
    for one problem pays before it reads the problem (so that one budget holds, loading
    included, for a learned planner and Fast Downward, whose driver's wall time holds its own start)."""
    try:
        with open("/proc/self/stat") as f:
            started = int(f.read().rsplit(")", 1)[1].split()[19])  # field 22: starttime, clock ticks after boot
        with open("/proc/uptime") as f:
            uptime = float(f.read().split()[0])
        return max(0.0, uptime - started / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError):
        return None


def _quality(best: int, length: int) -> str:
    """best-known / plan length; an empty plan where the best known is empty too (a goal true
    initially) is of quality 1."""
    if length == 0:
        return "1.0000" if best == 0 else ""
    return f"{best / length:.4f}"


def evaluate_problem(planner, domain: Path, row: dict, best: int | None, reference: list | None = None,
                     load_time: float | None = None) -> dict:
    """One row's problem-specific columns: plan, VAL-check, measure; and `plan`, the planner's
    plan as action strings (None where refused), stored beside the CSV. `load_time` (process_age when
    the planner was ready) goes into the counters; `time` stays the problem's own (parsing, grounding,
    search)."""
    from genplan.planners.base import Problem
    from genplan.planners.solve import solve_and_validate

    outcome = solve_and_validate(planner, Problem(domain, row["path"], reference))
    if load_time is not None:
        outcome.attempt.counters["load_time"] = round(load_time, 4)
    return record(row, best, outcome)


def record(row: dict, best: int | None, outcome) -> dict:
    """The row of one problem from its planner's attempt and VAL's verdict (a
    genplan.planners.solve.Outcome; verdict None where the planner refused the problem or never
    returned a plan)."""
    from genplan.pddl_io import atom_to_str

    a, verdict = outcome.attempt, outcome.verdict
    counters = {"states_expanded": a.states_expanded, **a.counters}
    if a.tokens_generated:
        counters["tokens_generated"] = a.tokens_generated
    rec = {"problem": row["problem"], "size": row["size"], "num_objects": row["num_objects"],
           "plan": None if a.reason == "refused" or verdict is None else [atom_to_str(x) for x in a.plan],
           "horizon": "" if a.horizon is None else a.horizon, "best_known": "" if best is None else best,
           "steps": a.steps, "model_calls": a.model_calls, "counters": counters_json(counters)}
    if a.reason == "refused":
        log.warning("%s: %s", row["problem"], a.counters.get("message", "refused"))
        return {**rec, "solved": "no", "reason": "refused", "val": "", "plan_length": "", "quality": "", "time": ""}
    if verdict is None:  # ended before it returned a plan (the resource protocol's limits, a crash)
        return {**rec, "solved": "no", "reason": a.reason, "val": "", "plan_length": "", "quality": "",
                "time": f"{a.time:.4f}"}
    reason = a.reason if not a.reached_goal or verdict.valid else "val_rejected"
    length = len(a.plan) if outcome.solved else ""
    quality = _quality(best, length) if outcome.solved and best is not None else ""
    return {**rec, "solved": "yes" if outcome.solved else "no", "reason": reason,
            "val": "valid" if verdict.valid else verdict.message, "plan_length": length, "quality": quality,
            "time": f"{a.time:.4f}"}
