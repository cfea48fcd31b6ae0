"""How far the largest CPU trial of each sequence family is from the papers' training budget (by how
much it would have to grow), from committed files only:

    python perf/compute_gap.py --out perf/results/compute-gap.txt

For each family and domain: the largest budget-curve trial (experiments/results/recipe/<trial>/: its
optimiser steps, batch size, parameters and training CPU-seconds, as the curves read them) beside the
papers' budget. The SymT paper trains every model, its PlanGPT baseline included, for 12 hours on one
A100 (papers/symt-symmetry-aware-transformers.md, Section 6); the diffusion paper states no training
time. Those 12 hours are turned into optimiser steps with the H100 rate that perf/gpu_check.py
measured for the same family at paper.yaml's size (perf/results/gpu-check-cuda-h100.txt): an
H100 is faster than an A100, so the product bounds the published steps from above, not a measurement.
Ratios: steps, examples (steps x batch), parameters and parameter-examples (examples x parameters, the factor a
transformer's training FLOPs grow with at a fixed sequence length)."""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent
RECIPE = ROOT.parent / "experiments" / "results" / "recipe"  # the recipe trials' folders
GPU_CHECK = ROOT / "results" / "gpu-check-cuda-h100.txt"
PAPER_HOURS = 12.0  # SymT paper, Section 6: "an NVIDIA A100 GPU with 12 hours of training"
# (family, paper.yaml entry, domain, largest trial of its curve, the curve file)
ROWS = [
    ("SymT^E", "symt_e", "blocks", "c3_symte_blocks_b045", "c3-symte-blocks-curve.csv"),
    ("SymT^E", "symt_e", "gripper", "e7_symte_gripper_byh_400k", "c1-symte-gripper-curve.csv"),
    ("SymT^ED", "symt_ed", "blocks", "e25_symted_blocks_pool24_whid001_21k", "c5-symted-blocks-curve.csv"),
    ("SymT^ED", "symt_ed", "gripper", "e22_symted_gripper_pool48_whid001_12k",
     "c4-symted-gripper-curve-greedy-reground.csv"),
    ("PlanGPT", "plangpt", "blocks", "c2_plangpt_blocks_b32", "c2-plangpt-blocks-curve.csv"),
    ("PlanGPT", "plangpt", "gripper", "c6_plangpt_gripper_b16", "c6-plangpt-gripper-curve.csv"),
    ("diffusion", "diffusion", "blocks", "c8_diffusion_blocks_b12", "c8-diffusion-blocks-curve.csv"),
    ("diffusion", "diffusion", "gripper", "c7_diffusion_gripper_b18", "c7-diffusion-gripper-curve.csv"),
]
PAPER_YAML = ROOT.parent / "workflow" / "configs" / "paper.yaml"
PUBLISHED_HOURS = {"symt_e": PAPER_HOURS, "symt_ed": PAPER_HOURS, "plangpt": PAPER_HOURS, "diffusion": None}


def gpu_rates(path: Path) -> dict:
    """model -> (parameters, steps per second) from gpu_check's table (genplan.cluster_plan reads it)."""
    from genplan.cluster_plan import gpu_rates as read
    from genplan.errors import GenplanError

    try:
        return {model: (params, per_s) for model, (params, per_s, _) in read(path).items()}
    except GenplanError as err:
        raise SystemExit(f"compute_gap: {err}") from None


def trial(name: str) -> dict:
    """The trial's parameters and batch size (its summary.json and entry.json; steps and CPU time come
    from the curve's row)."""
    folder = RECIPE / name
    try:
        summary = json.loads((folder / "summary.json").read_text())
        entry = json.loads((folder / "entry.json").read_text())
    except FileNotFoundError as err:
        raise SystemExit(f"compute_gap: {err.filename}: missing (a trial that did not finish)") from None
    return {"batch": int(entry["train"].get("batch_size", 32)), "params": int(summary["parameters"])}


def curve_row(curve: str, name: str) -> dict:
    """The trial's row of the curve's CSV (experiments/trial_curve.py), with the decoding its .md header names."""
    path = RECIPE / curve
    strategy = path.with_suffix(".md").read_text().split(";")[0].removeprefix("Strategy ").strip()
    with path.open(newline="") as f:
        for row in csv.DictReader(f):
            if row["trial"] == name:
                return {**row, "strategy": strategy}
    raise SystemExit(f"compute_gap: {path}: no row for trial {name}")


def paper_batches(path: Path) -> dict:
    """entry -> the batch size paper.yaml trains it with (the size gpu_check ran at)."""
    models = yaml.safe_load(path.read_text())["models"]
    return {entry: int(models[entry]["train"]["batch_size"]) for entry in PUBLISHED_HOURS}


def report(rates: dict, batches: dict) -> list[str]:
    out = ["# compute gap: the largest CPU trial of each curve against the papers' budget",
           "# command: python perf/compute_gap.py --out perf/results/compute-gap.txt",
           f"# published budget: {PAPER_HOURS:g} A100-hours a model (SymT paper, Section 6; PlanGPT there is its"
           " baseline); the diffusion paper states none",
           f"# published steps <= {PAPER_HOURS:g} h x the H100 rate at paper.yaml's size ({GPU_CHECK.name}):"
           " an upper bound",
           "", f"{'family':10} {'domain':8} {'trial':40} {'steps':>7} {'batch':>5} {'params':>10} {'CPU-s':>6}"
           f" {'decoding':22} {'train/interp/valid':>18} | {'paper steps<=':>13} {'batch':>5} {'params':>11}"
           f" | {'x steps':>8} {'x examples':>10} {'x params':>8} {'x param-ex':>10}"]
    for family, entry, domain, name, curve in ROWS:
        t, c = trial(name), curve_row(curve, name)
        steps, params, rate = int(c["optimizer_steps"]), *rates[entry]
        solved = f"{c['train']} {c['interpolation']} {c['validation']}"
        line = (f"{family:10} {domain:8} {name:40} {steps:>7,} {t['batch']:>5} {t['params']:>10,}"
                f" {float(c['job_cpu_s']):>6,.0f} {c['strategy']:22} {solved:>18} | ")
        x_params = params / t["params"]
        if PUBLISHED_HOURS[entry] is None:
            out.append(line + f"{'not stated':>13} {batches[entry]:>5} {params:>11,} |"
                       f" {'-':>8} {'-':>10} {x_params:>8.1f} {'-':>10}")
            continue
        paper_steps = PUBLISHED_HOURS[entry] * 3600 * rate
        x_examples = paper_steps * batches[entry] / (steps * t["batch"])
        out.append(line + f"{paper_steps:>13,.0f} {batches[entry]:>5} {params:>11,} | {paper_steps / steps:>8.1f}"
                   f" {x_examples:>10.1f} {x_params:>8.1f} {x_examples * x_params:>10.0f}")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, help="also write the report here")
    args = ap.parse_args(argv)
    text = "\n".join(report(gpu_rates(GPU_CHECK), paper_batches(PAPER_YAML))) + "\n"
    sys.stdout.write(text)
    if args.out:
        tmp = args.out.with_suffix(args.out.suffix + ".tmp")
        tmp.write_text(text)
        tmp.replace(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
