"""The commands that plan with a trained model of any family, every plan checked by VAL: `solve`
(one problem) and `evaluate` (one split, one CSV)."""

from __future__ import annotations

import json
import logging
import sys

from genplan.cli import writes
from genplan.cli.types import Command, arg
from genplan.cli.types import json_object as _json


def _strategy_help() -> tuple[str, str]:
    """--strategy's help, written from the strategy table (genplan.planners.strategies) and the
    families' registry entries (the kinds each offers, its default)."""
    from genplan.planners.strategies import describe
    from genplan.registry import FAMILIES

    offers = describe({name: fam.strategy_kinds for name, fam in FAMILIES.items()})
    defaults = ", ".join(f"{name} {fam.default_strategy}" for name, fam in FAMILIES.items())
    return (f"a named strategy of the model's family. {offers}. Search limits: --settings "
            "'{\"search\": {\"max_expansions\": N, \"time_limit\": S, \"memory_limit_mb\": M}}' (M optional: "
            "MiB of resident memory); see genplan.planners.strategies",
            f"; default: the model's family's (genplan.registry: {defaults}; heuristic-greedy for a SymT^E model)")


STRATEGY_HELP, DEFAULT_HELP = _strategy_help()


def _planning_settings(a) -> dict:
    """--settings, checked, with --horizon-min and --horizon-per-object put into its `decode`."""
    from genplan.configuration import check_value

    settings = dict(a.settings or {})
    check_value(settings, ("$defs", "planning"), "--settings (planning settings)")
    if a.horizon_min is not None or a.horizon_per_object is not None:
        decode = dict(settings.get("decode") or {})
        if a.horizon_min is not None:
            decode["horizon_min"] = a.horizon_min
        if a.horizon_per_object is not None:
            decode["horizon_per_object"] = a.horizon_per_object
        settings["decode"] = decode
    return settings


def _with_trace(plan_with, strategy: str, family: str, trace: str | None):
    """The planner, told to write its trace to `trace` when one is asked for."""
    if trace is None:
        return plan_with
    if not hasattr(plan_with, "trace_path"):
        from genplan.errors import GenplanError

        raise GenplanError(f"strategy {strategy!r} of family {family} has no trace "
                           "(diffusion's unmask strategies have)")
    plan_with.trace_path = trace
    return plan_with


def cmd_solve(a) -> int:
    """`_solve` with SIGTERM, SIGINT and SIGHUP raised as `Interrupted` (a SIGTERM once left
    $TMPDIR/genplan-solve-* behind and VAL running; Ctrl-C printed a traceback): the temporary
    folders are removed as the exception unwinds, subprocess.run kills VAL, no plan is written, and
    one line says so; exit 128 + the signal's number."""
    from genplan.processes import Interrupted, interruptible

    try:
        with interruptible():
            return _solve(a)
    except Interrupted as exc:
        print(f"genplan: {exc}: planning and VAL ended, temporary folders removed, no plan written", file=sys.stderr)
        return exc.exit_status


def _solve(a) -> int:
    from genplan import solve_setup as setup
    from genplan.planners import solve as run
    from genplan.registry import planner

    early = setup.check_strategy_early(a.strategy)  # a number past its bound is named before the model loads
    given = _planning_settings(a)
    model = setup.load_model(a.model, a.domain)
    strategy = setup.resolve_strategy(model, early or a.strategy)  # parsed once, passed down
    settings, source = setup.planning_for(model, given, a.configfile)
    reference = None
    if a.reference_plan is not None:
        from genplan.pddl_io import read_plan

        reference = read_plan(a.reference_plan)
    plan_with = _with_trace(planner(model, strategy, settings), strategy.name, model.family, a.trace)
    limits = getattr(plan_with, "limits", None)  # the searches' limits, defaults filled in
    logging.getLogger("genplan").info("planning settings %s from %s%s", json.dumps(settings, sort_keys=True), source,
                                      f"; search limits {limits}" if limits is not None else "")
    outcome, text = run.solve(plan_with, a.domain, a.problem, a.out, reference)
    if a.out is None and (outcome.solved or outcome.unchecked):
        sys.stdout.write(text)
    print(run.summary_line(outcome, a.problem))
    if outcome.unchecked and a.out is not None:
        print(f"the unchecked plan is written to {a.out}")
    return 0 if outcome.solved else 1


def cmd_evaluate(a) -> int:
    from genplan.configuration import check_value
    from genplan.evaluation.split import evaluate_split
    from genplan.solve_setup import check_strategy_early

    check_value(a.settings, ("$defs", "planning"), "--settings (planning settings)")
    strategy = check_strategy_early(a.strategy) or a.strategy  # parsed once where it parses, passed down
    if a.jobs < 1:
        from genplan.errors import GenplanError

        raise GenplanError(f"--jobs must be at least 1, not {a.jobs}")
    budget = None
    if a.time_limit is not None:
        from genplan import limits

        memory = limits.DEFAULT_MEMORY_MB if a.memory_limit_mb is None else a.memory_limit_mb or None
        budget = limits.Limits(a.time_limit, a.wall_limit, memory)
    elif a.wall_limit is not None or a.memory_limit_mb is not None:
        from genplan.errors import GenplanError

        raise GenplanError("--wall-limit and --memory-limit-mb are the resource protocol's: give --time-limit too")
    if a.jobs == 1 and budget is None:
        evaluate_split(a.model, a.benchmark_dir, a.split, a.plans_table, strategy, a.settings, a.out,
                       benchmark=a.benchmark, seed=a.seed, out_plans=a.out_plans, count_loading=True)
        return 0
    from genplan.processes import Interrupted, interruptible

    try:
        with interruptible():  # a signal ends the workers (genplan.evaluation.parallel), nothing is written
            evaluate_split(a.model, a.benchmark_dir, a.split, a.plans_table, strategy, a.settings, a.out,
                           benchmark=a.benchmark, seed=a.seed, out_plans=a.out_plans, jobs=a.jobs,
                           count_loading=budget is None, budget=budget)
    except Interrupted as exc:
        print(f"genplan: {exc}: planner processes ended, no output written", file=sys.stderr)
        return exc.exit_status
    return 0


def _stored_plans_beside(a):
    from genplan.formats.stored_plans import plans_path

    return str(plans_path(a.out))


STORED_PLANS = writes.PathArg("file", default=_stored_plans_beside)  # written beside --out unless given
COMMANDS = (
    Command("solve", cmd_solve, "plan one problem with a trained model; exit 0 only if VAL accepts the plan", (
        arg("--model", required=True, path=writes.READ, help="model.ckpt written by `genplan train` (any family)"),
        arg("domain", path=writes.READ),
        arg("problem", path=writes.READ),
        arg("--strategy", default=None, path=writes.NOT_PATH, help=STRATEGY_HELP + DEFAULT_HELP),
        arg("--settings", type=_json, default={}, help="planning settings (JSON), e.g. {\"decode\": {...}}; they "
            "override --configfile's key by key"),
        arg("--configfile", action="append", default=None, path=writes.READ, help="the workflow configuration the model was trained "
            "and evaluated with (again for an overlay, after its base): plan with its model entry's planning "
            "settings, e.g. the heuristic's search limits (default: the family's defaults)"),
        arg("--horizon-min", type=int, default=None, help="beam: at least this many steps (default 100)"),
        arg("--horizon-per-object", type=int, default=None,
            help="beam: steps per object when more than --horizon-min (default 10)"),
        arg("--reference-plan", default=None, path=writes.READ,
            help="a plan of the problem whose prefix prefixP-greedy completes (plan completion)"),
        arg("--out", default=None, path=writes.OUT_FILE, help="plan file, written only for a valid plan (default: stdout)"),
        arg("--trace", default=None, path=writes.OUT_FILE, help="diffusion: write the unmasking trace (per step the sequence, #<MASK>, "
            "#<PAD>) to this JSON file"))),
    Command("evaluate", cmd_evaluate, "plan and VAL-check one split with one model and strategy (one CSV)", (
        arg("--model", required=True, path=writes.READ, help="model.ckpt (any family)"),
        arg("--benchmark-dir", required=True, path=writes.TREE),
        arg("--split", required=True, path=writes.NOT_PATH),
        arg("--plans-table", required=True, path=writes.READ, help="the split's plans table (best-known lengths)"),
        arg("--strategy", default=None, path=writes.NOT_PATH, help=STRATEGY_HELP + DEFAULT_HELP),
        arg("--settings", type=_json, default={}, help="the model entry's planning settings (JSON)"),
        arg("--benchmark", default=None, path=writes.NOT_PATH, help="recorded in the CSV (default: the folder's parent)"),
        arg("--seed", default=None, path=writes.NOT_PATH, help="recorded in the CSV (default: from the checkpoint)"),
        arg("--out", required=True, path=writes.OUT_FILE, help="the evaluation CSV"),
        arg("--jobs", type=int, default=1, help="problems planned at once, each in a worker process of its own that "
            "loads the model once (one torch and BLAS thread each); the same CSV and plans as with 1, the time "
            "column aside. A problem that fails or a worker that dies ends the command naming the problem, "
            "nothing written; so does SIGTERM, SIGINT or SIGHUP (exit 128 + the signal's number)"),
        arg("--out-plans", default=None, path=STORED_PLANS, help="every plan found, with the problem files' SHA-256, for `genplan "
            "validate --evaluation` (default: beside --out, <split>.<strategy>.plans.json.gz)"),
        arg("--time-limit", type=float, default=None, help="the resource protocol (as Fast Downward's runs): every "
            "problem planned by a fresh process of its own under this many CPU seconds (loading included), "
            "--jobs at once; each row records CPU and wall seconds and peak memory. Default: one process plans "
            "every problem, each under the search's own limits"),
        arg("--wall-limit", type=float, default=None, help="with --time-limit: the wall-clock cap per problem "
            "(default 1.5 x the time limit + 10 s)"),
        arg("--memory-limit-mb", type=int, default=None, help="with --time-limit: the address space of each "
            "problem's process (default 8192; 0: none)"))),
)
