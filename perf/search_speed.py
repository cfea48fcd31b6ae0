"""Search speed: expansions per second of our learned GBFS beside Fast
Downward's eager GBFS with hFF (`eager_greedy([ff()])`) on the same IPC 2023 learning-track
problems, and where our time goes.

Per domain: the learned heuristic (ridge on WL features, 2 iterations) is trained from the
domain's shipped training plans (`train: {data: plans}`: plan states, plan length to go; the
first --train problems); then on each problem our eager GBFS (genplan.planners.search.gbfs) runs
for at most --expansions expansions or --time-limit seconds (lazy GBFS too: column `lazy exp/s`), with its timers on: successor
generation (pymimir's applicable actions, their application, the lexicographic sort), goal test
and duplicate detection, WL conversion (pymimir state -> wlplan state), prediction (wlplan's
w.phi(s): the ILG graph, WL refinement and the dot product, in wlplan's C++), queue (heap pops
and pushes, the loop). Fast Downward runs the same problem with `eager_greedy([ff()], max_time=T)`:
its expansions and search time from its final statistics, or, when it stops at T unsolved (then it
prints none), from its last progress line. Rates are per CPU second of search time on both sides
(Fast Downward's timer reads the process's CPU clock on Linux; ours: time.process_time around the
search and in its timers), our heuristic binding and Fast Downward's translation apart, one core:
the machine may be shared, and wall time would count the other jobs' time against us. Each search
runs --repeat times (default 3) and the fastest run is reported (CPU time too grows when other jobs
share the cores' caches). Columns `us/eval`: CPU microseconds per evaluated state, ours and Fast
Downward's (its `Evaluated` count); `ours end`, `FD end`: why each eager search stopped (goal: a
plan; node_limit, time_limit, stopped: a limit first).

    nice -n 5 python perf/search_speed.py --domains blocksworld ferry miconic spanner \
        --problems medium/p01 --expansions 2000 --time-limit 10 --out perf/results/search-speed.txt

With `--pruning i-mf --out perf/results/search-speed-pruned.txt`: the same with wlplan's feature
pruning (the ipc2023-cpu `heuristic_ridge_pruned` entry); search-speed-unpruned-beside.txt is the default
run made beside it (same machine, same load), for the comparison.

perf/results/search-speed-before.txt is the run before this script measured CPU time (wall
time for ours, CPU time for Fast Downward); search-speed-before-cpu.txt the same search code
measured in CPU time, one run each (its parts in wall time, as that code's timers read).
"""

from __future__ import annotations

import argparse
import gzip
import json
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

IPC = Path(__file__).resolve().parents[2] / "shared" / "benchmarks" / "ipc2023-learning"
PARTS = ("successors", "goal_and_duplicates", "wl_conversion", "prediction", "queue")


def train_from_plans(domain_dir: Path, work: Path, n: int, pruning: str = "none", entry: dict | None = None):
    """A ridge heuristic trained on the first n training problems' reference plans, its WL features
    pruned by wlplan's `pruning`; `entry`: model entry settings over these (another learner, its
    `train` settings)."""
    from genplan import registry
    from genplan.domains import domain_key
    from genplan.formats import manifest
    from genplan.formats.trajectories import document
    from genplan.models.heuristic.train import train_heuristic
    from genplan.stages.trajectories import trajectory

    (work / "train").mkdir(parents=True)
    shutil.copy(domain_dir / "domain.pddl", work / "domain.pddl")
    rows, recs = [], []
    for p in sorted((domain_dir / "training" / "easy").glob("p*.pddl"))[:n]:
        shutil.copy(p, work / "train" / p.name)
        rows.append({"problem": p.stem, "split": "train", "file": f"train/{p.name}", "size": 0, "num_objects": 0,
                     "seed": 0, "canonical": ""})
        recs.append(trajectory(work / "domain.pddl", work / "train" / p.name,
                               domain_dir / "plans" / "training" / "easy" / f"{p.stem}.plan"))
    (work / "manifest.csv").write_text(manifest.to_csv(rows))
    traj = work / "train.json.gz"
    with gzip.open(traj, "wt") as fh:
        json.dump(document("train", work / "domain.pddl", recs, []), fh)
    entry = {"family": "heuristic", "learner": "ridge", "train": {"data": "plans"}, "encoder": {"pruning": pruning}} \
        | (entry or {})
    entry["train"] = {"data": "plans"} | entry["train"]
    summary = train_heuristic("h_ridge", entry, domain_key(work / "domain.pddl"), {"train": [traj, work],
                                                                                   "validation": []},
                              13, work / "model.ckpt")
    return registry.load_model(work / "model.ckpt"), summary


def ours(model, domain: Path, problem: Path, expansions: int, time_limit: float, lazy: bool = False) -> dict:
    from genplan.planners.base import Problem
    from genplan.planners.search import SearchLimits, gbfs, lazy_gbfs

    prob = Problem(domain, problem)
    h = model.bind(prob)
    timers: dict = {}
    h.timers = timers
    cpu = time.process_time()
    res = (lazy_gbfs if lazy else gbfs)(prob.mimir, h, SearchLimits(expansions, time_limit), timers=timers)
    cpu = time.process_time() - cpu
    timers.pop("heuristic", None)  # split into wl_conversion and prediction by the bound heuristic
    return {"reason": res.reason, "expanded": res.expanded, "evaluated": res.evaluated, "time": cpu,
            "parts": {k: timers.get(k, 0.0) for k in PARTS}}


def fast_downward(domain: Path, problem: Path, time_limit: float) -> dict:
    from genplan.tools import fast_downward_driver

    with tempfile.TemporaryDirectory(prefix="genplan-speed-") as tmp:
        cmd = [sys.executable, str(fast_downward_driver()), "--plan-file", str(Path(tmp) / "plan"),
               str(domain.resolve()), str(problem.resolve()), "--search", f"eager_greedy([ff()], max_time={time_limit})"]
        log = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True, timeout=time_limit + 120).stdout
    solved = "Solution found." in log
    final = re.search(r"Expanded (\d+) state", log), re.search(r"Evaluated (\d+) state", log), \
        re.search(r"Search time: ([\d.]+)s", log)
    if all(final):
        expanded, evaluated, t = int(final[0].group(1)), int(final[1].group(1)), float(final[2].group(1))
    else:  # stopped at max_time: the last progress line
        last = re.findall(r"\[t=([\d.]+)s, \d+ KB\] g=\d+, (\d+) evaluated, (\d+) expanded", log)
        t, evaluated, expanded = (float(last[-1][0]), int(last[-1][1]), int(last[-1][2])) if last else (0.0, 0, 0)
    return {"reason": "goal" if solved else "stopped", "expanded": expanded, "evaluated": evaluated, "time": t}


def fastest(n: int, search, *args, **kwargs) -> dict:
    """The run with the most expansions per second of n runs of `search` (ours or fast_downward):
    the least disturbed by other jobs on a shared machine."""
    runs = [search(*args, **kwargs) for _ in range(max(1, n))]
    return max(runs, key=lambda r: r["expanded"] / max(r["time"], 1e-9))


def rate(run: dict) -> float:
    """Expansions per second of a timed run (`fastest`'s dict)."""
    return run["expanded"] / max(run["time"], 1e-9)


def trained_problems(a, lines: list[str]):
    """Per domain of `a.domains`: train ridge from `a.train` plans (a line on it appended to `lines` and
    printed), then yield (domain name, problem name, model, domain file, problem file) for each of `a.problems`."""
    for dom in a.domains:
        with tempfile.TemporaryDirectory(prefix="genplan-speed-") as tmp:
            t = time.perf_counter()
            model, summary = train_from_plans(a.benchmark / dom, Path(tmp) / dom, a.train, a.pruning)
            lines.append(f"# {dom}: trained on {summary['train_problems']} plans ({summary['plan_states']} states, "
                         f"{summary['feature_dim']} features) in {time.perf_counter() - t:.1f} s")
            print(lines[-1], flush=True)
            for name in a.problems:
                yield dom, name, model, a.benchmark / dom / "domain.pddl", a.benchmark / dom / "testing" / f"{name}.pddl"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--domains", nargs="+", default=["blocksworld", "ferry", "miconic", "transport"])
    ap.add_argument("--problems", nargs="+", default=["medium/p01"], help="<level>/<pNN> of each domain's testing/")
    ap.add_argument("--train", type=int, default=99, help="training problems (their plans) per domain")
    ap.add_argument("--expansions", type=int, default=5000, help="our GBFS: expansions at most per problem")
    ap.add_argument("--time-limit", type=float, default=20.0, help="seconds at most per search")
    ap.add_argument("--benchmark", type=Path, default=IPC)
    ap.add_argument("--repeat", type=int, default=3, help="runs of each search, the fastest (expansions per "
                                                          "second) reported")
    ap.add_argument("--pruning", default="none", help="wlplan's feature pruning of the learned heuristic "
                                                       "(genplan.features.wlplan_edge.PRUNING)")
    ap.add_argument("--out", type=Path, default=None)
    a = ap.parse_args(argv)
    lines = [f"# search speed: learned GBFS (ridge, WL 2 iterations, pruning {a.pruning}, trained from plans) vs Fast Downward "
             f"eager_greedy([ff()]); {platform.processor() or platform.machine()}, one core, CPU time; "
             f"ours <= {a.expansions} expansions, both <= {a.time_limit:g} s; the fastest of {a.repeat} runs each",
             f"# {'domain':12s} {'problem':11s} {'ours exp':>8s} {'ours s':>6s} {'ours exp/s':>10s} "
             f"{'FD exp':>8s} {'FD s':>6s} {'FD exp/s':>8s} {'slower':>6s} {'lazy exp/s':>8s} {'us/eval':>7s} "
             f"{'FD us/eval':>10s} {'ours end':>10s} {'FD end':>7s} | eager GBFS's time, %: "
             + " ".join(PARTS)]
    print("\n".join(lines), flush=True)
    total = {k: 0.0 for k in PARTS}
    ratios = []
    for dom, name, model, domain, problem in trained_problems(a, lines):
        o = fastest(a.repeat, ours, model, domain, problem, a.expansions, a.time_limit)
        lz = fastest(a.repeat, ours, model, domain, problem, a.expansions, a.time_limit, lazy=True)
        f = fastest(a.repeat, fast_downward, domain, problem, a.time_limit)
        ro, rf = rate(o), rate(f)
        ratio = rf / ro if ro else float("inf")
        ratios.append(ratio)
        spent = sum(o["parts"].values()) or 1.0
        for k in PARTS:
            total[k] += o["parts"][k]
        lines.append(f"  {dom:12s} {name:11s} {o['expanded']:8d} {o['time']:6.2f} {ro:10.0f} {f['expanded']:8d} "
                     f"{f['time']:6.2f} {rf:8.0f} {ratio:6.1f} {rate(lz):10.0f} "
                     f"{1e6 * o['time'] / max(o['evaluated'], 1):7.0f} {1e6 * f['time'] / max(f['evaluated'], 1):10.1f} "
                     f"{o['reason']:>10s} {f['reason']:>7s} | "
                     + " ".join(f"{100 * o['parts'][k] / spent:4.0f}" for k in PARTS))
        print(lines[-1], flush=True)
    spent = sum(total.values()) or 1.0
    lines.append("# all problems, ours' time, %: " + ", ".join(f"{k} {100 * v / spent:.0f}" for k, v in total.items()))
    if ratios:
        import statistics

        lines.append(f"# FD's expansions/s over ours: median {statistics.median(ratios):.1f}x, "
                     f"max {max(ratios):.1f}x over {len(ratios)} problems")
    print("\n".join(lines[-2:]))
    if a.out:
        a.out.parent.mkdir(parents=True, exist_ok=True)
        a.out.write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
