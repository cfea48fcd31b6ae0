"""Plan one problem with any family's planner and check the plan with VAL: `genplan solve`, and
the per-problem step of `genplan evaluate`.

A problem counts as solved only when the planner says it reached a goal AND VAL accepts the
plan. Every attempt is VAL-checked, unsolved ones too (VAL then says why it is no plan).
"""

from __future__ import annotations

import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from genplan import atomic, val
from genplan.domains import domain_key
from genplan.errors import GenplanError
from genplan.pddl_io import plan_to_text
from genplan.planners.base import Attempt, Problem


def load_model(checkpoint: str | Path, domain: str | Path, threads: int = 1):
    """The model of `checkpoint`, any family; GenplanError unless it was trained on `domain`.
    Planning makes small model calls: one torch thread is fastest (measured 18x faster than two on
    a loaded 2-core machine); XGBoost boosters load with one thread too."""
    import torch

    from genplan.registry import load_model as _load

    torch.set_num_threads(threads)
    if not Path(checkpoint).is_file():
        raise GenplanError("model checkpoint not found", checkpoint)
    return _load(checkpoint, expect_domain=domain_key(domain))


def check_strategy_early(strategy: str | None) -> None:
    """Before a model loads: a strategy number past its bound is refused (ValueError naming it);
    a name of no form waits for `resolve_strategy`, which lists the model's own family's forms."""
    from genplan.planners.strategies import UnknownStrategy, parse

    if strategy is not None:
        try:
            parse(strategy)
        except UnknownStrategy:
            pass


def resolve_strategy(model, strategy: str | None) -> str:
    """`strategy`, or without one the model's default (its own, else its family's: `solve` and
    `evaluate` alike); ValueError listing the forms of the model's family for a strategy that family
    does not offer."""
    from genplan.planners.strategies import UnknownStrategy, forms, parse
    from genplan.registry import family

    fam = family(model.family)
    if strategy is None:
        return getattr(model, "default_strategy", None) or fam.default_strategy
    try:
        kind = parse(strategy).kind
    except UnknownStrategy:
        kind = None
    if kind not in fam.strategy_kinds:
        raise ValueError(f"Unknown value strategy={strategy!r} for a {fam.name} model. "
                         f"Must be of the forms {forms(fam.strategy_kinds)}")
    return strategy


def merged(base: dict, over: dict) -> dict:
    """`base` with `over`'s keys put in, mappings merged key by key (as Snakemake merges configfiles)."""
    out = dict(base)
    for key, value in over.items():
        out[key] = merged(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


def entry_planning_settings(configfiles: list, name: str, family: str, domain: str | None = None) -> dict:
    """The planning settings of model `name` in the workflow configuration `configfiles` (merged in
    order, as `snakemake --configfile A B`), on `domain` where the entry has `domain_settings`: what
    its evaluations planned with. GenplanError naming the file for a missing or unreadable file or a
    model it does not define."""
    import yaml

    from genplan.configuration import check_value
    from genplan.registry import entry_for, planning_settings

    config: dict = {}
    for path in map(Path, configfiles):
        try:
            doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise GenplanError("configuration file not found", path) from None
        except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
            raise GenplanError(f"not a readable YAML configuration ({type(exc).__name__})", path) from None
        if not isinstance(doc, dict):
            raise GenplanError("not a workflow configuration (a YAML mapping)", path)
        config = merged(config, doc)
    entry = (config.get("models") or {}).get(name)
    if not isinstance(entry, dict) or "family" not in entry:
        raise GenplanError(f"the checkpoint's model {name!r} is not among the configuration's models "
                           f"{sorted(config.get('models') or {})}", configfiles[-1])
    if entry["family"] != family:
        raise GenplanError(f"model {name!r} is of family {entry['family']!r} in this configuration, the "
                           f"checkpoint's of {family!r}", configfiles[-1])
    settings = planning_settings(entry_for(entry, domain))  # domain None: the entry's own keys
    check_value(settings, ("$defs", "planning"), f"{configfiles[-1]}: the planning settings of model {name!r}")
    return settings


def planning_for(model, given: dict, configfiles: list | None) -> tuple[dict, str]:
    """The settings `solve` plans `model` with, and where they come from (for a log line): the
    planning settings of the model's entry in `configfiles` (the configuration it was trained and
    evaluated with), each overridden by `given` (--settings); without a configuration, `given` and
    the family's defaults for the rest."""
    from genplan.registry import family

    keys = family(model.family).planning_keys
    if configfiles:
        entry = entry_planning_settings(configfiles, model.name, model.family, getattr(model, "domain", None))
        settings = merged(entry, given)
        missing = [k for k in keys if k not in settings]
        source = f"model {model.name!r} of {', '.join(map(str, configfiles))}"
        source += (", overridden by --settings" if given else "") + (
            f"; the family's defaults for {missing}" if missing else "")
        return settings, source
    missing = [k for k in keys if k not in given]
    if not missing:
        return given, "--settings"
    return given, (f"the {model.family} family's defaults for {missing} (the workflow's evaluations planned with "
                   "their configuration's model entry: give that configuration with --configfile, or --settings)")


@dataclass
class Outcome:
    """A planner's attempt and VAL's verdict on its plan."""

    attempt: Attempt
    verdict: val.ValResult | None

    @property
    def solved(self) -> bool:
        return self.attempt.reached_goal and self.verdict is not None and self.verdict.valid


def goal_true_initially(problem: Problem) -> bool:
    """Whether every goal atom holds in the initial state (an empty goal included); False where the
    package's parser refuses the problem (the planner then reports it in its own way)."""
    try:
        task = problem.task
    except GenplanError:
        return False
    return task.goal <= (task.init | task.statics)


def _attempt(planner, problem: Problem) -> Attempt:
    """The planner's attempt, or the empty plan where the goal holds initially; the check's time
    (parsing the problem) is counted in either."""
    start = time.perf_counter()
    if goal_true_initially(problem):
        return Attempt([], "goal", time.perf_counter() - start, counters={"goal_true_initially": 1})
    checked = time.perf_counter() - start
    attempt = planner.solve(problem)
    attempt.time += checked
    return attempt


def solve_and_validate(planner, problem: Problem, plan_path: str | Path | None = None) -> Outcome:
    """Run the planner on `problem`, write the plan (to `plan_path` or a temporary file), run VAL. A
    problem whose goal is empty or already true in its initial state gets the empty plan from every
    planner (`goal_true_initially`; a model would decode pointless actions or none), VAL-checked too."""
    attempt = _attempt(planner, problem)
    if attempt.reason == "refused":
        return Outcome(attempt, None)
    timeout = val_time_limit(planner, attempt.time)
    with tempfile.TemporaryDirectory(prefix=f"genplan-solve-{os.getpid()}-") as tmp:
        path = Path(plan_path) if plan_path is not None else Path(tmp) / "plan"
        path.write_text(plan_to_text(attempt.plan))
        try:
            verdict = val.validate(problem.domain_file, problem.problem_file, path, timeout=timeout)
        except val.ValTimeout:
            verdict = val.ValResult(False, None, f"not checked: VAL did not finish within {timeout:.1f} s (what "
                                    "the time limit left, at least 5 s)")
    return Outcome(attempt, verdict)


def val_time_limit(planner, spent: float) -> float:
    """VAL's seconds after an attempt that took `spent` (the problem's load included): what the
    planner's search time limit leaves, at least 5 s (300 s for a planner without one)."""
    limit = getattr(getattr(planner, "limits", None), "time_limit", None)
    if limit is None or not limit < 300:
        return 300.0
    return max(limit - spent, 5.0)


def solve(planner, domain: str | Path, problem: str | Path, out: str | Path | None = None,
          reference_plan: list | None = None) -> tuple[Outcome, str]:
    """Plan and validate; write `out` only for a VAL-valid plan. Returns the outcome and the
    plan's text (printed by the CLI when no `out` is given)."""
    outcome = solve_and_validate(planner, Problem(domain, problem, reference_plan))
    text = plan_to_text(outcome.attempt.plan)
    if out is not None and outcome.solved:
        atomic.write_text(out, text)
    return outcome, text


def summary_line(outcome: Outcome, problem: str | Path) -> str:
    a = outcome.attempt
    stats = (f"{a.steps} steps, {a.states_expanded} states expanded, {a.model_calls} model calls, "
             f"{a.time:.2f} s" + (f", horizon {a.horizon}" if a.horizon is not None else ""))
    if a.reason == "refused":
        return f"No plan: the model cannot represent the problem: {a.counters.get('message', '')} ({problem})"
    if outcome.solved:
        return f"Plan valid (VAL): {len(a.plan)} actions ({problem}; {stats})"
    if a.reached_goal:
        return f"Plan INVALID (VAL): {outcome.verdict.message} ({problem}; {stats})"
    return f"No plan: the planner stopped ({a.reason}) without reaching the goal ({problem}; {stats})"
