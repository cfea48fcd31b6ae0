"""One recipe trial of a sequence family (issue 25): a model entry of a configuration with some
training settings overridden, trained by `genplan train` on that configuration's data, then planned
by `genplan evaluate` on the named splits; everything a trial decides on is kept in its folder.

    python experiments/recipe_trial.py NAME --config workflow/configs/paper-cpu.yaml --results R \
        --model symt_e --domain blocks --set '{"train": {"examples": 20000, "sample_by": "h"}}' \
        --splits interpolation,validation,train [--strategy heuristic-greedy] [--select-on train]

R is a results folder where the configuration's data already exist (statespaces/<b>/<d>/train.csv
and its folder, trajectories/<b>/<d>/<split>.json.gz, plans/<b>/<d>/<split>.csv, problems/<b>/<d>);
`snakemake --configfile C <those files>` makes them. The trial writes into --out (default
runs/recipe-trials/NAME): entry.json (the settings trained), model.ckpt, training.csv, summary.json,
train.log, <split>.<strategy>.csv and a line per split in result.txt (solved / problems, CPU seconds
of the training job; `--evaluate-only` adds its lines). `--select-on train` gives the training split's trajectories as the
validation data that selects the weights (a diagnosis: does the model fit what it trains on?),
never a setting of a committed configuration.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import yaml

# the CLI of the genplan this interpreter imports (`genplan` itself where it is installed; a borrowed GPU
# machine has the sources on PYTHONPATH and no entry point)
GENPLAN = [sys.executable, "-m", "genplan"]


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def evaluate(ckpt: Path, R: Path, b: str, d: str, split: str, strategy: str, entry: dict, seed: int, csv_path: Path,
             log_path: Path, jobs: int = 1, plans: Path | None = None) -> tuple[int, list[dict]]:
    """`genplan evaluate` of a trial's checkpoint on one split of results folder R (stderr to log_path):
    its exit status and the rows of its CSV (none when it failed)."""
    from genplan import registry

    cmd = [*GENPLAN, "evaluate", "--model", str(ckpt), "--benchmark-dir", str(R / f"problems/{b}/{d}"),
           "--split", split, "--plans-table", str(R / f"plans/{b}/{d}/{split}.csv"), "--strategy", strategy,
           "--settings", json.dumps(registry.planning_settings(entry)), "--benchmark", b, "--seed", str(seed),
           "--jobs", str(jobs), "--out", str(csv_path)] + (["--out-plans", str(plans)] if plans else [])
    with open(log_path, "w") as log:
        rc = subprocess.run(cmd, stderr=log, check=False).returncode
    return rc, list(csv.DictReader(csv_path.open())) if rc == 0 else []


def main(argv=None) -> int:
    from genplan import registry
    from genplan.solve_setup import merged

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("name")
    ap.add_argument("--config", required=True)
    ap.add_argument("--results", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--domain", required=True)
    ap.add_argument("--benchmark", default="paper")
    ap.add_argument("--set", default="{}", help="JSON merged into the model entry (mappings key by key)")
    ap.add_argument("--splits", default="interpolation,validation,train")
    ap.add_argument("--strategy")
    ap.add_argument("--select-on", default="validation")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--out")
    ap.add_argument("--evaluate-only", action="store_true")
    ap.add_argument("--device", choices=["cpu", "cuda", "auto"], default="cpu", help="the training job's device")
    ap.add_argument("--threads", type=int, default=1, help="the training job's torch threads")
    ap.add_argument("--jobs", type=int, default=1, help="problems planned at once (on the CPU)")
    args = ap.parse_args(argv)

    cfg = yaml.safe_load(Path(args.config).read_text())
    entry = merged(cfg["models"][args.model], json.loads(args.set))
    strategy = args.strategy or entry["strategies"][0]
    out = Path(args.out or f"runs/recipe-trials/{args.name}")
    out.mkdir(parents=True, exist_ok=True)
    if not args.evaluate_only:  # an evaluation leaves the record of what was trained as it is
        (out / "entry.json").write_text(json.dumps(entry, indent=1, sort_keys=True) + "\n")
    R, b, d = Path(args.results), args.benchmark, args.domain
    fam = registry.family(entry["family"])
    sources = getattr(fam.impl, "trains_from", lambda e: fam.trains_from)(entry)
    lines = []
    if not args.evaluate_only:
        train = [str(R / f"statespaces/{b}/{d}/train.csv"), str(R / f"statespaces/{b}/{d}/train")] \
            if "statespaces" in sources else []
        train.append(str(R / f"trajectories/{b}/{d}/train.json.gz"))
        cmd = [*GENPLAN, "train", "--model", args.name, "--settings", json.dumps(registry.weight_settings(entry)),
               "--domain", d, "--train", *train, "--validation", str(R / f"trajectories/{b}/{d}/{args.select_on}.json.gz"),
               "--seed", str(args.seed), "--threads", str(args.threads), "--device", args.device, "--out", str(out / "model.ckpt"),
               "--log", str(out / "training.csv"), "--summary", str(out / "summary.json")]
        before = _children_cpu()
        with open(out / "train.log", "w") as log:
            rc = subprocess.run(cmd, stderr=log, check=False).returncode
        kept = ("the last epoch's (train.keep: last; validation loss on " + args.select_on + " logged)"
                if (entry.get("train") or {}).get("keep") == "last" else f"selected on {args.select_on}")
        lines.append(f"training: rc {rc}, {_children_cpu() - before:.0f} CPU-s, weights {kept}")
        print(lines[-1], flush=True)
        if rc:
            return rc
    for split in args.splits.split(","):
        rc, rows = evaluate(out / "model.ckpt", R, b, d, split, strategy, entry, args.seed, out / f"{split}.{strategy}.csv",
                            out / f"evaluate-{split}.log", jobs=args.jobs,
                            plans=out / f"{split}.{strategy}.plans.json.gz")
        lines.append(f"{split} {strategy}: {sum(r['solved'] == 'yes' for r in rows)}/{len(rows)} solved (rc {rc})")
        print(lines[-1], flush=True)
    # --evaluate-only adds its lines to those of the training run (other strategies, other splits)
    before = (out / "result.txt").read_text() if args.evaluate_only and (out / "result.txt").is_file() else ""
    (out / "result.txt").write_text(before + "\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    sys.exit(main())
