"""The commands on the data the models learn from: the VAL state sequences of a split's plans
(`trajectories`), the state spaces of its problems (`statespace`), the dataset statistics
(`stats`), and VAL's verdict on one plan or on every plan an evaluation stored (`validate`)."""

from __future__ import annotations

from pathlib import Path

from genplan.cli import writes
from genplan.cli.types import BENCHMARK_DIR, PLANS_TABLE, SPLIT, Command, arg


def cmd_trajectories(a) -> int:
    from genplan.stages.trajectories import trajectories_split

    trajectories_split(a.benchmark_dir, a.split, a.plans_dir, a.plans_table, a.out, all_plans=a.all_plans)
    return 0


def cmd_statespace(a) -> int:
    from genplan.stages.statespace import statespaces_split

    statespaces_split(a.benchmark_dir, a.split, a.max_states, a.out_dir, a.out_table)
    return 0


def cmd_stats(a) -> int:
    from genplan.formats import manifest
    from genplan.paths import Layout
    from genplan.stages.stats import split_statistics, write_dataset_statistics

    layout, with_spaces = Layout(a.results), a.statespace_split or ()
    rows = [split_statistics(bench, dom, split, Path(layout.problems(bench, dom)),
                             Path(layout.plans_table(bench, dom, split)),
                             Path(layout.statespace_table(bench, dom, split)) if split in with_spaces else None)
            for bench in a.benchmark for dom in a.domain for split in a.split or manifest.SPLITS]
    write_dataset_statistics(rows, Path(a.out_csv), Path(a.out_md))
    return 0


def cmd_validate(a) -> int:
    from genplan import val
    from genplan.errors import GenplanError
    from genplan.pddl_io import parse_domain, parse_problem

    if a.evaluation:
        if a.domain is not None:
            raise GenplanError("give either DOMAIN PROBLEM PLAN or --evaluation, not both")
        return _validate_evaluations(a.evaluation, a.problems, a.plans)
    if a.problems is not None or a.plans is not None:
        raise GenplanError("--problems and --plans go with --evaluation")
    if a.plan is None:
        raise GenplanError("give DOMAIN PROBLEM PLAN (one plan) or --evaluation CSV|FOLDER (an evaluation's stored plans)")
    # our parsers first: each names its own file (VAL crashes on a bad problem and blames the plan)
    parse_problem(a.problem, parse_domain(a.domain))
    res = val.validate(a.domain, a.problem, a.plan)
    if res.valid:
        print(f"Plan valid: {res.plan_length} steps ({a.plan})")
        return 0
    where = f" at step {res.failed_step}" if res.failed_step and not res.message.startswith("step ") else ""
    print(f"Plan invalid{where}: {res.message} ({a.plan})")
    return 1


def _validate_evaluations(paths: list[str], problems: str | None, plans: str | None) -> int:
    """Re-check every stored plan of the evaluations (genplan.evaluation.revalidate): one count line per CSV,
    one line per disagreeing or missing problem; 1 if any."""
    from genplan.errors import GenplanError
    from genplan.evaluation.revalidate import evaluation_files, recheck

    files = evaluation_files(paths)
    if plans is not None and len(files) != 1:
        raise GenplanError(f"--plans names the stored plans of one evaluation CSV, not of {len(files)}")
    bad = total = 0
    for path in files:
        result = recheck(path, problems, plans)
        print(result.summary(), flush=True)
        for line in result.disagree:
            print(f"  DISAGREE {path}: {line}")
        for line in result.missing:
            print(f"  MISSING {path}: {line}")
        bad += not result.ok
        total += result.rechecked
    print(f"{len(files)} evaluation(s), {total} plans rechecked with VAL; {bad} file(s) with a disagreement or "
          "a plan that could not be rechecked")
    return 1 if bad else 0


def _stats_reads(a, results: str):
    """What `stats` reads under --results: each benchmark's problems, each split's plans table and,
    for --statespace-split, its state-space table (an output may be none of them)."""
    from genplan.formats import manifest
    from genplan.paths import Layout

    lay = Layout(results)
    for bench in a.benchmark:
        for dom in a.domain:
            yield "problems", lay.problems(bench, dom), True
            for split in a.split or manifest.SPLITS:
                yield "plans table", lay.plans_table(bench, dom, split), False
                if split in (a.statespace_split or ()):
                    yield "state-space table", lay.statespace_table(bench, dom, split), False


VALIDATE_DESCRIPTION = (
    "Check one plan with VAL (DOMAIN PROBLEM PLAN: exit 0 only for a valid plan), or, with --evaluation, "
    "every plan an evaluation stored beside its CSV (<split>.<strategy>.plans.json.gz, written by `genplan "
    "evaluate`): VAL runs again on each, and its verdict is compared with the CSV's row (val word for word, "
    "solved, plan_length). Prints per CSV how many plans were rechecked, agree and disagree, and one line "
    "naming the file and problem of each disagreement, or of each plan that cannot be rechecked (no stored "
    "plans, a problem file absent or not the evaluated one by its SHA-256). Exit 1 on any of them. The "
    "problems are read from the results root the CSV lies in (<root>/problems/<benchmark>/<domain>, which "
    "`snakemake <root>/problems/<benchmark>/<domain>` regenerates) unless --problems names the folder.")

COMMANDS = (
    Command("trajectories", cmd_trajectories, "VAL state sequences of one split's plans, checked with pymimir", (
        BENCHMARK_DIR, SPLIT,
        arg("--plans-dir", required=True, path=writes.TREE, help="the split's plans folder (genplan plan --out-dir)"),
        PLANS_TABLE,
        arg("--out", required=True, path=writes.OUT_FILE, help="the trajectories file (.json.gz)"),
        arg("--all-plans", action="store_true",
            help="also every other distinct VAL-valid plan of a problem (its `alternatives`)"))),
    Command("statespace", cmd_statespace, "expand the state spaces of one split's problems", (
        BENCHMARK_DIR,
        arg("--split", required=True, path=writes.NOT_PATH, help="usually train"),
        arg("--max-states", type=int, required=True,
            help="a problem with more reachable states fails the job, naming the problem"),
        arg("--out-dir", required=True, path=writes.OUT_FOLDER, help="one .npz per problem (genplan-statespace/2)"),
        arg("--out-table", required=True, path=writes.OUT_FILE, help="the CSV summary: states, transitions, h* of the initial state"))),
    Command("stats", cmd_stats, "the dataset statistics table", (
        arg("--results", default="results", path=writes.PathArg("root", also=_stats_reads), help="the results root to read"),
        arg("--benchmark", action="append", required=True, path=writes.NOT_PATH, help="generated or paper (repeat for both)"),
        arg("--domain", action="append", required=True, path=writes.NOT_PATH, help="a domain (repeat)"),
        arg("--split", action="append", default=None, path=writes.NOT_PATH, help="a split to report (repeat; none given: all)"),
        arg("--statespace-split", action="append", default=None, path=writes.NOT_PATH, help="a split with state spaces (repeat)"),
        arg("--out-csv", required=True, path=writes.OUT_FILE, help="the table as CSV"),
        arg("--out-md", required=True, path=writes.OUT_FILE, help="the table as Markdown"))),
    Command("validate", cmd_validate, "check a plan, or every plan an evaluation stored, with VAL", (
        arg("domain", nargs="?", path=writes.READ, help="the PDDL domain file"),
        arg("problem", nargs="?", path=writes.READ, help="the PDDL problem file (of that domain)"),
        arg("plan", nargs="?", path=writes.READ, help="the plan: one (action args) a line; ; comments allowed"),
        arg("--evaluation", action="append", default=None, metavar="CSV|FOLDER", path=writes.READ,
            help="an evaluation CSV, or a folder of them (e.g. results/evaluation); repeat for more"),
        arg("--problems", default=None, path=writes.TREE, help="with --evaluation: the benchmark folder the evaluation planned "
            "(default: <root>/problems/<benchmark>/<domain> of the CSV's results root)"),
        arg("--plans", default=None, path=writes.READ, help="with one --evaluation CSV: its stored plans (default: beside it)")),
        description=VALIDATE_DESCRIPTION),
)
