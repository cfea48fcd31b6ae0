"""The one rule every table counts a solved problem by: a VAL-valid plan found within the run's
declared budget, loading included. Every report module counts through these functions.

A run's seconds on a problem: under the resource protocol (genplan.limits) the CPU seconds of its
whole run, which is what the protocol limits, for Fast Downward's rows (the plans table's `cpu_time`)
and a learned planner's (the evaluation row's `cpu_time` counter) alike; for rows made before the
protocol, the wall-clock seconds the row recorded: a Fast Downward run's whole driver run (`time`), a
learned row's `time` plus its process's loading (`load_time`, where recorded). The budget: a plans
table configuration's `time_limit` (the plans folder's limits.json), a learned row's `time_limit`
counter. A row without a declared budget counts by VAL alone.

`starved`: an unsolved row measured under the protocol whose CPU seconds per wall second fall below
genplan.limits.STARVED_RATIO: it shared its core, and its time-out says little about the planner."""

from __future__ import annotations

import json

from genplan import limits


def counters(row: dict) -> dict:
    value = row.get("counters")
    if isinstance(value, dict):
        return value
    return json.loads(value or "{}")


def _number(value) -> float | None:
    return None if value in ("", None) else float(value)


def evaluation_seconds(row: dict) -> float | None:
    """A learned row's seconds (see the module's docstring); None where nothing was timed."""
    c = counters(row)
    if c.get("cpu_time") is not None:
        return float(c["cpu_time"])
    seconds = _number(row.get("time"))
    if seconds is None:
        return None
    return seconds + float(c["load_time"]) if c.get("load_time") is not None else seconds


def evaluation_budget(row: dict) -> float | None:
    return _number(counters(row).get("time_limit"))


def evaluation_counts(row: dict) -> bool:
    """Whether a learned row counts solved: VAL-valid (`solved` yes) within its budget."""
    if row.get("solved") != "yes":
        return False
    budget, seconds = evaluation_budget(row), evaluation_seconds(row)
    return budget is None or seconds is None or seconds <= budget


def plans_seconds(row: dict) -> float | None:
    """A plans-table row's seconds: its `cpu_time` under the protocol, else its `time`."""
    cpu = _number(row.get("cpu_time"))
    return cpu if cpu is not None else _number(row.get("time"))


def plans_counts(row: dict, budget: float | None) -> bool:
    """Whether a Fast Downward row counts solved: a VAL-valid plan within `budget` (its configuration's
    declared time limit; None: VAL alone). Reference plans have no time and count by VAL."""
    if row.get("valid") != "yes" or row.get("plan_length") in ("", None):
        return False
    seconds = plans_seconds(row)
    return budget is None or seconds is None or seconds <= float(budget)


def evaluation_starved(row: dict) -> bool:
    if row.get("solved") == "yes":
        return False
    c = counters(row)
    return c.get("cpu_time") is not None and limits.starved(c.get("cpu_time"), c.get("wall_time"))


def plans_starved(row: dict) -> bool:
    if row.get("valid") == "yes":
        return False
    return _number(row.get("cpu_time")) is not None and limits.starved(_number(row["cpu_time"]),
                                                                       _number(row.get("time")))
