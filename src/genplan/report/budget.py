"""Budget curves (workflow/configs/budget-cpu.yaml): each sequence system trained at
increasing budgets, planned on its training split (the sanity check), the validation split and the
test splits.

The models are the config's budget points, `<family>_b<NNN>` (genplan.report.registry.BUDGET_MODEL,
NNN the nominal CPU-minutes); their budget is fixed in examples presented, their CPU time measured.
Per (benchmark, domain, model, seed) a run reads its training summary (`summary.json`: system,
`job_cpu_s`, `optimizer_steps`, `epochs`, `best_epoch`, `best_score`: the validation loss of the
weights kept, and the training examples: `train_examples`, or `train_sequences` for PlanGPT and
diffusion) and its evaluation CSVs (coverage = solved / problems per split and strategy, every plan
VAL-checked: genplan.evaluation.split). Nothing is filled in: a cell not run reads "–" (empty in the CSV),
a run without a summary has no CPU time and no point in the figure.

Outputs per system (`BUDGET_SYSTEMS`: symt_e, symt_ed, plangpt, diffusion):
- tables/budget-<system>.csv: one row per run, split and strategy (`COLUMNS`), the run's own fields
  repeated; a split and strategy evaluated for another run of the system but not this one: a row with
  no coverage (not run);
- tables/budget-<system>.md: one row per run, a column per split and strategy (solved/problems);
- figures/budget-<system>.{png,pdf}: coverage against the measured training CPU-minutes (log x), one
  line per split, a panel per domain (columns) and strategy (rows), and a last row with the
  validation loss of the weights kept against the same CPU-minutes (mean over seeds per model)."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from genplan import atomic
from genplan.formats import tables
from genplan.paths import SPLITS, Layout
from genplan.report import collect, render
from genplan.report.registry import BUDGET_SYSTEMS, is_budget_model

FAMILIES = ("symt", "plangpt", "diffusion")
TITLES = {"symt_e": "SymT^E", "symt_ed": "SymT^ED", "plangpt": "PlanGPT", "diffusion": "masked diffusion"}
RUN_KEY = ("benchmark", "domain", "model", "seed")
RUN_COLUMNS = ["benchmark", "domain", "system", "model", "seed", "nominal_cpu_min", "train_examples", "epochs",
               "examples_presented", "cpu_min", "examples_per_cpu_s", "optimizer_steps", "best_epoch", "val_loss"]
COLUMNS = RUN_COLUMNS + ["split", "strategy", "solved", "problems", "coverage"]


def nominal_minutes(model: str) -> int:
    """The nominal CPU-minutes in a budget model's name (`<family>_b<NNN>`)."""
    return int(model.rsplit("_b", 1)[1])


def _number(value):
    return None if value in ("", None) else float(value)


def run_fields(summary: dict) -> dict:
    """A run's columns from its training summary (RUN_COLUMNS); None where the summary lacks a field."""
    examples = collect.summary_value(summary, "train_examples", "train_sequences")
    epochs, cpu_s = summary.get("epochs"), _number(summary.get("job_cpu_s"))
    presented = examples * epochs if examples is not None and epochs is not None else None
    loss = None if summary.get("stop") == "ces" else _number(summary.get("best_score"))  # CES keeps a coverage
    return {"system": summary["system"], "train_examples": examples, "epochs": epochs,
            "examples_presented": presented, "cpu_min": None if cpu_s is None else cpu_s / 60,
            "examples_per_cpu_s": presented / cpu_s if presented is not None and cpu_s else None,
            "optimizer_steps": summary.get("optimizer_steps"), "best_epoch": summary.get("best_epoch"),
            "val_loss": loss}


def runs(results: Path) -> list[dict]:
    """Every budget run under `results`, from its summary and its evaluation CSVs (training split
    included), sorted by benchmark, system, domain, nominal budget, model and seed. A run is a dict
    of RUN_COLUMNS and `cells`: (split, strategy) -> (solved, problems)."""
    found: dict[tuple, dict] = {}
    for s in collect.training_summaries(results, FAMILIES):
        if is_budget_model(s["model"]):
            key = tuple(str(s[k]) for k in RUN_KEY)
            found[key] = {**dict(zip(RUN_KEY, key)), **run_fields(s), "cells": {}}
    counts: dict[tuple, list[int]] = defaultdict(lambda: [0, 0])
    systems = {}
    for r in collect.evaluation_rows(results, training=True):
        if is_budget_model(r["model"]):
            key = tuple(str(r[k]) for k in RUN_KEY)
            cell = counts[key + (r["split"], r["strategy"])]
            cell[0] += r["solved"] == "yes"
            cell[1] += 1
            systems[key] = r["system"]
    for (*key, split, strategy), (solved, problems) in counts.items():
        key = tuple(key)
        if key not in found:  # evaluated, no summary: no CPU time, no budget but the name's
            found[key] = {**dict(zip(RUN_KEY, key)), **{c: None for c in RUN_COLUMNS[5:]},
                          "system": systems[key], "cells": {}}
        found[key]["cells"][(split, strategy)] = (solved, problems)
    for run in found.values():
        run["nominal_cpu_min"] = nominal_minutes(run["model"])
    return sorted(found.values(), key=lambda r: (r["benchmark"], r["system"], r["domain"], r["nominal_cpu_min"],
                                                 r["model"], r["seed"]))


def columns_of(runs_: list[dict]) -> list[tuple[str, str]]:
    """The (split, strategy) cells any of these runs has, strategies sorted, splits in SPLITS order."""
    cells = {c for r in runs_ for c in r["cells"]}
    order = {s: i for i, s in enumerate(SPLITS)}
    return sorted(cells, key=lambda c: (c[1], order.get(c[0], len(order)), c[0]))


def _cell(value, digits: int = 4) -> str:
    if value is None:
        return ""
    return f"{value:.{digits}f}" if isinstance(value, float) else str(value)


def table_rows(runs_: list[dict]) -> list[dict]:
    """The CSV's rows (COLUMNS): a run's row per (split, strategy) of its system; not run: no coverage."""
    out = []
    for run in runs_:
        base = {c: _cell(run[c]) for c in RUN_COLUMNS}
        for split, strategy in columns_of(runs_) or [("", "")]:
            got = run["cells"].get((split, strategy))
            out.append({**base, "split": split, "strategy": strategy,
                        "solved": "" if got is None else got[0], "problems": "" if got is None else got[1],
                        "coverage": "" if got is None else _cell(got[0] / got[1] if got[1] else None)})
    return out


def table_md(system: str, runs_: list[dict]) -> str:
    head = f"# Budget curve: {TITLES.get(system, system)}\n\n"
    if not runs_:
        return head + "No budget model of this system has been run (workflow/configs/budget-cpu.yaml).\n"
    cells = columns_of(runs_)
    headers = ["benchmark", "domain", "model", "seed", "nominal CPU-min", "examples presented", "CPU-min",
               "examples / CPU-s", "steps", "best epoch / epochs", "val loss"] + [f"{sp} {st}" for sp, st in cells]
    body = []
    for r in runs_:
        epochs = "–" if r["epochs"] is None else f"{render.num(r['best_epoch'])} / {render.num(r['epochs'])}"
        body.append([r["benchmark"], r["domain"], r["model"], r["seed"], render.num(r["nominal_cpu_min"]),
                     render.num(r["examples_presented"]), render.num(r["cpu_min"], 2),
                     render.num(r["examples_per_cpu_s"], 1), render.num(r["optimizer_steps"]), epochs,
                     render.num(r["val_loss"], 3)]
                    + [f"{c[0]}/{c[1]}" if (c := r["cells"].get(cell)) else "–" for cell in cells])
    note = ("\nCoverage: solved/problems (VAL-valid plans), training split included (the sanity check); – not run. "
            "Budget fixed in examples presented (training examples x epochs); CPU-min measured (the training "
            "job's `job_cpu_s`); val loss: the validation loss of the weights kept (`best_score`).\n")
    return head + render.md(headers, body) + note


def build(results: Path, out_dir: Path, published=None) -> list[Path]:
    """Every table and figure of the module doc, for every system of BUDGET_SYSTEMS (those not run: the
    tables say so, the figure too)."""
    from genplan.report import budget_figure

    everything = runs(Path(results))
    lay, written = Layout(str(out_dir)), []
    figures = []
    for system in BUDGET_SYSTEMS:
        mine = [r for r in everything if r["system"] == system]
        csv_path, md_path = Path(lay.table(f"budget-{system}", "csv")), Path(lay.table(f"budget-{system}", "md"))
        tables.write_csv(csv_path, table_rows(mine), COLUMNS)
        atomic.write_text(md_path, table_md(system, mine))
        written += [csv_path, md_path]
        stem = Path(lay.figure(f"budget-{system}", "png")).with_suffix("")
        figures += budget_figure.draw(mine, columns_of(mine), TITLES.get(system, system), stem)
    return written + figures
