"""Greedy heuristic guidance (SymT paper, Section 5, "Greedy Heuristic Guidance"): from the current
state, compute the learned heuristic of every successor (pymimir generates them) and move to the
one with the lowest value; repeat until a goal state is reached. Used by SymT^E (strategy
`heuristic-greedy`); any model with `heuristic_of(states, task) -> list[float]` can use it.

Details the paper leaves open, decided here:
- ties: the first successor in pymimir's order of applicable actions among those with the lowest
  value (deterministic for a given problem file);
- revisits: a successor already visited on the way (the path's states, compared as sets of fluent
  atoms) is never chosen; when every successor was visited, or there is none, the search stops
  with reason `dead_end` (it never backtracks: the paper's strategy is a plain greedy walk);
- horizon: at most max(horizon_min, horizon_per_object * |objects|) steps (100 and 10, as the
  transition family's beam, genplan.planners.beam), and at most `max_tokens` plan tokens (the
  paper's 500-token cap; an action counts 1 + its arity tokens), reason `horizon`.

The states are batched: one model call evaluates all successors of a state."""

from __future__ import annotations

import time

from genplan.errors import GenplanError
from genplan.planners.base import Attempt


class GreedyGuidance:
    def __init__(self, model, strategy, settings: dict | None = None):
        settings = settings or {}
        decode, generate = settings.get("decode") or {}, settings.get("generate") or {}
        self.model, self.strategy = model, strategy.name
        self.horizon_min = int(decode.get("horizon_min", 100))
        self.horizon_per_object = int(decode.get("horizon_per_object", 10))
        self.max_tokens = int(generate.get("max_tokens", getattr(model.settings, "max_tokens", 500)))

    def solve(self, problem) -> Attempt:
        start = time.perf_counter()
        task = problem.task
        try:
            evaluate = self.model.heuristic_of(task)
        except GenplanError as exc:  # e.g. more objects than the model's object tokens
            return Attempt([], "refused", time.perf_counter() - start, counters={"message": exc.message})
        mimir = problem.mimir
        horizon = max(self.horizon_min, self.horizon_per_object * len(task.objects))
        state, plan, tokens, calls, expanded = mimir.initial_state(), [], 0, 0, 0
        visited = {mimir.fluents(state)}
        reason = "horizon"
        while True:
            if mimir.is_goal(state):
                reason = "goal"
                break
            if len(plan) >= horizon:
                break
            successors = [(a, s, mimir.fluents(s)) for a, s in mimir.successors(state)]
            expanded += 1
            fresh = [(a, s, f) for a, s, f in successors if f not in visited]
            if not fresh:
                reason = "dead_end"
                break
            values = evaluate([f for _, _, f in fresh])
            calls += 1
            best = min(range(len(fresh)), key=lambda i: (values[i], i))
            action, state, fluents = fresh[best]
            if tokens + len(action) > self.max_tokens:
                break
            tokens += len(action)
            plan.append(action)
            visited.add(fluents)
        return Attempt(plan, reason, time.perf_counter() - start, steps=len(plan), horizon=horizon,
                       model_calls=calls, states_expanded=expanded, tokens_generated=tokens)
