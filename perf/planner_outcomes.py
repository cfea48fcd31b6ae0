"""Planner outcomes from the plans tables of a benchmark: per domain and split, how many problems
each Fast Downward configuration solved, its median and maximum time, and whether the A* + LM-cut
plans are as long as the reference plans shipped with imported instances.

    python perf/planner_outcomes.py results/plans/paper
"""

from __future__ import annotations

import argparse
import statistics
from collections import Counter
from pathlib import Path

from genplan.formats.manifest import SPLITS
from genplan.formats.plans_table import read_table

CONFIGS = ("astar_lmcut", "gbfs_ff", "lama_first", "reference")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("plans_dir", help="results/plans/<benchmark>")
    args = ap.parse_args()
    root = Path(args.plans_dir)
    print("domain split problems | config: statuses, median/max seconds | A* vs reference length")
    for domain_dir in sorted(p for p in root.iterdir() if p.is_dir()):
        for split in SPLITS:
            path = domain_dir / f"{split}.csv"
            if not path.is_file():
                continue
            table = read_table(path)
            problems = {r["problem"] for r in table}
            parts = []
            for cfg in CONFIGS:
                rows = [r for r in table if r["config"] == cfg]
                if not rows:
                    continue
                statuses = Counter(r["status"] for r in rows)
                times = [float(r["time"]) for r in rows if r["time"]]
                timing = f" {statistics.median(times):.1f}/{max(times):.1f}s" if times else ""
                parts.append(f"{cfg}: " + ",".join(f"{k}={v}" for k, v in sorted(statuses.items())) + timing)
            astar = {r["problem"]: int(r["plan_length"]) for r in table if r["config"] == "astar_lmcut" and r["valid"] == "yes"}
            ref = {r["problem"]: int(r["plan_length"]) for r in table if r["config"] == "reference" and r["valid"] == "yes"}
            both = sorted(set(astar) & set(ref))
            cmp = ""
            if both:
                equal = sum(astar[p] == ref[p] for p in both)
                shorter = sum(astar[p] < ref[p] for p in both)
                longer = sum(astar[p] > ref[p] for p in both)
                cmp = f" | A*=ref {equal}/{len(both)}, A*<ref {shorter}, A*>ref {longer}"
            print(f"{domain_dir.name} {split} {len(problems)} | " + "; ".join(parts) + cmp)


if __name__ == "__main__":
    main()
