"""The commands on the data the models learn from: the VAL state sequences of a split's plans
(`trajectories`), the state spaces of its problems (`statespace`), the dataset statistics
(`stats`), and VAL's verdict on one plan (`validate`)."""

from __future__ import annotations

from pathlib import Path

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
    from genplan import manifest
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


COMMANDS = (
    Command("trajectories", cmd_trajectories, "VAL state sequences of one split's plans, checked with pymimir", (
        BENCHMARK_DIR, SPLIT,
        arg("--plans-dir", required=True, help="the split's plans folder (genplan plan --out-dir)"),
        PLANS_TABLE,
        arg("--out", required=True, help="the trajectories file (.json.gz)"),
        arg("--all-plans", action="store_true",
            help="also every other distinct VAL-valid plan of a problem (its `alternatives`)"))),
    Command("statespace", cmd_statespace, "expand the state spaces of one split's problems", (
        BENCHMARK_DIR,
        arg("--split", required=True, help="usually train"),
        arg("--max-states", type=int, required=True,
            help="a problem with more reachable states fails the job, naming the problem"),
        arg("--out-dir", required=True, help="one .npz per problem (genplan-statespace/2)"),
        arg("--out-table", required=True, help="the CSV summary: states, transitions, h* of the initial state"))),
    Command("stats", cmd_stats, "the dataset statistics table", (
        arg("--results", default="results", help="the results root to read"),
        arg("--benchmark", action="append", required=True, help="generated or paper (repeat for both)"),
        arg("--domain", action="append", required=True, help="a domain (repeat)"),
        arg("--split", action="append", default=None, help="a split to report (repeat; none given: all)"),
        arg("--statespace-split", action="append", default=None, help="a split with state spaces (repeat)"),
        arg("--out-csv", required=True, help="the table as CSV"),
        arg("--out-md", required=True, help="the table as Markdown"))),
    Command("validate", cmd_validate, "check a plan with VAL; exit 0 only for a valid plan", (
        arg("domain", help="the PDDL domain file"),
        arg("problem", help="the PDDL problem file (of that domain)"),
        arg("plan", help="the plan: one (action args) a line; ; comments allowed"))),
)
