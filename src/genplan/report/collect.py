"""Reading the pipeline's result files for the reports (nothing is computed from code constants).

- evaluation CSVs: results/evaluation/<benchmark>/<domain>/<model>/seed<seed>/<split>.<strategy>.csv
- plans tables:    results/plans/<benchmark>/<domain>/<split>.csv
  and anytime LAMA's beside them, <split>.anytime.csv (genplan.stages.anytime), read with them
- training summaries: results/models/<benchmark>/<domain>/<model>/seed<seed>/summary.json (model,
  family, system, variant, then the family's own fields)
"""

from __future__ import annotations

import json
from pathlib import Path

from genplan.errors import GenplanError
from genplan.formats import plans_table as plans_format
from genplan.formats.evaluation_csv import read_evaluation
from genplan.formats.tables import read_csv
from genplan.paths import ALL_SPLITS, Layout

SPLITS = tuple(s for s in ALL_SPLITS if s != "train")  # the splits whose plans tables the reports read
TRAINING = "train"  # the training split: evaluated as a sanity check only (genplan.report.budget)
SUMMARY_KEYS = ("model", "family", "system", "variant")  # what every training summary names first
# every field of a training summary that a report reads (the leaderboard, the model-sizes table), each
# a tuple of the names it may go by: a family whose summary lacks one leaves a blank in a table
REPORTED = (*((k,) for k in SUMMARY_KEYS), ("device",), ("job_time_s",), ("job_cpu_s",),
            ("parameters", "lstm_parameters", "xgb_nodes"))


def evaluation_rows(results: Path, training: bool = False) -> list[dict]:
    """Every row of every evaluation CSV under `results` (genplan.formats.evaluation_csv.COLUMNS), each with
    its `source` file and its `counters` parsed; the training split's (`TRAINING`: a sanity check,
    read by the budget curves, genplan.report.budget) only with `training`, so that no other report
    counts a model's own training problems."""
    rows = []
    for path in Layout(str(results)).evaluation_files():
        if not training and path.name.split(".", 1)[0] == TRAINING:  # <split>.<strategy>.csv
            continue
        for r in read_evaluation(path):
            r["source"] = str(path)
            r["counters"] = json.loads(r["counters"] or "{}")
            rows.append(r)
    return rows


def plans_tables(results: Path, anytime: bool = True) -> dict[tuple[str, str, str], list[dict]]:
    """(benchmark, domain, split) -> the split's plans table rows, followed (`anytime`) by the rows
    of the split's anytime LAMA table where there is one (config `lama_anytime`: its plans count
    for the best-known lengths; every report selects the configurations it shows by name, so the
    extra rows change nothing else). `<split>.anytime.csv` is never a split of its own; one without
    its split's plans table is left out."""
    out = {}
    plans = results / "plans"
    for path in sorted(plans.glob("*/*/*.csv")):
        if path.stem in SPLITS:
            out[(path.parent.parent.name, path.parent.name, path.stem)] = plans_format.read_table(path)
    if anytime:
        for (bench, dom, split), rows in out.items():
            extra = Path(Layout(str(results)).anytime_table(bench, dom, split))
            if extra.is_file():
                rows.extend(plans_format.read_table(extra))
    return out


def training_summaries(results: Path, families: tuple[str, ...] | None = None) -> list[dict]:
    """Every training summary (`summary.json`) under `results`, or those of `families`, with
    benchmark, domain and seed from its path; GenplanError for one that does not name its model,
    family, system and variant (`SUMMARY_KEYS`: the reports never guess them)."""
    out = []
    for path in sorted((results / "models").glob("*/*/*/seed*/summary.json")):
        try:
            data = json.loads(path.read_text())
        except json.JSONDecodeError as exc:
            raise GenplanError(f"not JSON: {exc}", path) from None
        missing = [k for k in SUMMARY_KEYS if k not in data] if isinstance(data, dict) else list(SUMMARY_KEYS)
        if missing:
            raise GenplanError(f"not a training summary of this genplan: no {missing}", path)
        if families is None or data["family"] in families:
            seed_dir, model_dir = path.parent, path.parent.parent
            out.append({**data, "benchmark": model_dir.parent.parent.name, "domain": model_dir.parent.name,
                        "seed": seed_dir.name.removeprefix("seed"), "source": str(path)})
    return out


def training_log(summary: dict) -> list[dict]:
    """The rows of the training log (`training.csv`) beside a summary from `training_summaries`;
    [] where a run kept none."""
    path = Path(summary["source"]).with_name("training.csv")
    return read_csv(path, "training log") if path.is_file() else []


def missing_reported(summary: dict) -> list[str]:
    """The fields of `REPORTED` that a training summary lacks (each named by its first name)."""
    return [names[0] for names in REPORTED if summary_value(summary, *names) is None]


def summary_value(summary: dict, *names: str):
    """The first of `names` found in a summary (top level or one level down), else None."""
    for name in names:
        if name in summary:
            return summary[name]
    for value in summary.values():
        if isinstance(value, dict):
            for name in names:
                if name in value:
                    return value[name]
    return None
