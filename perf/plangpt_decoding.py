"""Decoding speed of a sequence model per strategy: tokens per second, plans per second, model calls
per token, and how many plans VAL accepts, on the first problems of one split.

    python perf/plangpt_decoding.py --model runs/default/models/generated/blocks/plangpt/seed13/model.ckpt \
        --benchmark-dir runs/default/problems/generated/blocks --split interpolation --limit 10

One thread (as evaluation jobs run); every plan checked by VAL, as `genplan evaluate` does.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import torch

from genplan import registry
from genplan.formats import manifest
from genplan.planners.base import Problem
from genplan.planners.solve import solve_and_validate
from genplan.solve_setup import load_model

STRATEGIES = ["greedy", "greedy-applicable", "greedy-reground", "multibeam4", "topp0.9x4"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--benchmark-dir", required=True)
    ap.add_argument("--split", default="interpolation")
    ap.add_argument("--limit", type=int, default=10)
    ap.add_argument("--strategies", nargs="+", default=STRATEGIES)
    a = ap.parse_args()
    torch.set_num_threads(1)
    bench = Path(a.benchmark_dir)
    model = load_model(a.model, bench / "domain.pddl")
    rows = manifest.read(bench, a.split)[: a.limit]
    print(f"{model.name} ({model.family}, {sum(p.numel() for p in model.net.parameters()):,} parameters), "
          f"{len(rows)} {a.split} problems")
    print(f"{'strategy':22s} {'tokens/s':>9s} {'plans/s':>8s} {'calls/token':>11s} {'tokens':>7s} {'VAL-valid':>9s}")
    for name in a.strategies:
        planner = registry.planner(model, name)
        tokens = calls = solved = 0
        start = time.perf_counter()
        for row in rows:
            outcome = solve_and_validate(planner, Problem(bench / "domain.pddl", row["path"]))
            tokens += outcome.attempt.tokens_generated
            calls += outcome.attempt.model_calls
            solved += outcome.solved
        secs = time.perf_counter() - start  # VAL included, as in evaluation
        print(f"{name:22s} {tokens / secs:9.1f} {len(rows) / secs:8.2f} {calls / max(tokens, 1):11.2f} "
              f"{tokens:7d} {solved:>5d}/{len(rows)}")


if __name__ == "__main__":
    main()
