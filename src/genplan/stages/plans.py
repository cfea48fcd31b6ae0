"""Stage 2: plan every problem of one (benchmark, domain, split) with Fast Downward, check every
plan with VAL, and write the plans and one table of statuses."""

from __future__ import annotations

import csv
import logging
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from genplan import atomic, manifest, val
from genplan.errors import GenplanError
from genplan.pddl_io import plan_to_text
from genplan.stages.fast_downward import PlanResult, plan_with_fallback, run_fast_downward
from genplan.progress import progress
from genplan.tables import csv_text

log = logging.getLogger("genplan")

COLUMNS = ("problem", "config", "status", "plan_length", "time", "valid", "reason", "plan_file")
# Which plan a problem's trajectory is made of: the first of these that solved it.
MAIN_CONFIGS = ("astar_lmcut", "gbfs_ff")


def _plan_problem(row: dict, domain: Path, cfg: dict) -> list[PlanResult]:
    mem = cfg["memory_limit_mb"]
    results = plan_with_fallback(domain, row["path"], cfg["optimal"], cfg["fallback"], mem)
    if cfg["lama"].get("enabled", True):
        results.append(run_fast_downward(domain, row["path"], "lama_first", cfg["lama"]["time_limit"], mem))
    return results


def plan_split(benchmark_dir: str | Path, split: str, cfg: dict, out_dir: str | Path, out_table: str | Path, threads: int = 1) -> list[dict]:
    """Plan one split, `threads` problems at once; `cfg` is the configuration's `planner` section."""
    benchmark_dir = Path(benchmark_dir)
    domain = benchmark_dir / "domain.pddl"
    rows = manifest.read(benchmark_dir, split)
    table: list[dict] = []
    with atomic.output_dir(out_dir) as tmp_dir, ThreadPoolExecutor(max(1, int(threads))) as pool:
        jobs = pool.map(lambda r: (r, _plan_problem(r, domain, cfg)), rows)
        for row, results in progress(jobs, total=len(rows), desc=f"planning {split}"):
            table.extend(_record(row, results, domain, Path(tmp_dir)))
        for row in rows:  # reference plans shipped with imported instances
            ref = benchmark_dir / "reference-plans" / split / f"{row['problem']}.plan"
            if ref.is_file():
                table.append(_record_plan_file(row, "reference", ref, domain, Path(tmp_dir)))
    # the table is renamed into place last: it never stands beside a missing plans folder
    order = {c: i for i, c in enumerate(("astar_lmcut", "gbfs_ff", "lama_first", "reference"))}
    index = {r["problem"]: i for i, r in enumerate(rows)}
    table.sort(key=lambda r: (index[r["problem"]], order[r["config"]]))
    atomic.write_text(out_table, csv_text(table, COLUMNS))
    solved = {r["problem"] for r in table if r["config"] in MAIN_CONFIGS and r["valid"] == "yes"}
    log.info("%s: %d/%d problems have a plan", split, len(solved), len(rows))
    return table


def _record(row: dict, results: list[PlanResult], domain: Path, out: Path) -> list[dict]:
    records = []
    main_written = False
    for res in results:
        rec = {
            "problem": row["problem"], "config": res.config, "status": res.status,
            "plan_length": "", "time": f"{res.time:.3f}", "valid": "", "reason": res.reason, "plan_file": "",
        }
        if res.plan is not None:
            name = f"{row['problem']}.{res.config}.plan"
            (out / name).write_text(plan_to_text(res.plan))
            verdict = val.validate(domain, row["path"], out / name)
            rec.update(plan_length=len(res.plan), plan_file=name, valid="yes" if verdict.valid else "no")
            if not verdict.valid:
                rec.update(status="error", reason=f"VAL rejected the plan: {verdict.message}")
            elif res.config in MAIN_CONFIGS and not main_written:
                (out / f"{row['problem']}.plan").write_text(plan_to_text(res.plan))
                main_written = True
        records.append(rec)
    return records


def _record_plan_file(row: dict, config: str, plan_path: Path, domain: Path, out: Path) -> dict:
    name = f"{row['problem']}.{config}.plan"
    (out / name).write_bytes(plan_path.read_bytes())
    verdict = val.validate(domain, row["path"], out / name)
    return {
        "problem": row["problem"], "config": config,
        "status": "satisficing" if verdict.valid else "error",
        "plan_length": verdict.plan_length if verdict.plan_length is not None else "",
        "time": "", "valid": "yes" if verdict.valid else "no",
        "reason": "" if verdict.valid else f"VAL rejected the plan: {verdict.message}", "plan_file": name,
    }


def read_table(path: str | Path) -> list[dict]:
    if not Path(path).is_file():
        raise GenplanError("table not found", path)
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def best_known_lengths(table: list[dict]) -> dict[str, int]:
    """Shortest VAL-valid plan per problem over every planner run (A*, GBFS, LAMA, reference)."""
    best: dict[str, int] = {}
    for r in table:
        if r["valid"] == "yes":
            n = int(r["plan_length"])
            best[r["problem"]] = min(n, best.get(r["problem"], n))
    return best
