"""One planner interface for every model family.

A planner is built from a model (loaded from a checkpoint, or held in memory during training:
coverage-based selection calls it) and a named strategy (`genplan.planners.strategies`); it takes
one problem and returns an `Attempt`: the plan, why it stopped, the time, and counters. VAL's
verdict is added by `genplan.planners.solve`, never by a planner: a planner's belief that it
reached the goal is not a solved problem.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from genplan.pddl_io import Action, Task, parse_domain, parse_problem

# why a planner stopped: `goal` (it believes it reached a goal state), `horizon` (step budget
# spent), `dead_end` (nothing left to expand), `idle` (the reference beam's fixed point),
# `refused` (the model cannot represent the problem), `error`; sequence models: `not_goal` (the
# plan ended short of the goal), `inapplicable` (an action not applicable where it stands),
# `token_cap` (the generation cap reached), `malformed` (tokens that are no plan); searches:
# `node_limit` (the expansion budget spent), `time_limit` (the search's own time limit),
# `memory_limit` (the search's own memory limit, `search: {memory_limit_mb}`)
REASONS = ("goal", "horizon", "dead_end", "idle", "refused", "error", "not_goal", "inapplicable", "token_cap",
           "malformed", "node_limit", "time_limit", "memory_limit")


@dataclass
class Attempt:
    plan: list[Action]
    reason: str
    time: float  # seconds, model binding included
    steps: int = 0  # search iterations or decoding steps
    horizon: int | None = None  # the step budget, where there is one
    model_calls: int = 0  # forward passes of the learned model
    states_expanded: int = 0  # states whose successors were generated
    tokens_generated: int = 0  # sequence families
    counters: dict = field(default_factory=dict)  # family-specific, written as JSON

    @property
    def reached_goal(self) -> bool:
        return self.reason == "goal"


class Problem:
    """One planning problem: its files, parsed on demand in the package's representation
    (`task`) and in pymimir (`mimir`), each once."""

    def __init__(self, domain: str | Path, problem: str | Path, reference_plan: list | None = None):
        self.domain_file, self.problem_file = Path(domain), Path(problem)
        self.reference_plan = reference_plan  # a known plan, for strategies that complete a prefix of it

    @functools.cached_property
    def task(self) -> Task:
        return parse_problem(self.problem_file, parse_domain(self.domain_file))

    @functools.cached_property
    def mimir(self):
        from genplan.mimir import MimirTask  # pymimir only where a planner needs it

        return MimirTask(self.domain_file, self.problem_file)


class Planner(Protocol):
    strategy: str

    def solve(self, problem: Problem) -> Attempt: ...


class Heuristic(Protocol):
    """A model that scores states (the heuristic family's learned heuristics, SymT^E), as the
    searches of genplan.planners.search use it: `bind(problem)` gives h for one problem, a function
    from a list of the problem's pymimir states (those of `problem.mimir`) to one number per state,
    computed in one batch. pymimir states at the interface, because the searches hold them
    (successors come from pymimir): a state is converted to what the model reads (wlplan atoms from
    pymimir's atom indices, the package's fluent atoms) only when it is evaluated, never to be
    compared or stored. `bind` raises GenplanError for a problem the model cannot represent."""

    def bind(self, problem: Problem) -> Callable[[list], Sequence[float]]: ...
