"""Scaling sets: problems far beyond the published extrapolation sizes, planned by the learned
heuristic (GBFS) and by Fast Downward's LAMA-first and GBFS + FF under the same limits; coverage,
plan length and time per size.

    python perf/scaling.py --config perf/scaling.yaml --out /tmp/scaling \
        --model blocks=runs/x/models/.../model.ckpt --model gripper=...

The sizes, generator parameters and limits are in the YAML file (`domains: {blocks: {sizes: [...],
per_size: n, ...generator parameters}}`, `limits: {time_limit, memory_limit_mb, max_expansions}`);
`--domains` and `--sizes` narrow them for a quick run. Problems come from the project's own
generators (`genplan generate`, split `extrapolation`, written to <out>/problems/<domain>/).
Every plan, Fast Downward's included, is checked by VAL. One CSV row per (problem, planner) in
<out>/scaling.csv; a table per domain, size and planner is printed (coverage, mean plan length
over the solved, median time over the solved). The learned planner's time includes loading the
problem and binding the model (not loading the checkpoint); Fast Downward's includes its
translator. One run at a time (the machine's cores are shared).
"""

from __future__ import annotations

import argparse
import csv
import statistics
import tempfile
import time
from pathlib import Path

import yaml

from genplan import val
from genplan.formats import manifest
from genplan.pddl_io import plan_to_text
from genplan.planners.base import Problem
from genplan.planners.solve import solve_and_validate
from genplan.registry import planner as make_planner
from genplan.solve_setup import load_model
from genplan.stages.fast_downward import run_fast_downward
from genplan.stages.problems import generate_benchmark

FD_CONFIGS = ("lama_first", "gbfs_ff")
COLUMNS = ["domain", "size", "problem", "planner", "solved", "plan_length", "time", "expanded", "reason"]


def generate(domain: str, spec: dict, sizes: list[int] | None, seed: int, out: Path) -> list[dict]:
    folder = out / "problems" / domain
    wanted = sizes or spec["sizes"]
    params = {k: v for k, v in spec.items() if k not in ("sizes", "per_size")}
    config = {"sizes": {"extrapolation": wanted}, "per_size": {"extrapolation": spec.get("per_size", 1)}, **params}
    if not (folder / "manifest.csv").is_file() or {int(r["size"]) for r in manifest.read(folder, "extrapolation")} != set(wanted):
        generate_benchmark(domain, config, seed, folder)
    return manifest.read(folder, "extrapolation")


def run_fd(domain_file: Path, row: dict, config: str, limits: dict) -> dict:
    res = run_fast_downward(domain_file, row["path"], config, limits["time_limit"], limits["memory_limit_mb"])
    solved, length = False, ""
    if res.plan is not None:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "plan"
            path.write_text(plan_to_text(res.plan))
            solved = val.validate(domain_file, row["path"], path).valid
        length = len(res.plan) if solved else ""
    return {"planner": config, "solved": solved, "plan_length": length, "time": res.time, "expanded": "",
            "reason": res.status if not solved else "goal"}


def run_learned(model, strategy: str, domain_file: Path, row: dict, limits: dict) -> dict:
    search = {"time_limit": limits["time_limit"], "max_expansions": limits.get("max_expansions", 10**7)}
    planner = make_planner(model, strategy, {"search": search})
    start = time.perf_counter()
    outcome = solve_and_validate(planner, Problem(domain_file, row["path"]))
    a = outcome.attempt
    return {"planner": f"learned_heuristic-{strategy}", "solved": outcome.solved,
            "plan_length": len(a.plan) if outcome.solved else "", "time": a.time if a.time else time.perf_counter() - start,
            "expanded": a.states_expanded, "reason": a.reason if a.reason != "goal" or outcome.solved else "val_rejected"}


def table(rows: list[dict]) -> str:
    groups: dict[tuple, list[dict]] = {}
    for r in rows:
        groups.setdefault((r["domain"], int(r["size"]), r["planner"]), []).append(r)
    lines = [f"{'domain':10s} {'size':>5s} {'planner':28s} {'coverage':>9s} {'mean length':>11s} {'median time':>11s}"]
    for (d, size, p), rs in sorted(groups.items()):
        ok = [r for r in rs if r["solved"]]
        length = f"{statistics.mean(r['plan_length'] for r in ok):.1f}" if ok else "-"
        secs = f"{statistics.median(r['time'] for r in ok):.2f}" if ok else "-"
        lines.append(f"{d:10s} {size:5d} {p:28s} {len(ok):>4d}/{len(rs):<4d} {length:>11s} {secs:>11s}")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default=str(Path(__file__).with_name("scaling.yaml")))
    ap.add_argument("--out", required=True, help="problems and scaling.csv go here")
    ap.add_argument("--model", action="append", default=[], help="DOMAIN=checkpoint of the heuristic family")
    ap.add_argument("--domains", nargs="+", default=None)
    ap.add_argument("--sizes", nargs="+", type=int, default=None, help="only these sizes (of every chosen domain)")
    ap.add_argument("--planners", nargs="+", default=["learned", *FD_CONFIGS])
    ap.add_argument("--strategy", default="gbfs")
    a = ap.parse_args()
    cfg = yaml.safe_load(Path(a.config).read_text())
    limits, out = cfg["limits"], Path(a.out)
    models = dict(m.split("=", 1) for m in a.model)
    rows = []
    for domain in a.domains or list(cfg["domains"]):
        problems = generate(domain, cfg["domains"][domain], a.sizes, cfg.get("seed", 0), out)
        domain_file = out / "problems" / domain / "domain.pddl"
        model = load_model(models[domain], domain_file) if "learned" in a.planners and domain in models else None
        for row in problems:
            for p in a.planners:
                if p == "learned":
                    if model is None:
                        continue
                    rec = run_learned(model, a.strategy, domain_file, row, limits)
                else:
                    rec = run_fd(domain_file, row, p, limits)
                rec = {"domain": domain, "size": row["size"], "problem": row["problem"], **rec}
                print(f"{domain} {row['problem']} {rec['planner']}: {'solved' if rec['solved'] else rec['reason']} "
                      f"length {rec['plan_length'] or '-'} in {rec['time']:.2f} s", flush=True)
                rows.append(rec)
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "scaling.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, COLUMNS)
        w.writeheader()
        w.writerows({**r, "time": f"{r['time']:.3f}", "solved": "yes" if r["solved"] else "no"} for r in rows)
    print(table(rows))


if __name__ == "__main__":
    main()
