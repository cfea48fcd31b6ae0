"""A budget curve from recipe trials (experiments/recipe_trial.py): one row per trial folder, in the
order of the CPU time its training job used, with what the trial measured, into a CSV and a Markdown
table (issue 25, item 2, before the budget-cpu configuration has run):

    python experiments/trial_curve.py experiments/results/recipe/c1_symte_gripper_b001 ... \
        --out experiments/results/recipe/c1-symte-gripper-curve

Columns: trial, examples presented (train.examples of its entry.json x the epochs run), optimiser
steps and training CPU-seconds (`optimizer_steps`, `job_cpu_s` of its summary.json), the last
epoch's training and validation loss (training.csv), and per split planned the problems solved with
a VAL-valid plan out of those planned (<split>.<strategy>.csv). `--figure TITLE` also draws OUT.png and
OUT.pdf with the budget report's figure (genplan.report.budget_figure: coverage per split and the last
validation loss against the training CPU-minutes), every trial a point of the one domain `--domain` names."""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

SPLITS = ("train", "interpolation", "validation", "extrapolation")


def row(folder: Path, strategy: str) -> dict:
    """The trial's table row; `cells` (not a column) holds (solved, planned) per split planned."""
    entry = json.loads((folder / "entry.json").read_text())
    summary = json.loads((folder / "summary.json").read_text())
    log = list(csv.DictReader((folder / "training.csv").open()))
    epochs = summary.get("epochs", entry["train"]["epochs"])  # the epochs run (patience may stop a job early)
    out = {"trial": folder.name, "examples_presented": entry["train"]["examples"] * epochs,
           "optimizer_steps": summary["optimizer_steps"], "job_cpu_s": round(summary["job_cpu_s"]),
           "train_loss": log[-1]["train_loss"], "val_loss": log[-1]["val_loss"], "cells": {}}
    for split in SPLITS:
        path = folder / f"{split}.{strategy}.csv"
        if path.is_file():
            rows = list(csv.DictReader(path.open()))
            solved = sum(r["solved"] == "yes" and r["val"] == "valid" for r in rows)
            out[split] = f"{solved}/{len(rows)}"
            out["cells"][(split, strategy)] = (solved, len(rows))
        else:
            out[split] = "not planned"
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("trials", nargs="+", type=Path)
    ap.add_argument("--strategy", default="heuristic-greedy")
    ap.add_argument("--out", required=True, type=Path, help="writes OUT.csv and OUT.md")
    ap.add_argument("--figure", metavar="TITLE", help="also OUT.png and OUT.pdf, titled TITLE")
    ap.add_argument("--domain", default="", help="the domain the figure names")
    args = ap.parse_args(argv)
    missing = [str(t) for t in args.trials if not (t / "summary.json").is_file()]
    if missing:
        print(f"trial_curve: no summary.json in {', '.join(missing)} (a trial that did not finish)", file=sys.stderr)
        return 1
    rows = sorted((row(t, args.strategy) for t in args.trials), key=lambda r: r["job_cpu_s"])
    cols = [c for c in rows[0] if c != "cells"]
    csv_path, md_path = Path(f"{args.out}.csv"), Path(f"{args.out}.md")
    with csv_path.open("w", newline="") as fh:
        w = csv.DictWriter(fh, cols, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    md = [f"| {' | '.join(cols)} |", f"|{'---|' * len(cols)}"]
    md += [f"| {' | '.join(str(r[c]) for c in cols)} |" for r in rows]
    figure = f" --figure '{args.figure}' --domain {args.domain}" if args.figure else ""
    md_path.write_text(f"Strategy {args.strategy}; command: python experiments/trial_curve.py "
                       f"{' '.join(str(t) for t in args.trials)} --out {args.out}{figure}\n\n" + "\n".join(md) + "\n")
    print("\n".join(md))
    if args.figure:
        _figure(rows, args.domain, args.figure, args.out)
    return 0


def _figure(rows: list[dict], domain: str, title: str, out: Path) -> None:
    """The budget report's figure over the trials: a run per trial (its own `model`), its cells the splits
    it planned."""
    from genplan.report.budget_figure import draw

    runs = [{"model": r["trial"], "domain": domain, "cpu_min": r["job_cpu_s"] / 60, "val_loss": float(r["val_loss"]),
             "cells": r["cells"]} for r in rows]
    draw(runs, sorted(set().union(*(r["cells"] for r in runs))), title, out)


if __name__ == "__main__":
    sys.exit(main())
