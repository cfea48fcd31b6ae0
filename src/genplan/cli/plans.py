"""The commands that make plans with Fast Downward, every plan checked by VAL: `plan` (one split of
a benchmark), `plan-anytime` (anytime LAMA on a split's problems without a proven optimum) and
`plan-files` (loose problem files). All three end their Fast Downward runs on a signal. And
`plans-hashes`, which gives a plans table of an older genplan its problems' SHA-256."""

from __future__ import annotations

import sys
import textwrap

from genplan.cli import writes
from genplan.cli.types import BENCHMARK_DIR, PLANS_TABLE, SPLIT, Command, arg
from genplan.cli.types import json_object as _json
from genplan.errors import GenplanError

MAX_TIME_LIMIT_S = 604800  # the config schema's bound on every time_limit
THREADS = arg("--threads", type=int, default=1, help="problems planned at once (one Fast Downward run each)")
OUT_DIR = arg("--out-dir", required=True, path=writes.OUT_FOLDER, help="the plans folder (replaced as a whole): new, empty, or one this "
              "command wrote (genplan.outputs)")
_PLAN_INTERRUPT = ("SIGTERM, SIGINT (Ctrl-C) or SIGHUP ends every running Fast Downward process group, removes the "
                   "run folders (genplan-fd-* in $TMPDIR) and the hidden temporary output folder, writes nothing, "
                   "and exits 128 + the signal's number (143 for SIGTERM, 130 for SIGINT).")


def _planner_descriptions() -> str:
    from genplan.stages.fast_downward import DESCRIPTIONS

    return "\n".join(f"  {name:<12} {text}" for name, text in DESCRIPTIONS.items())


def _wrap(text: str) -> str:
    """Paragraphs filled to 90 columns; a line that starts with two spaces is a table entry."""
    return "\n".join(textwrap.fill(line, 90, subsequent_indent=" " * 15 if line.startswith("  ") else "")
                     for line in text.split("\n"))


def cmd_plans_hashes(a) -> int:
    from genplan import atomic
    from genplan.stages import plans_hashes as ph

    if (a.evaluations is None) == (a.benchmark_dir is None):
        raise GenplanError("give the hashes' source: --evaluations FOLDER or --benchmark-dir DIR (one of them)")
    if a.evaluations is not None:
        sums, source = ph.hashes_from_evaluations(a.evaluations, a.split), f"the stored plans under {a.evaluations}"
    else:
        sums, source = ph.hashes_from_folder(a.benchmark_dir, a.split), f"the problem files of {a.benchmark_dir}"
    atomic.write_text(a.out, ph.add_hashes(a.table, sums, source))
    print(f"{a.out}: {a.table} with the problem_sha256 of {source}")
    return 0


def _interrupted(exc) -> int:
    print(f"genplan: {exc}: Fast Downward runs ended, temporary folders removed, no output written", file=sys.stderr)
    return exc.exit_status


def cmd_plan(a) -> int:
    from genplan.configuration import check_value
    from genplan.processes import Interrupted, interruptible
    from genplan.stages.plans import plan_split

    check_value(a.params, ("properties", "planner"), "--params (the planner section)",
                required=("optimal", "fallback", "lama", "memory_limit_mb"))
    try:
        with interruptible():
            plan_split(a.benchmark_dir, a.split, a.params, a.out_dir, a.out_table, threads=a.threads)
    except Interrupted as exc:
        return _interrupted(exc)
    return 0  # a malformed problem raises MalformedProblems (a GenplanError): one message, exit 1


def cmd_plan_anytime(a) -> int:
    from genplan.configuration import check_value
    from genplan.paths import ALL_SPLITS
    from genplan.processes import Interrupted, interruptible
    from genplan.stages.anytime import anytime_split

    check_value(a.params, ("properties", "planner"), "--params (the planner section)",
                required=("lama_anytime", "memory_limit_mb"))
    if a.split not in ALL_SPLITS:
        raise GenplanError(f"--split must be one of {list(ALL_SPLITS)}, not {a.split!r}")
    if a.threads < 1:
        raise GenplanError(f"--threads must be at least 1, not {a.threads}")
    try:
        with interruptible():
            anytime_split(a.benchmark_dir, a.split, a.plans_table, a.params, a.out_dir, a.out_table, threads=a.threads)
    except Interrupted as exc:
        return _interrupted(exc)
    return 0


def _check_plan_files_limits(a) -> None:
    # inf and 1e9 overflowed deep inside; NaN compared false; under 1 s Fast Downward's driver (whole
    # seconds only) was given 2 s without a word
    if not 1 <= a.time_limit <= MAX_TIME_LIMIT_S:
        raise GenplanError(f"--time-limit must be a number of seconds from 1 (Fast Downward's driver takes whole "
                           f"seconds) up to {MAX_TIME_LIMIT_S} (a week), not {a.time_limit}")
    if a.threads < 1:
        raise GenplanError(f"--threads must be at least 1, not {a.threads}")
    if a.memory_limit_mb < 256:
        raise GenplanError(f"--memory-limit-mb must be at least 256, not {a.memory_limit_mb}")


def cmd_plan_files(a) -> int:
    from genplan.processes import Interrupted, interruptible
    from genplan.stages.plan_files import TABLE_NAME, plan_files, problem_line
    from genplan.stages.plans import MalformedProblems, summary

    _check_plan_files_limits(a)
    malformed = None
    try:
        with interruptible():
            table = plan_files(a.domain, a.problems, a.planner, a.time_limit, a.memory_limit_mb, a.out_dir,
                               threads=a.threads,
                               on_problem=lambda name, rows: print(problem_line(name, rows), flush=True))
    except Interrupted as exc:
        return _interrupted(exc)
    except MalformedProblems as exc:
        malformed, table = exc, exc.table
    problems = {r["problem"] for r in table}
    valid = {r["problem"] for r in table if r["valid"] == "yes"}
    print(f"{summary(table, len(problems))}; plans and {TABLE_NAME} in {a.out_dir}")
    if malformed is not None:
        print(f"genplan: error: {malformed}", file=sys.stderr)
    return 0 if valid == problems else 1


PLAN_DESCRIPTION = (
    "Plan every problem of one split of a benchmark folder (made by `genplan generate` or `genplan import`, "
    "with manifest.csv) with Fast Downward, and check every plan with VAL.\n\n"
    "Per problem: A* + LM-cut (optimal.time_limit seconds; \"optimal\": {\"enabled\": false} skips it); if "
    "it neither finds a plan nor proves the problem unsolvable, or did not run, GBFS + FF (fallback); and "
    "LAMA-first (lama), for the best-known plan length; where the section has gbfs_ff_eager, eager GBFS + FF "
    "on every problem (the classical baseline of a learned heuristic's GBFS). Each run has memory_limit_mb.\n"
    "Configurations:\n{planners}\n\n"
    "Outputs: --out-dir holds <problem>.<config>.plan for every plan and <problem>.plan, the trajectory's plan "
    "(A* + LM-cut's, else GBFS + FF's, else eager GBFS + FF's) and limits.json (each configuration's time and "
    "memory limit); --out-table one row per run: status (optimal, satisficing, timeout, "
    "unsolvable, error), plan length, time, VAL's verdict, reason. Both are written atomically, the table last. "
    "The last log line counts the problems with a VAL-valid plan from any configuration.\n\n"
    "Exit status: 0 when the split was planned (problems without a plan are rows, not failures). 1 when a "
    "problem is malformed: every problem is parsed first; a malformed one is not planned, its rows say "
    "`error` and why, the others are planned and both outputs are written, then one message names every "
    "malformed file (run by Snakemake, the failed job's outputs are then deleted: fix the PDDL and rerun). "
    "1 also for a malformed domain or bad --params, with nothing written. ")
ANYTIME_DESCRIPTION = (
    "Run LAMA 2011 as an anytime planner (lama_anytime: alias seq-sat-lama-2011, to its time limit, the "
    "last and cheapest plan kept) on every problem of one split that the split's plans table (from "
    "`genplan plan`) leaves without a proven optimum, and check every plan with VAL: the best-known "
    "reference of the reports' quality. A problem whose astar_lmcut row is `optimal` (or `unsolvable`) "
    "is not run; its row says `skipped-optimal` (`skipped-unsolvable`).\n\n"
    "Outputs: --out-dir holds <problem>.lama_anytime.plan for every plan; --out-table one row per problem "
    "of the split, with the plans table's columns (config lama_anytime; status satisficing, timeout, "
    "error, skipped-optimal or skipped-unsolvable; the reason says how many plans came). Both written "
    "atomically, the table last.\n\n"
    "Exit status: 0 when the split was run (problems without a plan are rows, not failures); 1 with one "
    "message and nothing written for bad --params, a missing or foreign plans table (its problems must "
    "be the split's), or lama_anytime disabled. ")
PLAN_FILES_DESCRIPTION = (
    "Plan PROBLEM files of DOMAIN with one Fast Downward configuration and check every plan with VAL.\n"
    "Configurations (--planner):\n{planners}\n"
    "  default      A* + LM-cut, then GBFS + FF when A* neither finds a plan nor proves unsolvability "
    "(the pipeline's pair)\n\n"
    "Prints one line per problem (status, configuration, plan length, time, VAL's verdict) and a final count "
    "of the problems with a VAL-valid plan. Writes --out-dir atomically: <problem>.plan (named by the "
    "problem file's stem) for each VAL-valid plan, <problem>.<config>.rejected.plan for a plan VAL "
    "rejects, and plans.csv, one row per run. --out-dir must be new, empty, or an earlier output of this "
    "command (it is replaced). DOMAIN given among the problems (dir/*.pddl) is skipped.\n\n"
    "Exit status: 0 only when every problem has a VAL-valid plan; 1 otherwise (timeout, unsolvable, error, "
    "or a malformed problem: it is not planned, its row says why, the others are planned and written, "
    "and one message names every malformed file); 1 with nothing written for a malformed domain. ")


def _description(text: str) -> str:
    """A description with the configurations' table and the signals' paragraph, filled."""
    return _wrap(text.replace("{planners}", _planner_descriptions()) + _PLAN_INTERRUPT)


COMMANDS = (
    Command("plan", cmd_plan, "plan one split with Fast Downward; every plan checked by VAL", (
        BENCHMARK_DIR, SPLIT,
        arg("--params", type=_json, required=True,
            help='the planner configuration (JSON), e.g. {"optimal": {"time_limit": 60}, "fallback": '
                 '{"enabled": true, "time_limit": 300}, "lama": {"enabled": true, "time_limit": 60}, '
                 '"memory_limit_mb": 4096}; omitted time limits take the config schema\'s defaults'),
        THREADS, OUT_DIR,
        arg("--out-table", required=True, path=writes.OUT_FILE, help="the CSV table of every run")),
        description=_description(PLAN_DESCRIPTION)),
    Command("plan-anytime", cmd_plan_anytime,
            "anytime LAMA on a split's problems without a proven optimum; every plan checked by VAL", (
                BENCHMARK_DIR, SPLIT, PLANS_TABLE,
                arg("--params", type=_json, required=True,
                    help='the planner configuration (JSON): {"lama_anytime": {"enabled": true, "time_limit": 60}, '
                         '"memory_limit_mb": 4096}; an omitted time limit takes the config schema\'s default'),
                THREADS, OUT_DIR,
                arg("--out-table", required=True, path=writes.OUT_FILE, help="the CSV table, one row per problem")),
            description=_description(ANYTIME_DESCRIPTION)),
    Command("plan-files", cmd_plan_files,
            "plan loose PDDL problem files with one Fast Downward configuration; every plan checked by VAL", (
                arg("domain", metavar="DOMAIN", path=writes.READ, help="the PDDL domain file"),
                arg("problems", metavar="PROBLEM", nargs="+", path=writes.READ, help="PDDL problem files"),
                arg("--planner", choices=("astar_lmcut", "gbfs_ff", "gbfs_ff_eager", "lama_first", "lama_anytime",
                                          "default"),
                    default="default", help="the configuration (see above)"),
                arg("--time-limit", type=float, default=60, help="seconds per Fast Downward run"),
                arg("--memory-limit-mb", type=int, default=4096, help="memory per Fast Downward run (MiB)"),
                arg("--threads", type=int, default=1, help="problems planned at once"),
                arg("--out-dir", required=True, path=writes.OUT_FOLDER, help="folder for the plans and plans.csv")),
            description=_description(PLAN_FILES_DESCRIPTION)),
    Command("plans-hashes", cmd_plans_hashes,
            "add problem_sha256 to a plans table made before the column, from the files it was planned from", (
                arg("--table", required=True, path=writes.READ, help="the plans table"),
                SPLIT,
                arg("--evaluations", default=None, path=writes.TREE, help="a folder of the split's evaluations "
                    "(e.g. <root>/evaluation/<benchmark>/<domain>): the SHA-256 their stored plans record"),
                arg("--benchmark-dir", default=None, path=writes.TREE, help="or a benchmark folder known to hold "
                    "the files the table was planned from (a pinned import)"),
                arg("--out", required=True, path=writes.OUT_FILE, help="the table with the column")),
            description="Readers that join a plans table to problem files (evaluate, trajectories, stats, "
            "plan-anytime) refuse a table without problem_sha256: its best-known lengths could be other "
            "problems'. This command writes the table with the column, its rows unchanged, from the stored "
            "plans of the split's evaluations (every one must agree on each problem) or from a pinned "
            "benchmark folder (genplan.stages.plans_hashes)."),
)
