"""Dataset statistics: per benchmark, domain and split the problems, objects, plan lengths and
expanded states, beside the published counts (state-centric Table 5, `data/published_dataset_statistics.csv`)."""

from __future__ import annotations

import csv
import functools
import statistics
from importlib import resources
from pathlib import Path

from genplan import atomic
from genplan.formats import manifest
from genplan.formats.plans_table import best_known_lengths, check_problem_hashes, read_table
from genplan.formats.tables import compress_ints, markdown, write_csv
from genplan.paths import ALL_SPLITS
from genplan.stages.plans import MAIN_CONFIGS

COLUMNS = [
    "benchmark", "domain", "split", "problems", "sizes", "objects_min", "objects_median", "objects_max",
    "solved", "optimal", "plan_length_min", "plan_length_median", "plan_length_max",
    "statespace_problems", "states_total", "states_max", "transitions_total",
    "published_problems", "published_sizes",
]


@functools.cache
def published_counts() -> dict[tuple[str, str], dict]:
    text = (resources.files("genplan") / "data" / "published_dataset_statistics.csv").read_text()
    return {(r["domain"], r["split"]): r for r in csv.DictReader(text.splitlines())}


def _three(values: list[float]) -> tuple:
    if not values:
        return "", "", ""
    return min(values), statistics.median(values), max(values)


def split_statistics(benchmark: str, domain: str, split: str, benchmark_dir: Path, plans_table: Path, statespace_table: Path | None) -> dict:
    rows = manifest.read(benchmark_dir, split)
    plans = read_table(plans_table)
    check_problem_hashes(plans, rows, plans_table)  # the plan lengths of other problems under the same names
    best = best_known_lengths(plans)
    solved = {r["problem"] for r in plans if r["config"] in MAIN_CONFIGS and r["valid"] == "yes"}
    optimal = {r["problem"] for r in plans if r["config"] == "astar_lmcut" and r["valid"] == "yes"}
    objs = _three([r["num_objects"] for r in rows])
    lengths = _three([best[p] for p in sorted(best)])
    row = {
        "benchmark": benchmark, "domain": domain, "split": split, "problems": len(rows),
        "sizes": compress_ints(r["size"] for r in rows),
        "objects_min": objs[0], "objects_median": objs[1], "objects_max": objs[2],
        "solved": len(solved), "optimal": len(optimal),
        "plan_length_min": lengths[0], "plan_length_median": lengths[1], "plan_length_max": lengths[2],
        "statespace_problems": "", "states_total": "", "states_max": "", "transitions_total": "",
    }
    if statespace_table is not None:
        spaces = read_table(statespace_table)
        states = [int(r["states"]) for r in spaces]
        row.update(statespace_problems=len(spaces), states_total=sum(states),
                   states_max=max(states, default=""), transitions_total=sum(int(r["transitions"]) for r in spaces))
    pub = published_counts().get((domain, split), {})
    row.update(published_problems=pub.get("problems", ""), published_sizes=pub.get("sizes", ""))
    return row


def write_dataset_statistics(rows: list[dict], out_csv: Path, out_md: Path) -> None:
    order = {s: i for i, s in enumerate(ALL_SPLITS)}
    rows = sorted(rows, key=lambda r: (r["benchmark"], r["domain"], order[r["split"]]))
    write_csv(out_csv, rows, COLUMNS)
    headers = ["benchmark", "domain", "split", "problems", "sizes", "objects (min/med/max)", "solved (A* optimal)",
               "best plan length (min/med/max)", "expanded states (problems / total / max)", "published problems", "published sizes"]
    md_rows = [{
        **r,
        "objects": f"{r['objects_min']}/{r['objects_median']}/{r['objects_max']}",
        "solved_s": f"{r['solved']} ({r['optimal']})",
        "lengths": f"{r['plan_length_min']}/{r['plan_length_median']}/{r['plan_length_max']}" if r["plan_length_min"] != "" else "-",
        "states": f"{r['statespace_problems']} / {r['states_total']} / {r['states_max']}" if r["states_total"] != "" else "-",
    } for r in rows]
    cols = ["benchmark", "domain", "split", "problems", "sizes", "objects", "solved_s", "lengths", "states", "published_problems", "published_sizes"]
    text = ("# Dataset statistics\n\nProblems per split with their size parameter (blocks, balls, goals, cells), "
            "objects, problems with a VAL-checked plan (A* + LM-cut, else GBFS + FF; in brackets proved optimal), "
            "best known plan length over every planner run, and the expanded state spaces, beside the published "
            "counts of the state-centric paper (Table 5). Made by `genplan stats` from the pipeline's files.\n\n"
            + markdown(md_rows, cols, headers))
    atomic.write_text(out_md, text)
