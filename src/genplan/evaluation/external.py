"""An outside planner's runs as an evaluation of the pipeline's own (`genplan import-runs`): the plans
a planner the pipeline does not run wrote, each run made under the resource protocol by `genplan
limit`, checked against the task and by VAL, written as an evaluation CSV and its stored plans, so that
every report counts them by the same rule as ours (system given by --system, e.g. `wl_goose`).

A runs folder holds one folder a problem, named as the split's manifest names it, with
- `measure.json`: what `genplan limit` wrote (CPU and wall seconds, peak memory, how the run ended,
  the limits);
- the plan the planner wrote (`--plan-name`, default `plan`; absent where it found none);
- optionally `log`: its output, from which expansions are read where it prints Fast Downward's
  "Expanded N state(s)." line.
A problem of the split without a folder, or a folder of a problem the split does not have, is refused
with the folder named: an evaluation has one row per problem of its split."""

from __future__ import annotations

import json
from pathlib import Path

from genplan.errors import GenplanError
from genplan.formats import manifest


def _attempt(run_dir: Path, plan_name: str):
    """The row's Attempt from one run folder (plan, reason, counters with the measurement)."""
    from genplan.pddl_io import read_plan
    from genplan.planners.base import Attempt
    from genplan.stages.fast_downward import expansions

    measure_path = run_dir / "measure.json"
    try:
        measure = json.loads(measure_path.read_text())
    except FileNotFoundError:
        raise GenplanError("no measure.json (the run's `genplan limit --out`)", measure_path) from None
    except (OSError, json.JSONDecodeError) as exc:
        raise GenplanError(f"not a measurement: {exc}", measure_path) from None
    try:
        lim = measure["limits"]
        counters = {"cpu_time": round(float(measure["cpu_time"]), 3), "wall_time": round(float(measure["wall_time"]), 3),
                    "peak_memory_mb": round(float(measure["peak_memory_mb"]), 1), "ended": str(measure["outcome"]),
                    "time_limit": float(lim["cpu_s"]), "wall_limit": float(lim["wall_s"]),
                    "memory_limit_mb": lim.get("memory_mb"), "run_start": measure.get("started"),
                    "run_end": measure.get("ended")}
    except (KeyError, TypeError, ValueError) as exc:
        raise GenplanError(f"not a measurement of `genplan limit` (missing or bad {exc})", measure_path) from None
    log = run_dir / "log"
    found = expansions(log.read_text(errors="replace")) if log.is_file() else None
    plan_path = run_dir / plan_name
    ended = counters["ended"]
    if plan_path.is_file() and ended in ("exited", "cpu_limit", "wall_limit", "memory_limit"):
        plan = read_plan(plan_path)
        # a plan written before the limit ended the run is the planner's answer; the budget rule decides
        return Attempt(plan, "goal", counters["cpu_time"], states_expanded=found or 0, counters=counters)
    reason = {"cpu_limit": "time_limit", "wall_limit": "time_limit", "memory_limit": "memory_limit"}.get(
        ended, "error" if measure.get("returncode", 0) != 0 else "dead_end")
    if reason == "error":
        counters["message"] = f"exit {measure.get('returncode')} without a plan"
    return Attempt([], reason, counters["cpu_time"], states_expanded=found or 0, counters=counters)


def import_runs(benchmark_dir: str | Path, split: str, plans_table: str | Path, runs_dir: str | Path, system: str,
                model: str, strategy: str, out: str | Path, benchmark: str, plan_name: str = "plan",
                variant: str = "", seed: str = "0") -> list[dict]:
    """Write the evaluation CSV `out` (and its stored plans beside it) of the runs under `runs_dir`."""
    from genplan.domains import domain_key
    from genplan.evaluation.problem import record
    from genplan.evaluation.split import read_plans_table, write_outputs
    from genplan.formats import plans_table as plans_format
    from genplan.planners.solve import Outcome, validate_attempt

    benchmark_dir, runs_dir = Path(benchmark_dir), Path(runs_dir)
    domain = benchmark_dir / "domain.pddl"
    rows = manifest.read(benchmark_dir, split)
    if not runs_dir.is_dir():
        raise GenplanError("runs folder not found", runs_dir)
    names = {r["problem"] for r in rows}
    stray = sorted(p.name for p in runs_dir.iterdir() if p.is_dir() and p.name not in names)
    missing = sorted(names - {p.name for p in runs_dir.iterdir() if p.is_dir()})
    if stray or missing:
        raise GenplanError(f"the runs do not match split {split!r}: " + "; ".join(
            x for x in (f"no run of {', '.join(missing)}" if missing else "",
                        f"runs of problems the split does not have: {', '.join(stray)}" if stray else "") if x),
            runs_dir)
    best = plans_format.best_known_lengths(read_plans_table(plans_table, rows, split))
    common = {"benchmark": benchmark, "domain": domain_key(domain), "split": split, "system": system,
              "variant": variant, "model": model, "seed": seed, "strategy": strategy}
    records = []
    for row in rows:
        attempt = _attempt(runs_dir / row["problem"], plan_name)
        verdict = validate_attempt(domain, Path(row["path"]), attempt) if attempt.reached_goal else None
        records.append({**common, **record(row, best.get(row["problem"]), Outcome(attempt, verdict))})
    from genplan.formats import stored_plans

    write_outputs(out, stored_plans.plans_path(out), records, benchmark_dir, domain,
                  {r["problem"]: r["path"] for r in rows})
    return records
