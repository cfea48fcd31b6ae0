"""Subcommands of the state-centric decoder: `solve`, `evaluate` and `report state-centric`
(registered on the `genplan` parser by `genplan.cli`)."""

from __future__ import annotations

import sys
from pathlib import Path

from genplan.cli.types import json_object as _json
from genplan.planners.beam import BEAM_MODES


def cmd_solve(a) -> int:
    from genplan.planners.beam import DecodeConfig
    from genplan.planners.solve import solve, summary_line

    cfg = DecodeConfig.from_params({}, beam=a.beam, beam_mode=a.beam_mode, horizon_min=a.horizon_min,
                                   horizon_per_object=a.horizon_per_object)
    outcome, text = solve(a.model, a.domain, a.problem, cfg, a.out)
    if a.out is None and outcome.solved:
        sys.stdout.write(text)
    print(summary_line(outcome, a.problem))
    return 0 if outcome.solved else 1


def cmd_evaluate(a) -> int:
    from genplan.evaluation import evaluate_split

    params = dict(a.params)
    if a.beam_mode is not None:
        params["beam_mode"] = a.beam_mode
    evaluate_split(a.model, a.benchmark_dir, a.split, a.plans_table, params, a.out,
                   benchmark=a.benchmark, seed=a.seed)
    return 0


def cmd_report(a) -> int:
    from genplan.report import build_report

    build_report(a.paper, Path(a.results), Path(a.out_dir), a.published)
    return 0


def add_parsers(sub) -> None:
    s = sub.add_parser("solve", help="decode a plan with a transition model; exit 0 only if VAL accepts it")
    s.add_argument("--model", required=True, help="model.ckpt written by `genplan train`")
    s.add_argument("domain")
    s.add_argument("problem")
    s.add_argument("--beam-mode", choices=BEAM_MODES, default="pooled")
    s.add_argument("--beam", type=int, default=3)
    s.add_argument("--horizon-min", type=int, default=100)
    s.add_argument("--horizon-per-object", type=int, default=10)
    s.add_argument("--out", default=None, help="plan file, written only for a valid plan (default: stdout)")
    s.set_defaults(func=cmd_solve)

    s = sub.add_parser("evaluate", help="decode and VAL-check one split with one model (one CSV)")
    s.add_argument("--model", required=True)
    s.add_argument("--benchmark-dir", required=True)
    s.add_argument("--split", required=True)
    s.add_argument("--plans-table", required=True, help="the split's plans table (best-known lengths)")
    s.add_argument("--params", type=_json, default={}, help="the `decode` configuration (JSON)")
    s.add_argument("--beam-mode", choices=BEAM_MODES, default=None, help="overrides params")
    s.add_argument("--benchmark", default=None, help="recorded in the CSV (default: the folder's parent)")
    s.add_argument("--seed", default=None, help="recorded in the CSV (default: from the checkpoint)")
    s.add_argument("--out", required=True)
    s.set_defaults(func=cmd_evaluate)

    s = sub.add_parser("report", help="a paper's tables and figures from the pipeline's result files")
    s.add_argument("paper", help="state-centric")
    s.add_argument("--results", default="results")
    s.add_argument("--out-dir", default="results")
    s.add_argument("--published", default=None, help="published_results.csv (default: the packaged copy)")
    s.set_defaults(func=cmd_report)
