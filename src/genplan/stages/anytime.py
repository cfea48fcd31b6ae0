"""Stage 2b: anytime LAMA, a stronger best-known reference than LAMA's first plan.

For one (benchmark, domain, split), LAMA 2011 runs as an anytime planner to its time limit
(`lama_anytime` in genplan.stages.fast_downward: alias `seq-sat-lama-2011`, the last and cheapest
of its plans kept) on every problem the split's plans table leaves without a proven optimum; every
plan is checked by VAL. The IPC's quality score compares a plan with the best plan any
participant found; LAMA given its whole time limit, improving its plan all along (Richter and
Westphal 2010, JAIR 39), makes that reference stronger where no optimum is known.

Which problems run: the plans table (genplan.stages.plans) is read first. A problem whose
`astar_lmcut` row says `optimal` (A* + LM-cut proved its plan optimal, and VAL accepted the plan)
cannot be improved: it is not run and its row says `skipped-optimal`; one A* proved unsolvable
is not run either (`skipped-unsolvable`). So the table has exactly one row per problem of the
split, and one can read from it which problems were run and why the others were not.

Outputs, beside the plans stage's and in its format (genplan.formats.plans_table.COLUMNS, config
`lama_anytime`): the table `<split>.anytime.csv` and the folder `<split>.anytime/` of
`<problem>.lama_anytime.plan` files (genplan.paths.Layout.anytime_table / anytime_dir); the
folder is written first and the table last, atomically, and an interruption leaves neither. The
plans tables are not touched: nothing trained or evaluated from them is rerun."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

from genplan import atomic
from genplan.errors import GenplanError
from genplan.formats import manifest
from genplan.formats import plans_table as plans_format
from genplan.formats.tables import csv_text
from genplan.processes import run_pool
from genplan.progress import progress
from genplan.stages import plans as planning
from genplan.stages.fast_downward import run_fast_downward

log = logging.getLogger("genplan")

CONFIG = "lama_anytime"
# a proof in the plans table that anytime LAMA cannot beat: A*'s status -> this table's status
SKIPPED = {"optimal": "skipped-optimal", "unsolvable": "skipped-unsolvable"}


def anytime_config(cfg: dict) -> dict:
    """`lama_anytime` (and `memory_limit_mb`) of a planner section, the schema's defaults filled in."""
    from genplan.config_schema import section

    props = section("planner", CONFIG)
    defaults = {k: v["default"] for k, v in props.items() if "default" in v}
    return {"memory_limit_mb": cfg["memory_limit_mb"], CONFIG: {**defaults, **(cfg.get(CONFIG) or {})}}


def proofs(rows: list[dict], table: list[dict], where: str | Path) -> dict[str, dict]:
    """problem -> its plans-table row of A* + LM-cut where that row is a proof (optimal plan or
    unsolvable). GenplanError naming the plans table when it lacks a column, or when its problems
    are not the split's (a table of another split or an older benchmark)."""
    missing_cols = set(plans_format.REQUIRED) - set(table[0]) if table else set()
    if missing_cols:
        raise GenplanError(f"not a plans table: no column(s) {sorted(missing_cols)}", where)
    split = [r["problem"] for r in rows]
    planned = {r["problem"] for r in table}
    absent = [p for p in split if p not in planned]
    extra = sorted(planned - set(split))
    if absent or extra:
        what = (f"no row for problem(s) {absent[:5]} of the split" if absent
                else f"rows for problem(s) {extra[:5]} that the split does not have")
        raise GenplanError(f"{what}: this plans table was not made from this benchmark's split "
                           "(rerun `genplan plan` on it)", where)
    plans_format.check_problem_hashes(table, rows, where)
    return {r["problem"]: r for r in table if r["config"] == "astar_lmcut" and r["status"] in SKIPPED}


def _skipped(row: dict, proof: dict) -> dict:
    status = SKIPPED[proof["status"]]
    if proof["status"] == "optimal":
        reason = (f"A* + LM-cut proved its {proof['plan_length']}-step plan optimal (plans table): "
                  "anytime LAMA cannot improve on it")
    else:
        reason = "A* + LM-cut proved the problem unsolvable (plans table)"
    return {"problem": row["problem"], "config": CONFIG, "status": status, "plan_length": "", "time": "",
            "valid": "", "reason": reason, "plan_file": ""}


def summary(table: list[dict]) -> str:
    """`anytime LAMA ran on 3/5 problems (2 skipped: proven optimal or unsolvable), 3 VAL-valid plans`."""
    ran = [r for r in table if not r["status"].startswith("skipped-")]
    valid = sum(r["valid"] == "yes" for r in ran)
    return (f"anytime LAMA ran on {len(ran)}/{len(table)} problems ({len(table) - len(ran)} skipped: proven "
            f"optimal or unsolvable), {valid} VAL-valid plans")


def anytime_split(benchmark_dir: str | Path, split: str, plans_table: str | Path, cfg: dict, out_dir: str | Path,
                  out_table: str | Path, threads: int = 1) -> list[dict]:
    """Run anytime LAMA on the split's problems without a proven optimum (`threads` at once), one
    run of `cfg["lama_anytime"]["time_limit"]` seconds each; `cfg` is the planner section (its
    `lama_anytime` and `memory_limit_mb`). Writes the plans folder and then the table (one row per
    problem of the split, in the manifest's order); returns the table."""
    cfg = anytime_config(cfg)
    if not cfg[CONFIG].get("enabled", True):
        raise GenplanError("planner.lama_anytime.enabled is false: nothing to run")
    benchmark_dir = Path(benchmark_dir)
    domain = benchmark_dir / "domain.pddl"
    rows = manifest.read(benchmark_dir, split)
    proven = proofs(rows, plans_format.read_table(plans_table), plans_table)
    todo = [r for r in rows if r["problem"] not in proven]
    limit, mem = cfg[CONFIG]["time_limit"], cfg["memory_limit_mb"]
    table: list[dict] = []
    publishing = False
    try:
        with atomic.output_dir(out_dir, owner="plan-anytime") as tmp_dir:
            if todo:
                with run_pool(threads) as pool:
                    jobs = pool.map(lambda r: (r, run_fast_downward(domain, r["path"], CONFIG, limit, mem)), todo)
                    for row, result in progress(jobs, total=len(todo), desc=f"anytime LAMA {split}"):
                        table.extend(planning.record_runs(row, [result], domain, Path(tmp_dir), main_configs=()))
            table.extend(_skipped(r, proven[r["problem"]]) for r in rows if r["problem"] in proven)
            publishing = True
        index = {r["problem"]: i for i, r in enumerate(rows)}
        table.sort(key=lambda r: index[r["problem"]])
        table = plans_format.with_hashes(table, rows)
        atomic.write_text(out_table, csv_text(table, plans_format.COLUMNS))
    except BaseException:
        if publishing:  # cut short between the two renames: no folder without its table
            shutil.rmtree(out_dir, ignore_errors=True)
            Path(out_table).unlink(missing_ok=True)
        raise
    log.info("%s: %s", split, summary(table))
    return table
