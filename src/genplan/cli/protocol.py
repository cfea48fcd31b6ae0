"""`genplan limit`: run any planner command under the pipeline's resource protocol
(genplan.limits: CPU seconds, a wall cap, an address-space limit, the whole process group held to
the CPU limit) and write what it used as JSON: the same limits and the same measurement as every
planner run of the pipeline, for a planner the pipeline does not run itself."""

from __future__ import annotations

from genplan.cli import writes
from genplan.cli.types import Command, arg


def cmd_limit(a) -> int:
    from genplan import limits

    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    budget = limits.Limits(a.time_limit, a.wall_limit, None if a.memory_limit_mb == 0 else a.memory_limit_mb)
    measured = limits.limit_command(cmd, budget, a.out, cwd=a.cwd, log=a.log)
    print(f"{measured.outcome} (exit {measured.returncode}): {measured.cpu_time:.2f} CPU-s, "
          f"{measured.wall_time:.2f} wall-s, {measured.peak_memory_mb:.0f} MB peak; limits {budget.describe()}")
    return 0


def _command_files(a, word: str):
    """A word of the command that names a file or folder (from --cwd): the planner reads it."""
    from pathlib import Path

    path = Path(a.cwd or ".") / word
    if word != "--" and path.exists():
        yield "a file it names", path, path.is_dir()


COMMANDS = (
    Command("limit", cmd_limit, "run a planner command under the resource protocol (CPU seconds, a wall cap, "
            "memory) and write what it used (CPU and wall seconds, peak memory, how it ended) as JSON", (
                arg("--time-limit", type=float, required=True, help="CPU seconds of the whole process group"),
                arg("--wall-limit", type=float, default=None,
                    help="wall-clock seconds (default 1.5 x the time limit + 10)"),
                arg("--memory-limit-mb", type=int, default=8192, help="address space per process (0: none)"),
                arg("--out", required=True, path=writes.OUT_FILE, help="the measurement, JSON"),
                arg("--log", default=None, path=writes.OUT_FILE,
                    help="the command's stdout and stderr (default: discarded)"),
                arg("--cwd", default=None, path=writes.NOT_PATH, help="the folder the command runs in"),
                arg("cmd", nargs="+", metavar="-- COMMAND", path=writes.PathArg("root", also=_command_files),
                    help="the command and its arguments"))),
)


def cmd_starved(a) -> int:
    """Print the result files (plans tables, evaluation CSVs) that hold a starved unsolved row, one a
    line: the targets of `snakemake --forcerun` that reruns them."""
    from pathlib import Path

    from genplan.errors import GenplanError
    from genplan.formats.evaluation_csv import read_evaluation
    from genplan.paths import Layout
    from genplan.report import counting
    from genplan.report.collect import plans_tables

    results = Path(a.results)
    if not results.is_dir():
        raise GenplanError("results folder not found", results)
    lay, found = Layout(str(results)), []
    for (bench, dom, split), table in sorted(plans_tables(results, anytime=False).items()):
        if any(counting.plans_starved(r) for r in table):
            found.append(lay.plans_table(bench, dom, split))
    for path in lay.evaluation_files():
        if any(counting.evaluation_starved(r) for r in read_evaluation(path)):
            found.append(str(path))
    print("\n".join(found))
    return 0


COMMANDS = (*COMMANDS, Command(
    "starved", cmd_starved, "the result files with an unsolved row whose planner got under 0.9 CPU seconds per wall "
    "second (it shared its core): the targets to rerun on a quiet machine (snakemake --forcerun)", (
        arg("--results", required=True, path=writes.TREE, help="a results root (e.g. results/ipc2023-cpu)"),)))


def cmd_import_runs(a) -> int:
    from genplan.evaluation.external import import_runs

    records = import_runs(a.benchmark_dir, a.split, a.plans_table, a.runs, a.system, a.model, a.strategy, a.out,
                          a.benchmark, plan_name=a.plan_name, variant=a.variant, seed=a.seed)
    solved = sum(r["solved"] == "yes" for r in records)
    print(f"{a.system} {a.model} {a.split}: {solved}/{len(records)} VAL-valid plans ({a.out})")
    return 0


COMMANDS = (*COMMANDS, Command(
    "import-runs", cmd_import_runs, "an outside planner's runs (each made by `genplan limit`) as an evaluation CSV "
    "and its stored plans: every plan checked against the task and by VAL, counted by the reports' one rule", (
        arg("--benchmark-dir", required=True, path=writes.TREE, help="the benchmark folder the runs planned"),
        arg("--split", required=True, path=writes.NOT_PATH, help="the split (an IPC level: easy, medium, hard)"),
        arg("--plans-table", required=True, path=writes.READ, help="the split's plans table (best-known lengths)"),
        arg("--runs", required=True, path=writes.TREE, help="one folder a problem: measure.json, the plan, log"),
        arg("--plan-name", default="plan", path=writes.NOT_PATH, help="the plan's file name in each run folder"),
        arg("--system", required=True, path=writes.NOT_PATH, help="the system's name in every table (wl_goose)"),
        arg("--model", required=True, path=writes.NOT_PATH, help="the model's name (e.g. its shipped file)"),
        arg("--strategy", required=True, path=writes.NOT_PATH, help="its search's name"),
        arg("--variant", default="", path=writes.NOT_PATH, help="recorded in the CSV"),
        arg("--seed", default="0", path=writes.NOT_PATH, help="recorded in the CSV"),
        arg("--benchmark", default="ipc2023", path=writes.NOT_PATH, help="recorded in the CSV"),
        arg("--out", required=True, path=writes.OUT_FILE, help="the evaluation CSV "
            "(<root>/evaluation/<benchmark>/<domain>/<system>/seed<seed>/<split>.<strategy>.csv)"))),
)
