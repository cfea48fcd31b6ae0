"""Subcommands of the learned planners, for every family: `train`, `solve`, `evaluate`, `report`
and `migrate` (registered on the `genplan` parser by `genplan.cli`)."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from genplan.cli.types import json_object as _json

log = logging.getLogger("genplan")
STRATEGY_HELP = ("a named strategy of the model's family. transition: beam3-pooled (our beam), beam3-reference "
                 "(the state-centric reference's beam, its defect 1 included), and either with -nostatics "
                 "(WL inference states without static atoms, the reference's defect 2). plangpt: greedy, "
                 "greedy-applicable, greedy-reground, multibeamN[-anyvalid], toppPxK. diffusion: unmask-TN[-BK][-tauX] "
                 "(N steps, K blocks, Gumbel temperature X), unmask-TN-applicable. heuristic: gbfs, descent (limits: "
                 "--settings '{\"search\": {\"max_expansions\": N, \"time_limit\": S}}'); see genplan.planners.strategies")


def cmd_train(a) -> int:
    from genplan import registry

    from genplan.configuration import check_value

    settings = dict(a.settings)
    if a.family is not None:
        settings["family"] = a.family
    settings.setdefault("seeds", [a.seed])
    settings.setdefault("strategies", [])
    check_value(settings, ("$defs", "model"), f"--settings of model {a.model!r}")
    registry.validate_models({a.model: settings})
    fam = registry.family(settings["family"])
    data = {"train": a.train, "validation": a.validation}
    summary = fam.impl.train(a.model, settings, a.domain, data, a.seed, a.out, a.log, a.summary,
                             threads=a.threads, device=a.device)
    log.info("trained %s for %s (seed %d) in %.1f s: %s", a.model, a.domain, a.seed, summary["job_time_s"], a.out)
    return 0


def _planning_settings(a) -> dict:
    from genplan.configuration import check_value

    settings = dict(a.settings or {})
    check_value(settings, ("$defs", "planning"), "--settings (planning settings)")
    if getattr(a, "horizon_min", None) is not None or getattr(a, "horizon_per_object", None) is not None:
        decode = dict(settings.get("decode") or {})
        if a.horizon_min is not None:
            decode["horizon_min"] = a.horizon_min
        if a.horizon_per_object is not None:
            decode["horizon_per_object"] = a.horizon_per_object
        settings["decode"] = decode
    return settings


def cmd_solve(a) -> int:
    from genplan.planners.solve import load_model, solve, summary_line
    from genplan.registry import planner

    from genplan.planners.strategies import parse

    from genplan.registry import family

    if a.strategy is not None:
        parse(a.strategy)  # a misspelt strategy is named before the model loads
    model = load_model(a.model, a.domain)
    strategy = a.strategy or getattr(model, "default_strategy", None) or family(model.family).default_strategy
    reference = None
    if a.reference_plan is not None:
        from genplan.pddl_io import read_plan

        reference = read_plan(a.reference_plan)
    plan_with = planner(model, strategy, _planning_settings(a))
    if a.trace is not None:
        if not hasattr(plan_with, "trace_path"):
            from genplan.errors import GenplanError

            raise GenplanError(f"strategy {strategy!r} of family {model.family} has no trace (diffusion's unmask "
                               "strategies have)")
        plan_with.trace_path = a.trace
    outcome, text = solve(plan_with, a.domain, a.problem, a.out, reference)
    if a.out is None and outcome.solved:
        sys.stdout.write(text)
    print(summary_line(outcome, a.problem))
    return 0 if outcome.solved else 1


def cmd_evaluate(a) -> int:
    from genplan.configuration import check_value
    from genplan.evaluation import evaluate_split
    from genplan.planners.strategies import parse as parse_strategy

    check_value(a.settings, ("$defs", "planning"), "--settings (planning settings)")
    parse_strategy(a.strategy)  # named before the model loads
    evaluate_split(a.model, a.benchmark_dir, a.split, a.plans_table, a.strategy, a.settings, a.out,
                   benchmark=a.benchmark, seed=a.seed)
    return 0


def cmd_report(a) -> int:
    from genplan.report import build_report

    build_report(a.paper, Path(a.results), Path(a.out_dir or a.results), a.published)
    return 0


def cmd_migrate(a) -> int:
    from genplan.migrate import migrate_evaluations

    written = migrate_evaluations(a.results)
    print(f"migrated {len(written)} evaluation CSVs under {a.results}")
    return 0


def add_parsers(sub) -> None:
    fmt = argparse.ArgumentDefaultsHelpFormatter
    s = sub.add_parser("train", formatter_class=fmt,
                       help="train one model (name, domain, seed) of any family on its stage's outputs")
    s.add_argument("--model", required=True, help="the model's name in the config's `models` section")
    s.add_argument("--settings", type=_json, required=True,
                   help="the model's config entry (JSON): family and the family's settings")
    s.add_argument("--family", default=None, help="overrides the settings' family")
    s.add_argument("--domain", required=True, help="the workflow's domain key (blocks, gripper, ...)")
    s.add_argument("--train", nargs="+", required=True,
                   help="training data: trajectories (.json.gz) or state-space folders, as the family trains")
    s.add_argument("--validation", nargs="+", required=True, help="validation data, as --train")
    s.add_argument("--seed", type=int, required=True)
    s.add_argument("--threads", type=int, default=1, help="torch / XGBoost threads (scheduling: not a parameter)")
    s.add_argument("--device", choices=["auto", "cpu", "cuda"], default="auto", help="auto: CUDA when present")
    s.add_argument("--out", required=True, help="the checkpoint")
    s.add_argument("--log", default=None, help="training log (CSV)")
    s.add_argument("--summary", default=None, help="summary (JSON)")
    s.set_defaults(func=cmd_train)

    s = sub.add_parser("solve", formatter_class=fmt,
                       help="plan one problem with a trained model; exit 0 only if VAL accepts the plan")
    s.add_argument("--model", required=True, help="model.ckpt written by `genplan train` (any family)")
    s.add_argument("domain")
    s.add_argument("problem")
    s.add_argument("--strategy", default=None, help=STRATEGY_HELP + "; default: the family's (beam3-pooled, greedy)")
    s.add_argument("--settings", type=_json, default={}, help="planning settings (JSON), e.g. {\"decode\": {...}}")
    s.add_argument("--horizon-min", type=int, default=None, help="beam: at least this many steps (default 100)")
    s.add_argument("--horizon-per-object", type=int, default=None,
                   help="beam: steps per object when more than --horizon-min (default 10)")
    s.add_argument("--reference-plan", default=None,
                   help="a plan of the problem whose prefix prefixP-greedy completes (plan completion)")
    s.add_argument("--out", default=None, help="plan file, written only for a valid plan (default: stdout)")
    s.add_argument("--trace", default=None,
                   help="diffusion: write the unmasking trace (per step the sequence, #<MASK>, #<PAD>) to this JSON file")
    s.set_defaults(func=cmd_solve)

    s = sub.add_parser("evaluate", formatter_class=fmt,
                       help="plan and VAL-check one split with one model and strategy (one CSV)")
    s.add_argument("--model", required=True, help="model.ckpt (any family)")
    s.add_argument("--benchmark-dir", required=True)
    s.add_argument("--split", required=True)
    s.add_argument("--plans-table", required=True, help="the split's plans table (best-known lengths)")
    s.add_argument("--strategy", default="beam3-pooled", help=STRATEGY_HELP)
    s.add_argument("--settings", type=_json, default={}, help="the model entry's planning settings (JSON)")
    s.add_argument("--benchmark", default=None, help="recorded in the CSV (default: the folder's parent)")
    s.add_argument("--seed", default=None, help="recorded in the CSV (default: from the checkpoint)")
    s.add_argument("--out", required=True)
    s.set_defaults(func=cmd_evaluate)

    s = sub.add_parser("report", formatter_class=fmt, help="a paper's tables and figures from the result files")
    s.add_argument("paper", help="the report to build: one of genplan.report.registry.REPORTS (state-centric, "
                   "symt, plangpt, diffusion, leaderboard)")
    s.add_argument("--results", default="results", help="the results root to read")
    s.add_argument("--out-dir", default=None, help="where tables/ and figures/ go (default: --results)")
    s.add_argument("--published", default=None, help="published_results.csv (default: the packaged copy)")
    s.set_defaults(func=cmd_report)

    s = sub.add_parser("migrate", formatter_class=fmt,
                       help="convert evaluation CSVs of an older genplan to the one schema of every family")
    s.add_argument("what", choices=["evaluations"])
    s.add_argument("--results", default="results", help="the results root")
    s.set_defaults(func=cmd_migrate)
