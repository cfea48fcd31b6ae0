"""Why the authors' Fast Downward A* + LM-cut solved 57 of the 219 VisitAll extrapolation problems
and ours solves 192 (issue 15, item 3): run a sample of problems from both sides of their
boundary under candidate settings and print, per problem and setting, the outcome, CPU time,
expanded states, peak memory, LM-cut's initial value and whether the plan equals the authors'
reference plan action for action.

How the authors planned (ai4society/state-centric-gen-planning, code/data-processing/
generate_plans.py; the VisitAll plans date from commit ac8a3a9, 2025-11-22, whose data_gen.sh ran
it on a 128-core Anvil node with `--workers 120`; they never changed after): per problem, in a temporary working
directory,

    timeout 60s ~/planning/downward/fast-downward.py --plan-file OUT domain problem \\
        --search "astar(lmcut())"

(GNU `timeout`, i.e. wall clock, no memory limit, no translator options, Fast Downward from a
source checkout); any non-zero exit counts as failure, and then the same with `timeout 300s` and
`--evaluator "h=ff()" --search "lazy_greedy([h], preferred=[h])"` writes the plan instead.

The settings compared:
- `ours`: the Fast Downward of the up-fast-downward wheel in .venv (FD 26.6), called as the
  pipeline calls it (genplan.stages.fast_downward: the driver's --overall-time-limit, a CPU-time
  limit, and --overall-memory-limit 4096M).
- `their-cmd`: the same Fast Downward called exactly the authors' way (wall-clock `timeout`, no
  memory limit).
- `lmcut-2025`: the same Fast Downward and the authors' command with
  `astar(lmcut(goal_zone_detection=false, border_detection=false))`: LM-cut as it was before
  Fast Downward issue 1228 (aibasel/downward pull request 301, opened 2026-07-28), which added
  these two tie-breaking rules for the h^max supporters of zero-cost operators; FD 26.6 has both
  on by default (`fast-downward.py --search -- --help lmcut`). The authors' Fast Downward (a
  checkout of November 2025) had neither, and with both off FD 26.6 expands the same states as
  FD 24.06+ and returns the same plans.
  CPU-time limit (the driver's --overall-time-limit), since this development machine is shared;
  on the authors' dedicated cores wall and CPU time agree.
- `fd24` (not run unless named): the authors' command with the Fast Downward of their time:
  up-fast-downward 0.5.2 ships FD main of 2025-08-05 (ba6ffb797, "24.06+"); no commit between it
  and the authors' run touched the search, LM-cut or A* (its one driver difference, the
  translator run twice, was fixed on 2025-10-26). CPU-time limit as above. Install it beside the
  project (not a dependency):

      pip install --no-deps --target build/fd-24.06 up-fast-downward==0.5.2

For every problem whose reference plan is longer than the optimal length (the authors' A*
failed, their GBFS fallback planned), the fallback is also run with their exact options (FD 26.6
of the wheel; FD 24.06+ gives the same plans) and its plan compared with the reference action for
action.

    nice -n 10 python experiments/fd_visitall_gap.py | tee experiments/results/fd-visitall-gap.txt
    nice -n 10 python experiments/fd_visitall_gap.py --settings fd24 lmcut-2025 --sample ...

Defaults read results/problems/paper/visitall/ (the published instances as the pipeline
imported them) and results/plans/paper/visitall/extrapolation.csv (optimal lengths from our
A*); `--problems`, `--reference-plans` and `--plans-csv` point elsewhere, e.g. at
../shared/benchmarks/paper-splits/visitall/{test-extrapolation,reference-plans/test-extrapolation}.
"""

from __future__ import annotations

import argparse
import csv
import os
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from genplan.errors import GenplanError
from genplan.tools import fast_downward_driver

REPO = Path(__file__).resolve().parents[1]
VISITALL = REPO / "results" / "problems" / "paper" / "visitall"
DEFAULT_OLD_FD = REPO / "build" / "fd-24.06" / "up_fast_downward" / "downward" / "fast-downward.py"

# Both sides of the authors' boundary: their A* solved the first nine (21 to 33 cells) and failed
# on the other six (32 to 88 cells), all of which our A* solves in about a second.
SAMPLE = ["w02h11-01", "w03h07-01", "w05h05-02", "w04h07-01", "w10h03-03", "w06h05-01", "w03h11-03", "w03h11-01",
          "w11h03-02", "w04h08-01", "w04h08-03", "w08h04-03", "w05h07-02", "w06h06-03", "w08h11-02"]

ASTAR = ("--search", "astar(lmcut())")
ASTAR_2025 = ("--search", "astar(lmcut(goal_zone_detection=false, border_detection=false))")
GBFS = ("--evaluator", "h=ff()", "--search", "lazy_greedy([h], preferred=[h])")


@dataclass(frozen=True)
class Setting:
    name: str
    fd: str                 # "current" (the .venv wheel) | "old" (FD 24.06+)
    limit_kind: str         # "cpu": the driver's --overall-time-limit | "wall": coreutils `timeout`
    time_limit: int         # seconds
    memory_mb: int | None   # the driver's --overall-memory-limit, None for none
    search: tuple[str, ...] = ASTAR


@dataclass
class Outcome:
    status: str             # solved | timeout | memory | error N
    wall: float
    cpu: float              # CPU seconds of the driver, translator and search together
    expanded: int | None
    evaluated: int | None   # states LM-cut was computed on: where A* + LM-cut spends its time
    expanded_final: bool    # False: the counts of the last progress line before the limit
    f_reached: int | None
    initial_h: int | None
    peak_kb: int | None
    plan: list[str] | None


def cells_of(name: str) -> int | None:
    """Grid cells from a VisitAll problem name such as w04h08-01 (None for other names)."""
    m = re.match(r"w(\d+)h(\d+)", name)
    return int(m.group(1)) * int(m.group(2)) if m else None


def plan_actions(text: str) -> list[str]:
    """The actions of a plan file, lower case with single spaces (comments dropped)."""
    return [" ".join(line.strip().lower().split()) for line in text.splitlines() if line.strip().startswith("(")]


def parse_log(log: str) -> dict:
    """Expanded and evaluated states, last f layer, LM-cut's initial value, search time and peak memory from a
    Fast Downward log (FD 23.06 to 26.6 formats)."""
    final = re.findall(r"\] Expanded (\d+) state", log)
    final_eval = re.findall(r"\] Evaluated (\d+) state", log)
    layers = re.findall(r"f = (\d+), (\d+) evaluated, (\d+) expanded", log)
    h0 = re.search(r"Initial heuristic value for lmcut(?:\(\))?: (\d+)", log)
    peak = re.findall(r"Peak memory: (\d+) KB", log)
    out = {"expanded": None, "evaluated": None, "expanded_final": False, "f_reached": None,
           "initial_h": int(h0.group(1)) if h0 else None, "peak_kb": int(peak[-1]) if peak else None}
    if layers:
        out["f_reached"] = int(layers[-1][0])
        out["evaluated"], out["expanded"] = int(layers[-1][1]), int(layers[-1][2])
    if final and final_eval:
        out["expanded"], out["evaluated"], out["expanded_final"] = int(final[-1]), int(final_eval[-1]), True
    return out


def status_of(returncode: int) -> str:
    """Our reading of the driver's exit code (driver/returncodes.py) and coreutils timeout's 124."""
    if returncode == 0:
        return "solved"
    if returncode in (124, 23, 24, -24, 232, -signal.SIGKILL):
        return "timeout"
    if returncode == 22:
        return "memory"
    return f"error {returncode}"


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run(driver: Path, domain: Path, problem: Path, setting: Setting) -> Outcome:
    """One Fast Downward run in its own temporary directory and process group."""
    with tempfile.TemporaryDirectory(prefix="fd-gap-") as work:
        plan_file = Path(work) / "plan"
        cmd = [sys.executable, str(driver)]
        if setting.limit_kind == "cpu":
            cmd += ["--overall-time-limit", f"{setting.time_limit}s"]
        elif setting.limit_kind == "wall":
            cmd = ["timeout", f"{setting.time_limit}s"] + cmd
        else:
            raise ValueError(f"Unknown value {setting.limit_kind=}. Must be from ['cpu', 'wall']")
        if setting.memory_mb:
            cmd += ["--overall-memory-limit", f"{setting.memory_mb}M"]
        cmd += ["--plan-file", str(plan_file), str(domain), str(problem), *setting.search]
        cpu0, t0 = _children_cpu(), time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                start_new_session=True)
        try:  # a CPU limit on a busy machine can take longer in wall time: a generous guard only
            log, _ = proc.communicate(timeout=3 * setting.time_limit + 60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            log, _ = proc.communicate()
        wall, cpu = time.perf_counter() - t0, _children_cpu() - cpu0
        plan = plan_actions(plan_file.read_text()) if proc.returncode == 0 and plan_file.is_file() else None
        status = status_of(proc.returncode) if plan is not None or proc.returncode != 0 else "error no plan"
        return Outcome(status, wall, cpu, plan=plan, **parse_log(log))


def optimal_lengths(plans_csv: Path) -> dict[str, int]:
    """Optimal plan lengths from a plans table (rows of config astar_lmcut with status optimal)."""
    if not plans_csv.is_file():
        return {}
    with plans_csv.open() as f:
        return {r["problem"]: int(r["plan_length"]) for r in csv.DictReader(f)
                if r.get("config") == "astar_lmcut" and r.get("status") == "optimal"}


def _fmt(value, spec="") -> str:
    return "-" if value is None else format(value, spec)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--domain", type=Path, default=VISITALL / "domain.pddl")
    ap.add_argument("--problems", type=Path, default=VISITALL / "extrapolation", help="folder of NAME.pddl")
    ap.add_argument("--reference-plans", type=Path, default=VISITALL / "reference-plans" / "extrapolation",
                    help="folder of the authors' NAME.plan")
    ap.add_argument("--plans-csv", type=Path,
                    default=REPO / "results" / "plans" / "paper" / "visitall" / "extrapolation.csv",
                    help="our plans table, for the optimal lengths")
    ap.add_argument("--old-fd", type=Path, default=DEFAULT_OLD_FD, help="fast-downward.py of FD 24.06+ (see above)")
    ap.add_argument("--time-limit", type=int, default=60, help="seconds for A* (the authors': 60)")
    ap.add_argument("--sample", nargs="+", default=SAMPLE, help="problem names")
    ap.add_argument("--settings", nargs="+", default=["ours", "their-cmd", "lmcut-2025"],
                    help="from ours, their-cmd, lmcut-2025, fd24")
    ap.add_argument("--no-gbfs", action="store_true", help="skip the fallback check")
    args = ap.parse_args(argv)

    drivers = {"current": fast_downward_driver()}
    if args.old_fd.is_file():
        drivers["old"] = args.old_fd
    elif "fd24" in args.settings:
        print(f"# FD 24.06+ not found at {args.old_fd}: fd24 is skipped "
              "(pip install --no-deps --target build/fd-24.06 up-fast-downward==0.5.2)")
    t = args.time_limit
    known = {"ours": Setting("ours", "current", "cpu", t, 4096),
             "their-cmd": Setting("their-cmd", "current", "wall", t, None),
             "lmcut-2025": Setting("lmcut-2025", "current", "cpu", t, None, ASTAR_2025),
             "fd24": Setting("fd24", "old", "cpu", t, None)}
    unknown = [s for s in args.settings if s not in known]
    if unknown:
        raise GenplanError(f"unknown settings {unknown}; known: {sorted(known)}")
    settings = [known[s] for s in args.settings if known[s].fd in drivers]
    gbfs = Setting("gbfs", "current", "wall", 300, None, GBFS)

    optimal = optimal_lengths(args.plans_csv)
    print(f"# domain {args.domain}; problems {args.problems}; reference plans {args.reference_plans}")
    print("# settings: " + "; ".join(f"{s.name}=FD {'24.06+' if s.fd == 'old' else '26.6 (.venv)'} "
                                    f"{s.limit_kind} {s.time_limit}s mem {_fmt(s.memory_mb)}M {s.search[-1]}"
                                    for s in settings))
    print(f"# fallback check: FD 26.6 (.venv) wall 300s {' '.join(GBFS)}")
    print("# theirs: A* when the reference plan has the optimal length, else GBFS (their fallback)")
    print("# status, cpu s (driver+translator+search), expanded and evaluated states (> = at the limit: the "
          "last progress line), f = last f layer, h0 = LM-cut's initial value, peak MB, "
          "=ref: plan identical to the reference")
    header = ["problem", "cells", "opt", "ref", "theirs", "setting", "status", "cpu_s", "wall_s", "expanded",
              "evaluated", "f", "h0", "peak_MB", "=ref"]
    print("\t".join(header), flush=True)
    rows, agree = [], {s.name: [0, 0] for s in settings}
    agree["gbfs"] = [0, 0]
    for name in args.sample:
        problem = args.problems / f"{name}.pddl"
        ref_file = args.reference_plans / f"{name}.plan"
        for path in (problem, ref_file):
            if not path.is_file():
                raise GenplanError(f"problem {name}: file missing", path)
        ref = plan_actions(ref_file.read_text())
        opt = optimal.get(name)
        theirs = "-" if opt is None else ("A*" if len(ref) == opt else "GBFS")
        for s in settings + ([gbfs] if theirs == "GBFS" and not args.no_gbfs else []):
            o = run(drivers[s.fd], args.domain, problem, s)
            same = None if o.plan is None else ("yes" if o.plan == ref else "no")
            at_limit = "" if o.expanded_final else ">"
            exp = None if o.expanded is None else at_limit + str(o.expanded)
            evl = None if o.evaluated is None else at_limit + str(o.evaluated)
            rows.append([name, _fmt(cells_of(name)), _fmt(opt), str(len(ref)), theirs, s.name, o.status,
                         f"{o.cpu:.1f}", f"{o.wall:.1f}", _fmt(exp), _fmt(evl), _fmt(o.f_reached), _fmt(o.initial_h),
                         _fmt(None if o.peak_kb is None else o.peak_kb / 1024, ".0f"), _fmt(same)])
            if theirs != "-":
                # A* settings: solved exactly where theirs did; the fallback: the same plan
                hit = (o.status == "solved") == (theirs == "A*") if s is not gbfs else same == "yes"
                agree[s.name][0] += int(hit)
                agree[s.name][1] += 1
            print("\t".join(rows[-1]), flush=True)
    print("\n# agreement with the authors' outcome (A*: solved where theirs solved and failed where it failed; "
          "gbfs: the same plan as their fallback's)")
    for name, (hit, n) in agree.items():
        if n:
            print(f"{name}\t{hit}/{n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
