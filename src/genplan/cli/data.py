"""Subcommands of the data stages: `generate`, `import`, `plan`, `plan-anytime`, `plan-files`,
`trajectories`, `statespace`, `stats` and `validate` (registered on the `genplan` parser by `genplan.cli`)."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

from genplan.cli.types import HelpFormatter
from genplan.cli.types import json_object as _json
from genplan.errors import GenplanError

log = logging.getLogger("genplan")


def cmd_generate(a) -> int:
    from genplan.configuration import check_value
    from genplan.stages.problems import generate_benchmark

    check_value(a.params, ("properties", "generate", "additionalProperties"), "--params (a domain's generate section)")
    rows = generate_benchmark(a.domain, a.params, a.seed, Path(a.out))
    log.info("generated %d %s problems into %s", len(rows), a.domain, a.out)
    return 0


def cmd_import(a) -> int:
    from genplan.stages.importer import import_benchmark

    import_benchmark(a.domain, a.source or None, a.out, verify=not a.no_verify)
    return 0


def _planner_descriptions() -> str:
    from genplan.stages.fast_downward import DESCRIPTIONS

    return "\n".join(f"  {name:<12} {text}" for name, text in DESCRIPTIONS.items())


def _wrap(text: str) -> str:
    """Paragraphs filled to 90 columns; a line that starts with two spaces is a table entry."""
    import textwrap

    return "\n".join(textwrap.fill(line, 90, subsequent_indent=" " * 15 if line.startswith("  ") else "")
                     for line in text.split("\n"))


_PLAN_INTERRUPT = ("SIGTERM, SIGINT (Ctrl-C) or SIGHUP ends every running Fast Downward process group, removes the "
                   "run folders (genplan-fd-* in $TMPDIR) and the hidden temporary output folder, writes nothing, "
                   "and exits 128 + the signal's number (143 for SIGTERM, 130 for SIGINT).")


def _interrupted(exc) -> int:
    print(f"genplan: {exc}: Fast Downward runs ended, temporary folders removed, no output written", file=sys.stderr)
    return exc.exit_status


def cmd_plan(a) -> int:
    from genplan.configuration import check_value
    from genplan.stages.fast_downward import Interrupted, interruptible
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
    from genplan.paths import SPLITS
    from genplan.stages.anytime import anytime_split
    from genplan.stages.fast_downward import Interrupted, interruptible

    check_value(a.params, ("properties", "planner"), "--params (the planner section)",
                required=("lama_anytime", "memory_limit_mb"))
    if a.split not in SPLITS:
        raise GenplanError(f"--split must be one of {list(SPLITS)}, not {a.split!r}")
    if a.threads < 1:
        raise GenplanError(f"--threads must be at least 1, not {a.threads}")
    try:
        with interruptible():
            anytime_split(a.benchmark_dir, a.split, a.plans_table, a.params, a.out_dir, a.out_table, threads=a.threads)
    except Interrupted as exc:
        return _interrupted(exc)
    return 0


def cmd_plan_files(a) -> int:
    from genplan.stages.fast_downward import Interrupted, interruptible
    from genplan.stages.plans import TABLE_NAME, MalformedProblems, plan_files, problem_line, summary

    if a.time_limit <= 0:
        raise GenplanError(f"--time-limit must be positive, not {a.time_limit}")
    if a.threads < 1:
        raise GenplanError(f"--threads must be at least 1, not {a.threads}")
    if a.memory_limit_mb < 256:
        raise GenplanError(f"--memory-limit-mb must be at least 256, not {a.memory_limit_mb}")
    malformed = None
    try:
        with interruptible():
            table = plan_files(a.domain, a.problems, a.planner, a.time_limit, a.memory_limit_mb, a.out_dir,
                               threads=a.threads, on_problem=lambda name, rows: print(problem_line(name, rows), flush=True))
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


def cmd_trajectories(a) -> int:
    from genplan.stages.trajectories import trajectories_split

    trajectories_split(a.benchmark_dir, a.split, a.plans_dir, a.plans_table, a.out, all_plans=a.all_plans)
    return 0


def cmd_statespace(a) -> int:
    from genplan.stages.statespace import statespaces_split

    statespaces_split(a.benchmark_dir, a.split, a.max_states, a.out_dir, a.out_table)
    return 0


def cmd_stats(a) -> int:
    from genplan import manifest
    from genplan.stages.stats import split_statistics, write_dataset_statistics

    res = Path(a.results)
    rows = []
    for bench in a.benchmark:
        for dom in a.domain:
            for split in a.split or manifest.SPLITS:
                ss = res / "statespaces" / bench / dom / f"{split}.csv"
                rows.append(split_statistics(
                    bench, dom, split, res / "problems" / bench / dom,
                    res / "plans" / bench / dom / f"{split}.csv", ss if split in (a.statespace_split or ()) else None))
    write_dataset_statistics(rows, Path(a.out_csv), Path(a.out_md))
    return 0


def cmd_validate(a) -> int:
    from genplan import val
    from genplan.pddl_io import parse_domain, parse_problem

    # our parsers first: each names its own file (VAL crashes on a bad problem and blames the plan)
    parse_problem(a.problem, parse_domain(a.domain))
    res = val.validate(a.domain, a.problem, a.plan)
    if res.valid:
        print(f"Plan valid: {res.plan_length} steps ({a.plan})")
        return 0
    where = f" at step {res.failed_step}" if res.failed_step else ""
    print(f"Plan invalid{where}: {res.message} ({a.plan})")
    return 1



def add_parsers(sub) -> None:
    s = sub.add_parser("generate", help="write a generated benchmark for one domain (all splits)",
                       description="Our seeded generators: the PDDL problems of every split at the configured sizes, "
                                   "duplicates removed within and across splits, with manifest.csv and domain.pddl.")
    s.add_argument("--domain", required=True, help="blocks, gripper, logistics or visitall")
    s.add_argument("--params", type=_json, required=True,
                   help='the domain\'s generate section (JSON), e.g. {"sizes": {"train": [4, 6]}, "per_size": {"train": 3}}')
    s.add_argument("--seed", type=int, required=True, help="the same seed gives the same problems")
    s.add_argument("--out", required=True, help="the benchmark folder (written atomically)")
    s.set_defaults(func=cmd_generate)

    s = sub.add_parser("import", help="import the papers' instances for one domain",
                       description="The papers' exact instances, from a local copy laid out like the release or "
                                   "downloaded from the pinned release; every file checked against its SHA-256.")
    s.add_argument("--domain", required=True, help="blocks, gripper, logistics or visitall")
    s.add_argument("--source", default=None, help="local folder laid out like the release; omit to download it")
    s.add_argument("--no-verify", action="store_true", help="accept local files that differ from the release")
    s.add_argument("--out", required=True, help="the benchmark folder (written atomically)")
    s.set_defaults(func=cmd_import)

    s = sub.add_parser(
        "plan", formatter_class=HelpFormatter, help="plan one split with Fast Downward; every plan checked by VAL",
        description=_wrap(
            "Plan every problem of one split of a benchmark folder (made by `genplan generate` or `genplan import`, "
            "with manifest.csv) with Fast Downward, and check every plan with VAL.\n\n"
            "Per problem: A* + LM-cut (optimal.time_limit seconds; \"optimal\": {\"enabled\": false} skips it); if "
            "it neither finds a plan nor proves the problem unsolvable, or did not run, GBFS + FF (fallback); and "
            "LAMA-first (lama), for the best-known plan length. Each run has memory_limit_mb.\n"
            "Configurations:\n" + _planner_descriptions() + "\n\n"
            "Outputs: --out-dir holds <problem>.<config>.plan for every plan and <problem>.plan, the trajectory's plan "
            "(A* + LM-cut's, else GBFS + FF's); --out-table one row per run: status (optimal, satisficing, timeout, "
            "unsolvable, error), plan length, time, VAL's verdict, reason. Both are written atomically, the table last. "
            "The last log line counts the problems with a VAL-valid plan from any configuration.\n\n"
            "Exit status: 0 when the split was planned (problems without a plan are rows, not failures). 1 when a "
            "problem is malformed: every problem is parsed first; a malformed one is not planned, its rows say "
            "`error` and why, the others are planned and both outputs are written, then one message names every "
            "malformed file (run by Snakemake, the failed job's outputs are then deleted: fix the PDDL and rerun). "
            "1 also for a malformed domain or bad --params, with nothing written. " + _PLAN_INTERRUPT))
    s.add_argument("--benchmark-dir", required=True, help="a benchmark folder with manifest.csv and domain.pddl")
    s.add_argument("--split", required=True, help="train, validation, interpolation or extrapolation")
    s.add_argument("--params", type=_json, required=True,
                   help='the planner configuration (JSON), e.g. {"optimal": {"time_limit": 60}, "fallback": '
                        '{"enabled": true, "time_limit": 300}, "lama": {"enabled": true, "time_limit": 60}, '
                        '"memory_limit_mb": 4096}; omitted time limits take the config schema\'s defaults')
    s.add_argument("--threads", type=int, default=1, help="problems planned at once (one Fast Downward run each)")
    s.add_argument("--out-dir", required=True, help="the plans folder (replaced as a whole)")
    s.add_argument("--out-table", required=True, help="the CSV table of every run")
    s.set_defaults(func=cmd_plan)

    s = sub.add_parser(
        "plan-anytime", formatter_class=HelpFormatter,
        help="anytime LAMA on a split's problems without a proven optimum; every plan checked by VAL",
        description=_wrap(
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
            "be the split's), or lama_anytime disabled. " + _PLAN_INTERRUPT))
    s.add_argument("--benchmark-dir", required=True, help="a benchmark folder with manifest.csv and domain.pddl")
    s.add_argument("--split", required=True, help="train, validation, interpolation or extrapolation")
    s.add_argument("--plans-table", required=True, help="the split's plans table (genplan plan --out-table)")
    s.add_argument("--params", type=_json, required=True,
                   help='the planner configuration (JSON): {"lama_anytime": {"enabled": true, "time_limit": 60}, '
                        '"memory_limit_mb": 4096}; an omitted time limit takes the config schema\'s default')
    s.add_argument("--threads", type=int, default=1, help="problems planned at once (one Fast Downward run each)")
    s.add_argument("--out-dir", required=True, help="the plans folder (replaced as a whole)")
    s.add_argument("--out-table", required=True, help="the CSV table, one row per problem")
    s.set_defaults(func=cmd_plan_anytime)

    s = sub.add_parser(
        "plan-files", formatter_class=HelpFormatter,
        help="plan loose PDDL problem files with one Fast Downward configuration; every plan checked by VAL",
        description=_wrap(
            "Plan PROBLEM files of DOMAIN with one Fast Downward configuration and check every plan with VAL.\n"
            "Configurations (--planner):\n" + _planner_descriptions() + "\n"
            "  default      A* + LM-cut, then GBFS + FF when A* neither finds a plan nor proves unsolvability "
            "(the pipeline's pair)\n\n"
            "Prints one line per problem (status, configuration, plan length, time, VAL's verdict) and a final count "
            "of the problems with a VAL-valid plan. Writes --out-dir atomically: <problem>.plan (named by the "
            "problem file's stem) for each VAL-valid plan, <problem>.<config>.rejected.plan for a plan VAL "
            "rejects, and plans.csv, one row per run. --out-dir must be new, empty, or an earlier output of this "
            "command (it is replaced). DOMAIN given among the problems (dir/*.pddl) is skipped.\n\n"
            "Exit status: 0 only when every problem has a VAL-valid plan; 1 otherwise (timeout, unsolvable, error, "
            "or a malformed problem: it is not planned, its row says why, the others are planned and written, "
            "and one message names every malformed file); 1 with nothing written for a malformed domain. "
            + _PLAN_INTERRUPT))
    s.add_argument("domain", metavar="DOMAIN", help="the PDDL domain file")
    s.add_argument("problems", metavar="PROBLEM", nargs="+", help="PDDL problem files")
    s.add_argument("--planner", choices=("astar_lmcut", "gbfs_ff", "lama_first", "lama_anytime", "default"), default="default",
                   help="the configuration (see above)")
    s.add_argument("--time-limit", type=float, default=60, help="seconds per Fast Downward run")
    s.add_argument("--memory-limit-mb", type=int, default=4096, help="memory per Fast Downward run (MiB)")
    s.add_argument("--threads", type=int, default=1, help="problems planned at once")
    s.add_argument("--out-dir", required=True, help="folder for the plans and plans.csv")
    s.set_defaults(func=cmd_plan_files)

    s = sub.add_parser("trajectories", help="VAL state sequences of one split's plans, checked with pymimir")
    s.add_argument("--benchmark-dir", required=True, help="a benchmark folder with manifest.csv and domain.pddl")
    s.add_argument("--split", required=True, help="train, validation, interpolation or extrapolation")
    s.add_argument("--plans-dir", required=True, help="the split's plans folder (genplan plan --out-dir)")
    s.add_argument("--plans-table", required=True, help="the split's plans table (genplan plan --out-table)")
    s.add_argument("--out", required=True, help="the trajectories file (.json.gz)")
    s.add_argument("--all-plans", action="store_true",
                   help="also every other distinct VAL-valid plan of a problem (its `alternatives`)")
    s.set_defaults(func=cmd_trajectories)

    s = sub.add_parser("statespace", help="expand the state spaces of one split's problems")
    s.add_argument("--benchmark-dir", required=True, help="a benchmark folder with manifest.csv and domain.pddl")
    s.add_argument("--split", required=True, help="usually train")
    s.add_argument("--max-states", type=int, required=True,
                   help="a problem with more reachable states fails the job, naming the problem")
    s.add_argument("--out-dir", required=True, help="one .npz per problem (genplan-statespace/2)")
    s.add_argument("--out-table", required=True, help="the CSV summary: states, transitions, h* of the initial state")
    s.set_defaults(func=cmd_statespace)

    s = sub.add_parser("stats", help="the dataset statistics table")
    s.add_argument("--results", default="results", help="the results root to read")
    s.add_argument("--benchmark", action="append", required=True, help="generated or paper (repeat for both)")
    s.add_argument("--domain", action="append", required=True, help="a domain (repeat)")
    s.add_argument("--split", action="append", default=None, help="a split to report (repeat; none given: all)")
    s.add_argument("--statespace-split", action="append", default=None, help="a split with state spaces (repeat)")
    s.add_argument("--out-csv", required=True, help="the table as CSV")
    s.add_argument("--out-md", required=True, help="the table as Markdown")
    s.set_defaults(func=cmd_stats)

    s = sub.add_parser("validate", help="check a plan with VAL; exit 0 only for a valid plan")
    s.add_argument("domain", help="the PDDL domain file")
    s.add_argument("problem", help="the PDDL problem file (of that domain)")
    s.add_argument("plan", help="the plan: one (action args) a line; ; comments allowed")
    s.set_defaults(func=cmd_validate)
