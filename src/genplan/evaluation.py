"""Stage 7 for the state-centric models: decode every problem of one split with one model, one
seed and one beam mode; VAL checks every plan; one CSV row per problem.

A problem counts as solved only when the decoder reached a goal state AND VAL accepts the plan.
Quality is best-known length / plan length, the best-known length being the shortest VAL-valid
plan of any planner run in the split's plans table (A*, GBFS, LAMA, reference plans).
"""

from __future__ import annotations

import csv
import logging
import re
from pathlib import Path

from genplan import manifest, tables
from genplan.stages import plans as planning
from genplan.planners.beam import DecodeConfig
from genplan.errors import GenplanError
from genplan.progress import progress

log = logging.getLogger("genplan")

COLUMNS = [
    "benchmark", "domain", "split", "model", "encoding", "learner", "mode", "seed", "beam_mode", "beam",
    "problem", "size", "num_objects", "horizon", "solved", "reason", "val", "plan_length",
    "best_known", "quality", "time", "steps", "expansions", "embedded",
]


def _seed_of(checkpoint: Path, model) -> str:
    seed = getattr(model, "seed", None)
    if seed is not None:
        return str(seed)
    m = re.search(r"seed(\d+)", str(checkpoint))
    return m.group(1) if m else ""


def evaluate_split(checkpoint: str | Path, benchmark_dir: str | Path, split: str, plans_table: str | Path,
                   params: dict, out: str | Path, benchmark: str | None = None, seed: str | None = None,
                   model=None) -> list[dict]:
    """Evaluate one (model, seed, split, beam mode) job and write its CSV atomically."""
    from genplan.planners.solve import domain_key, load_model  # pymimir, torch: not needed by the report

    benchmark_dir, checkpoint = Path(benchmark_dir), Path(checkpoint)
    domain = benchmark_dir / "domain.pddl"
    if not domain.is_file():
        raise GenplanError("domain.pddl missing: not a benchmark folder made by genplan", domain)
    cfg = DecodeConfig.from_params(params)
    model = model if model is not None else load_model(checkpoint, domain)
    best = planning.best_known_lengths(_read_plans_table(plans_table))
    rows = manifest.read(benchmark_dir, split)
    if not rows:
        raise GenplanError(f"no problems of split {split!r} in the manifest", benchmark_dir / "manifest.csv")
    common = {
        "benchmark": benchmark or benchmark_dir.parent.name, "domain": domain_key(domain), "split": split,
        "model": model.name, "encoding": model.encoding, "learner": model.learner, "mode": model.mode,
        "seed": seed if seed is not None else _seed_of(checkpoint, model),
        "beam_mode": cfg.beam_mode, "beam": cfg.beam,
    }
    records = []
    for row in progress(rows, total=len(rows), desc=f"{model.name} {split} {cfg.beam_mode}"):
        records.append({**common, **_evaluate_problem(model, domain, row, cfg, best.get(row["problem"]))})
    tables.write_csv(out, records, COLUMNS)
    solved = sum(r["solved"] == "yes" for r in records)
    log.info("%s %s (%s beam): %d/%d solved", model.name, split, cfg.beam_mode, solved, len(records))
    return records


def _read_plans_table(path: str | Path) -> list[dict]:
    if not Path(path).is_file():
        raise GenplanError("plans table not found", path)
    table = planning.read_table(path)
    if table and not {"problem", "valid", "plan_length"} <= set(table[0]):
        raise GenplanError("not a plans table (columns problem, valid, plan_length expected)", path)
    return table


def _evaluate_problem(model, domain: Path, row: dict, cfg: DecodeConfig, best: int | None) -> dict:
    rec = {"problem": row["problem"], "size": row["size"], "num_objects": row["num_objects"],
           "horizon": cfg.horizon(row["num_objects"]), "best_known": "" if best is None else best}
    from genplan.planners.solve import decode_and_validate

    try:
        outcome = decode_and_validate(model, domain, row["path"], cfg)
    except GenplanError as exc:  # e.g. FSF refuses a problem with more objects than slots
        log.warning("%s: %s", row["problem"], exc.message)
        return {**rec, "solved": "no", "reason": f"refused: {exc.message}", "val": "", "plan_length": "",
                "quality": "", "time": "", "steps": 0, "expansions": 0, "embedded": 0}
    d, verdict = outcome.decoded, outcome.verdict
    reason = d.reason if not d.solved or verdict.valid else "val_rejected"
    length = len(d.plan) if outcome.solved else ""
    quality = f"{best / length:.4f}" if outcome.solved and best is not None and length else ""
    return {
        **rec, "solved": "yes" if outcome.solved else "no", "reason": reason,
        "val": "valid" if verdict.valid else verdict.message, "plan_length": length, "quality": quality,
        "horizon": d.horizon, "time": f"{d.time:.4f}", "steps": d.steps, "expansions": d.expansions,
        "embedded": d.embedded,
    }


def read_evaluation(path: str | Path) -> list[dict]:
    """Rows of one evaluation CSV; GenplanError names the file when columns are missing."""
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    missing = set(COLUMNS) - set(rows[0]) if rows else set()
    if missing:
        raise GenplanError(f"evaluation CSV lacks columns {sorted(missing)}", path)
    return rows
