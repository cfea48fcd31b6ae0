"""Why the learned heuristic loses a domain (issue 57, item 4): per IPC 2023 domain, how the learned h
ranks the siblings along the reference plans of test problems, and the expansions it needs to the
goal against LAMA-first's.

Per domain the ridge heuristic of the ipc2023-cpu `heuristic_ridge` entry (WL, 2 iterations, trained
from the first --train training problems' shipped plans: `search_speed.train_from_plans`, with
--pruning as wlplan's feature pruning) is trained once. Then, on the first --problems test problems
of --level with a shipped reference plan, each state s_i along that plan is expanded (pymimir's
successors) and its successors scored in one call. Per step:

- `best`: the plan's next state has the strictly lowest h among the successors (GBFS would expand it
  next among them); `tied`: lowest but shared with another successor; `worse`: some successor has a
  lower h (GBFS goes there first). A step with one successor (or one distinct successor state) counts
  in none and in `forced`.
- `flat`: all successors share one h value (h does not separate the siblings: a plateau).
- `twin`: the plan's next state has the very same WL feature vector as another distinct successor
  (no weights can separate them). Symmetric states (sailing to one of two interchangeable
  locations) are twins too, so this bounds the harmful collisions from above.
- `down`: h(s_{i+1}) < h(s_i) along the plan.
- `rank`: the mean normalised rank of the plan's next state among the successors by h (0 best,
  1 worst; ties at their mean position).

Beside it, the eager GBFS of the learned h from the committed ipc2023-cpu evaluation (its expansions on
the same problems, at 60 s) and LAMA-first's expansions (Fast Downward's `--alias lama-first`, run
here on the same problem with --lama-time seconds; `--no-lama` skips it and prints `-`: its
expansions depend on the problem only, and experiments/results/heuristic-diagnosis*.txt hold them).
`--iterations` sets the WL iterations (2 as the ipc2023-cpu entries); --entry's `encoder` settings
go over --pruning and --iterations. With --out the file's first line is the command.

    nice -n 5 python experiments/heuristic_diagnosis.py --out experiments/results/heuristic-diagnosis.txt
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "perf"))  # search_speed.py, a measurement script
from search_speed import IPC, train_from_plans  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DOMAINS = ("blocksworld", "childsnack", "ferry", "floortile", "miconic", "rovers", "satellite", "sokoban",
           "spanner", "transport")
EVAL = ROOT / "results" / "ipc2023-cpu" / "evaluation" / "ipc2023"


def plan_steps(model, domain: Path, problem: Path, plan: Path) -> list[dict]:
    """Per step of the reference plan: the successors' h, the plan successor's index among them, whether
    two distinct successors share a feature vector."""
    from genplan.pddl_io import read_plan
    from genplan.planners.base import Problem

    prob = Problem(domain, problem)
    task, h = prob.mimir, model.bind(prob)
    state = task.initial_state()
    steps = []
    h_prev = float(h([state])[0])
    for action in read_plan(plan):
        succ = task.successors(state)
        names = [a for a, _ in succ]
        if action not in names:
            raise RuntimeError(f"{plan}: {action} not applicable along the plan")
        # distinct successor states (two actions may lead to one state): keep the first of each
        seen, states, nxt = {}, [], None
        for name, s in succ:
            key = task.fluents(s)
            if key not in seen:
                seen[key] = len(states)
                states.append(s)
            if name == action:
                nxt = seen[key]
        hs = np.asarray(h(states), dtype=np.float64)
        twin = False
        if 1 < len(states) <= 400:
            feats = h.features(states)
            twin = sum(row.tobytes() == feats[nxt].tobytes() for row in feats) > 1
        steps.append({"n": len(states), "h": hs, "next": nxt, "h_prev": h_prev, "twin": twin})
        h_prev = float(hs[nxt])
        state = states[nxt]
    if not task.is_goal(state):
        raise RuntimeError(f"{plan}: the reference plan does not reach the goal")
    return steps


def summarise(steps: list[dict]) -> dict:
    tally = {"steps": len(steps), "forced": 0, "best": 0, "tied": 0, "worse": 0, "flat": 0, "twin": 0,
             "down": 0}
    ranks = []
    for st in steps:
        hs, i = st["h"], st["next"]
        tally["down"] += hs[i] < st["h_prev"]
        tally["twin"] += st["twin"]
        if st["n"] < 2:
            tally["forced"] += 1
            continue
        lower, equal = int((hs < hs[i]).sum()), int((hs == hs[i]).sum()) - 1
        tally["flat"] += bool((hs == hs[0]).all())
        tally["best" if lower == 0 and equal == 0 else "tied" if lower == 0 else "worse"] += 1
        ranks.append((lower + equal / 2) / (st["n"] - 1))
    tally["rank"] = float(np.mean(ranks)) if ranks else float("nan")
    return tally


def lama_expansions(domain: Path, problem: Path, limit: float) -> tuple[str, int | None]:
    from genplan.tools import fast_downward_driver

    with tempfile.TemporaryDirectory(prefix="genplan-diag-") as tmp:
        cmd = [sys.executable, str(fast_downward_driver()), "--alias", "lama-first", "--plan-file",
               str(Path(tmp) / "plan"), "--overall-time-limit", f"{int(limit)}s", str(domain.resolve()),
               str(problem.resolve())]
        log = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True, timeout=limit + 120).stdout
    found = re.findall(r"Expanded (\d+) state", log)
    return ("goal" if "Solution found." in log else "stopped"), (int(found[-1]) if found else None)


def ours_expansions(domain: str, level: str, problem: str) -> str:
    """The committed eager GBFS run of heuristic_ridge on the problem: expansions, or why it stopped."""
    path = EVAL / domain / "heuristic_ridge" / "seed13" / f"{level}.gbfs.csv"
    if not path.is_file():
        return "not run"
    for row in csv.DictReader(path.open()):
        if row["problem"] == problem:
            counters = json.loads(row["counters"] or "{}")
            exp = counters.get("states_expanded", row.get("steps"))
            return f"{exp}" if row["solved"] == "yes" else f"{row['reason']}@{exp}"
    return "not run"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--domains", nargs="+", default=list(DOMAINS))
    ap.add_argument("--train", type=int, default=99, help="training problems (shipped plans)")
    ap.add_argument("--pruning", default="none")
    ap.add_argument("--entry", type=json.loads, default={},
                    help='model entry settings over ridge\'s, JSON: \'{"learner": "rank", "train": {"alpha": 1}}\'')
    ap.add_argument("--level", default="easy")
    ap.add_argument("--problems", type=int, default=5)
    ap.add_argument("--lama-time", type=float, default=60)
    ap.add_argument("--no-lama", action="store_true", help="do not run LAMA-first (its column shows -)")
    ap.add_argument("--iterations", type=int, default=2, help="WL iterations")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    entry = dict(args.entry)
    entry["encoder"] = {"pruning": args.pruning, "iterations": args.iterations} | entry.get("encoder", {})
    command = shlex.join(["python", "experiments/heuristic_diagnosis.py", *(sys.argv[1:] if argv is None else argv)])
    lines = [f"# command: {command}",
             f"# learned h along reference plans ({entry.get('learner', 'ridge')}, WL {args.iterations} iterations, "
             f"pruning {args.pruning}, entry "
             f"{json.dumps(args.entry)} over these, trained on "
             f"<= {args.train} shipped training plans); level {args.level}, first {args.problems} problems; "
             f"step shares in % of steps with >= 2 distinct successors (down, twin: of all steps)",
             f"# {'domain':12s} {'steps':>5s} {'best':>5s} {'tied':>5s} {'worse':>5s} {'flat':>5s} "
             f"{'twin':>5s} {'down':>5s} {'rank':>5s} | per problem: ours' eager GBFS expansions (committed, 60 s) / "
             f"LAMA-first's expansions"]
    for dom in args.domains:
        ddir = IPC / dom
        with tempfile.TemporaryDirectory(prefix=f"genplan-diag-{dom}-") as tmp:
            t0 = time.perf_counter()
            model, summary = train_from_plans(ddir, Path(tmp), args.train, args.pruning, entry)
            trained = time.perf_counter() - t0
        total, per = None, []
        for plan in sorted((ddir / "plans" / "testing" / args.level).glob("p*.plan"))[:args.problems]:
            problem = ddir / "testing" / args.level / f"{plan.stem}.pddl"
            tally = summarise(plan_steps(model, ddir / "domain.pddl", problem, plan))
            if total is None:
                total = {k: 0 for k in tally if k != "rank"} | {"ranks": []}
            for k in total:
                if k != "ranks":
                    total[k] += tally[k]
            total["ranks"].append(tally["rank"])
            end, lama = ("goal", "-") if args.no_lama else lama_expansions(ddir / "domain.pddl", problem,
                                                                           args.lama_time)
            per.append(f"{plan.stem} {ours_expansions(dom, args.level, plan.stem)}/"
                       f"{lama if end == 'goal' else 'unsolved'}")
        chosen = max(total["steps"] - total["forced"], 1)
        pct = {k: 100 * total[k] / chosen for k in ("best", "tied", "worse", "flat")}
        line = (f"  {dom:12s} {total['steps']:5d} {pct['best']:5.0f} {pct['tied']:5.0f} {pct['worse']:5.0f} "
                f"{pct['flat']:5.0f} {100 * total['twin'] / max(total['steps'], 1):5.0f} "
                f"{100 * total['down'] / max(total['steps'], 1):5.0f} {np.nanmean(total['ranks']):5.2f} | "
                + ", ".join(per))
        lines.append(f"# {dom}: {summary['train_states']} training states ({summary['distinct_rows']} distinct "
                     f"feature rows), {model.dim} features, train RMSE {summary['train_rmse']:.3f}, trained in "
                     f"{trained:.1f} s")
        lines.append(line)
        print("\n".join(lines[-2:]), flush=True)
    if args.out:
        args.out.write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
