"""`genplan plan-files`: loose problem files given by hand, planned by one Fast Downward
configuration (or A* + LM-cut then GBFS + FF), every plan checked by VAL, the plans and one table
written into a folder replaced as a whole (genplan.stages.plans makes the records; this module the
command's folder and its one-line report per problem)."""

from __future__ import annotations

import logging
from pathlib import Path

from genplan import atomic, outputs
from genplan.errors import GenplanError
from genplan.formats.plans_table import COLUMNS, with_hashes
from genplan.formats.tables import csv_text
from genplan.processes import run_pool
from genplan.stages.fast_downward import plan_with_fallback, run_fast_downward
from genplan.stages.plans import NOT_PLANNED, PLANNERS, MalformedProblems, not_planned_rows, parse_problems, record_runs

log = logging.getLogger("genplan")
TABLE_NAME = "plans.csv"  # `plan_files`' table, inside its output folder


def plan_files(domain: str | Path, problems: list[str | Path], planner: str, time_limit: float, memory_limit_mb: int,
               out_dir: str | Path, threads: int = 1, on_problem=None) -> list[dict]:
    """Plan loose problem files with one `planner` (PLANNERS; `default`: A* + LM-cut, then GBFS +
    FF if A* neither finds a plan nor proves unsolvability), `time_limit` seconds each run.
    Writes `out_dir` (replaced as a whole, atomically): `<problem>.plan` for every problem with a
    VAL-valid plan, and the table `plans.csv` (a problem is named by its file's stem); a plan VAL
    rejects is kept as `<problem>.<config>.rejected.plan`. `on_problem(name, rows)` is called for
    each problem, in the given order, as its results come. Returns the table; MalformedProblems
    after writing when some problem could not be parsed."""
    if planner not in PLANNERS:
        raise ValueError(f"Unknown value {planner=}. Must be from {sorted(PLANNERS)}")
    domain = Path(domain)
    out_dir = Path(out_dir)
    rows, seen = [], {}
    for p in map(Path, problems):
        if p.resolve() == domain.resolve():
            log.info("skipping %s: it is the domain file", p)
            continue
        if p.stem in seen:
            raise GenplanError(f"two problems named {p.stem!r} ({seen[p.stem]} and {p}): plan files "
                               "are named by the problem file's name, rename one", p)
        seen[p.stem] = p
        rows.append({"problem": p.stem, "path": p})
    if not rows:
        raise GenplanError("no problem file given")
    outputs.check_out_dir(out_dir, "plan-files")
    malformed = parse_problems(rows, domain)
    configs = PLANNERS[planner]
    cfg_time = {"time_limit": time_limit}

    def plan_one(row):
        if planner == "default":
            return plan_with_fallback(domain, row["path"], cfg_time, cfg_time, memory_limit_mb)
        return [run_fast_downward(domain, row["path"], planner, time_limit, memory_limit_mb)]

    table: list[dict] = []
    with atomic.output_dir(out_dir, owner="plan-files") as tmp_dir:
        with run_pool(threads) as pool:
            futures = {r["problem"]: pool.submit(plan_one, r) for r in rows if r["problem"] not in malformed}
            for row in rows:
                if row["problem"] in malformed:
                    records = not_planned_rows(row, configs[:1], malformed[row["problem"]])
                else:
                    records = record_runs(row, futures[row["problem"]].result(), domain, Path(tmp_dir),
                                      main_configs=configs, per_config_files=False)
                table.extend(records)
                if on_problem is not None:
                    on_problem(row["problem"], records)
        (Path(tmp_dir) / TABLE_NAME).write_text(csv_text(with_hashes(table, rows), COLUMNS))
    if malformed:
        raise MalformedProblems(malformed, table, str(out_dir / TABLE_NAME))
    return table


def problem_line(name: str, records: list[dict]) -> str:
    """One line for a problem: status, configuration, plan length, time and VAL's verdict, e.g.
    `p01: satisficing by gbfs_ff (after astar_lmcut: timeout), 12 steps, 3.10 s, VAL: valid`."""
    if not records:
        return f"{name}: no run"
    chosen = next((r for r in records if r["valid"] == "yes"), records[-1])
    if chosen["reason"].startswith(NOT_PLANNED):
        return f"{name}: error, {chosen['reason']}"
    before = records[:records.index(chosen)]
    earlier = ", ".join(f"{r['config']}: {r['status']}" for r in before)
    after = f" (after {earlier})" if before else ""
    parts = [f"{name}: {chosen['status']} by {chosen['config']}{after}"]
    if chosen["plan_length"] != "":
        parts.append(f"{chosen['plan_length']} steps")
    total = sum(float(r["time"]) for r in records if r["time"] != "")
    parts.append(f"{total:.2f} s")
    if chosen["valid"] == "yes":
        parts.append("VAL: valid")
    elif chosen["valid"] == "no":
        parts.append("VAL: rejected: " + chosen["reason"].removeprefix("VAL rejected the plan: "))
    else:
        parts.append("VAL: no plan" + (f" ({chosen['reason']})" if chosen["reason"] else ""))
    return ", ".join(parts)
