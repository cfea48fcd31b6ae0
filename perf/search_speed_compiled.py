"""Search speed of the compiled search: expansions per second of
`compiled-gbfs` (genplan._wlsearch: eager GBFS with the linear WL heuristic, all in C++) beside
Fast Downward's eager GBFS with hFF (`eager_greedy([ff()])`) on the same IPC 2023 learning-track
problems, and where the compiled search's time goes.

As perf/search_speed.py (whose training and Fast Downward run it reuses): per domain a ridge
heuristic on WL features (2 iterations) is trained from the domain's shipped training plans; on
each problem the compiled eager GBFS runs for at most --expansions expansions or --time-limit
seconds with its timers on (CPU time per part, measured in C++: successors = applicable actions
found through the precondition index and sorted; goal_and_duplicates = successor states built,
hashed, goal-tested; heuristic = ILG + WL refinement + dot product; queue = open list and loop).
Rates are per CPU second of search time on both sides: ours from time.process_time around the one
native call, its preparation apart (grounding by relaxed exploration through pymimir and the
model's export, column `prep s`), as Fast Downward's translation is apart from its search time.
Each search runs --repeat times and the fastest is reported. Column `python exp/s` (with
--python): the Python reference `gbfs` on the same problem, for the factor the compiled search
gained.

    nice -n 5 python perf/search_speed_compiled.py --problems medium/p01 medium/p02 \
        --expansions 100000 --time-limit 10 --out perf/results/search-speed-compiled.txt
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
from pathlib import Path

from search_speed import IPC, fast_downward, fastest, ours, rate, trained_problems

DOMAINS = ("blocksworld", "childsnack", "ferry", "floortile", "miconic", "rovers", "satellite", "sokoban", "spanner",
           "transport")
PARTS = ("successors", "goal_and_duplicates", "heuristic", "queue")


def compiled(model, domain: Path, problem: Path, expansions: int, time_limit: float) -> dict:
    from genplan.planners.base import Problem
    from genplan.planners.compiled import CompiledSearch
    from genplan.planners.search import SearchLimits

    t = time.perf_counter()
    search = CompiledSearch(model, Problem(domain, problem))
    prep = time.perf_counter() - t
    timers: dict = {}
    cpu = time.process_time()
    res = search.gbfs(SearchLimits(expansions, time_limit), timers=timers)
    cpu = time.process_time() - cpu
    return {"reason": res.reason, "expanded": res.expanded, "evaluated": res.evaluated, "time": cpu, "prep": prep,
            "parts": {k: timers.get(k, 0.0) for k in PARTS}, "actions": len(search.task.names)}


def summary(rows: list[str]) -> list[str]:
    """The closing lines of a table from its problem rows (as `main` writes them): the parts' shares
    of all compiled search time (each row's shares weighted by its `ours s`) and the median ratio."""
    total, ratios, per_eval, pythons = dict.fromkeys(PARTS, 0.0), [], [], []
    for row in rows:
        cells, parts = row.split("|")
        cells = cells.split()
        ratios.append(float(cells[10]))
        per_eval.append(float(cells[11]) / max(float(cells[12]), 1e-9))
        if len(cells) == 16:  # with the Python gbfs's rate
            pythons.append(float(cells[6]) / max(float(cells[13]), 1e-9))
        for k, share in zip(PARTS, parts.split()):
            total[k] += float(cells[5]) * float(share) / 100
    spent = sum(total.values()) or 1.0
    out = ["# all problems, compiled search's time, %: " + ", ".join(f"{k} {100 * v / spent:.0f}" for k, v in total.items())]
    if ratios:
        out.append(f"# FD's expansions/s over ours: median {statistics.median(ratios):.2f}x, "
                   f"min {min(ratios):.2f}x, max {max(ratios):.2f}x over {len(ratios)} problems")
        out.append(f"# our CPU time per evaluated state over FD's: median {statistics.median(per_eval):.2f}x, "
                   f"min {min(per_eval):.2f}x, max {max(per_eval):.2f}x (expansions/s also depend on where each "
                   "search goes: branching and duplicates differ)")
    if pythons:
        out.append(f"# compiled over the Python gbfs, expansions/s: median {statistics.median(pythons):.1f}x over "
                   f"{len(pythons)} problems")
    return out


def combine(files: list[Path], out: Path | None) -> int:
    """One table from the tables of several runs of this script with the same settings (run a few
    domains at a time on a busy machine): their header, every domain's and problem's line, one summary."""
    texts = [f.read_text().splitlines() for f in files]
    body = [line for text in texts for line in text[2:] if line.startswith("  ") or ": trained on" in line]
    lines = texts[0][:2] + [f"# combined from {len(files)} runs (--combine)"] + body + \
        summary([line for line in body if line.startswith("  ")])
    print("\n".join(lines))
    if out:
        out.write_text("\n".join(lines) + "\n")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--domains", nargs="+", default=list(DOMAINS))
    ap.add_argument("--problems", nargs="+", default=["medium/p01", "medium/p02"])
    ap.add_argument("--train", type=int, default=99, help="training problems (their plans) per domain")
    ap.add_argument("--expansions", type=int, default=100000)
    ap.add_argument("--time-limit", type=float, default=10.0, help="seconds at most per search")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--pruning", default="none")
    ap.add_argument("--python", action="store_true", help="also time the Python gbfs (<= 2000 expansions)")
    ap.add_argument("--benchmark", type=Path, default=IPC)
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--combine", nargs="+", type=Path, default=None, help="tables of earlier runs to join into --out")
    a = ap.parse_args(argv)
    if a.combine:
        return combine(a.combine, a.out)
    lines = [f"# search speed: compiled learned GBFS (genplan._wlsearch; ridge, WL 2 iterations, pruning {a.pruning}, "
             f"trained from plans) vs Fast Downward eager_greedy([ff()]); {platform.processor() or platform.machine()}, "
             f"one core, CPU time; ours <= {a.expansions} expansions, both <= {a.time_limit:g} s; the fastest of "
             f"{a.repeat} runs each",
             f"# {'domain':12s} {'problem':11s} {'actions':>7s} {'prep s':>6s} {'ours exp':>8s} {'ours s':>6s} "
             f"{'ours exp/s':>10s} {'FD exp':>8s} {'FD s':>6s} {'FD exp/s':>8s} {'FD/ours':>7s} {'us/eval':>7s} "
             f"{'FD us/eval':>10s} {'python exp/s':>12s} {'ours end':>10s} {'FD end':>7s} | compiled time, %: "
             + " ".join(PARTS)]
    print("\n".join(lines), flush=True)
    for dom, name, model, domain, problem in trained_problems(a, lines):
        o = fastest(a.repeat, compiled, model, domain, problem, a.expansions, a.time_limit)
        f = fastest(a.repeat, fast_downward, domain, problem, a.time_limit)
        ro, rf = rate(o), rate(f)
        ratio = rf / ro if ro else float("inf")
        py = ""
        if a.python:
            py = f"{rate(fastest(1, ours, model, domain, problem, min(a.expansions, 2000), a.time_limit)):.0f}"
        spent = sum(o["parts"].values()) or 1.0
        lines.append(f"  {dom:12s} {name:11s} {o['actions']:7d} {o['prep']:6.2f} {o['expanded']:8d} "
                     f"{o['time']:6.2f} {ro:10.0f} {f['expanded']:8d} {f['time']:6.2f} {rf:8.0f} {ratio:7.2f} "
                     f"{1e6 * o['time'] / max(o['evaluated'], 1):7.1f} "
                     f"{1e6 * f['time'] / max(f['evaluated'], 1):10.1f} {py:>12s} {o['reason']:>10s} "
                     f"{f['reason']:>7s} | " + " ".join(f"{100 * o['parts'][k] / spent:4.0f}" for k in PARTS))
        print(lines[-1], flush=True)
    lines += summary([line for line in lines if line.startswith("  ")])
    print("\n".join(lines[-5:]))
    if a.out:
        a.out.parent.mkdir(parents=True, exist_ok=True)
        a.out.write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
