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
from genplan.errors import GenplanError
from genplan.pddl_io import plan_to_text
from genplan.planners.base import Attempt, Problem

NOT_CHECKED = "not checked:"  # how a verdict that VAL could not give begins (genplan.val)


@dataclass
class Outcome:
    """A planner's attempt and VAL's verdict on its plan."""

    attempt: Attempt
    verdict: val.ValResult | None

    @property
    def solved(self) -> bool:
        return self.attempt.reached_goal and self.verdict is not None and self.verdict.valid

    @property
    def unchecked(self) -> bool:
        """The planner says it reached the goal and VAL could not judge the plan (it crashed, ran out
        of time, or the plan is past its parser's length): the plan may well be one, so it is kept."""
        return (self.attempt.reached_goal and self.verdict is not None
                and self.verdict.message.startswith(NOT_CHECKED))


def goal_true_initially(problem: Problem) -> bool:
    """Whether every goal atom holds in the initial state (an empty goal included); False where the
    package's parser refuses the problem (the planner then reports it in its own way)."""
    try:
        task = problem.task
    except GenplanError:
        return False
    return task.goal <= (task.init | task.statics)


def attempt_on(planner, problem: Problem) -> Attempt:
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
    attempt = attempt_on(planner, problem)
    if attempt.reason == "refused":
        return Outcome(attempt, None)
    return Outcome(attempt, validate_attempt(problem.domain_file, problem.problem_file, attempt,
                                             val_time_limit(planner, attempt.time), plan_path))


def validate_attempt(domain: Path, problem: Path, attempt: Attempt, timeout: float = 300.0,
                     plan_path: str | Path | None = None) -> val.ValResult:
    """VAL's verdict on an attempt's plan, written to `plan_path` or a temporary file; a VAL that does
    not finish within `timeout` seconds is a verdict "not checked"."""
    with tempfile.TemporaryDirectory(prefix=f"genplan-solve-{os.getpid()}-") as tmp:
        path = Path(plan_path) if plan_path is not None else Path(tmp) / "plan"
        path.write_text(plan_to_text(attempt.plan))
        try:
            verdict = val.validate(domain, problem, path, timeout=timeout)
        except val.ValTimeout:
            verdict = val.ValResult(False, None, f"not checked: VAL did not finish within {timeout:.1f} s (what "
                                    "the time limit left, at least 5 s)")
    return verdict


def val_time_limit(planner, spent: float) -> float:
    """VAL's seconds after an attempt that took `spent` (the problem's load included): what the
    planner's search time limit leaves, at least 5 s (300 s for a planner without one)."""
    limit = getattr(getattr(planner, "limits", None), "time_limit", None)
    if limit is None or not limit < 300:
        return 300.0
    return max(limit - spent, 5.0)


def solve(planner, domain: str | Path, problem: str | Path, out: str | Path | None = None,
          reference_plan: list | None = None) -> tuple[Outcome, str]:
    """Plan and validate; write `out` for a VAL-valid plan, and for a plan that reached the goal but
    VAL could not check (`Outcome.unchecked`: the user's only copy of it). Returns the outcome and the
    plan's text (printed by the CLI when no `out` is given). An empty, unreadable, missing or malformed
    problem file is one GenplanError naming it, whatever the family (the heuristic family's was blank
    or Python's own); a well-formed problem of another domain stays the planner's to refuse."""
    from genplan.pddl_io import parse_domain, parse_problem

    try:
        parse_problem(problem, parse_domain(domain))
    except GenplanError as exc:
        if not exc.message.startswith("problem is for domain"):
            raise
    outcome = solve_and_validate(planner, Problem(domain, problem, reference_plan))
    text = plan_to_text(outcome.attempt.plan)
    if out is not None and (outcome.solved or outcome.unchecked):
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
    if outcome.unchecked:
        return (f"Plan NOT CHECKED (VAL): {outcome.verdict.message}; the planner says its {len(a.plan)} actions reach "
                f"the goal ({problem}; {stats})")
    if a.reached_goal:
        return f"Plan INVALID (VAL): {outcome.verdict.message} ({problem}; {stats})"
    return f"No plan: the planner stopped ({a.reason}) without reaching the goal ({problem}; {stats})"
