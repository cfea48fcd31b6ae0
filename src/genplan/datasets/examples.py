"""Training examples of the sequence families (PlanGPT, SymT, diffusion) in the package's one
representation: a `Case` (objects, state, statics, goal, plan from that state), from

- a trajectories document (genplan.formats.trajectories.load): each plan from its initial state
  and, with `suffixes`, from every later state along it (`trajectory_cases`);
- the full state spaces of a split's problems (genplan.datasets.statespace): states sampled
  uniformly, each with one optimal plan (`statespace_cases`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from genplan.errors import GenplanError
from genplan.pddl_io import Action, Task, str_to_atom


@dataclass(frozen=True)
class Case:
    problem: str
    objects: tuple[str, ...]
    state: frozenset
    statics: frozenset
    goal: frozenset
    plan: tuple[Action, ...]

    def task(self, domain_name: str = "") -> Task:
        return Task(self.problem, domain_name, None, self.objects, self.state, self.statics, self.goal)


def _objects(*atom_sets, actions=()) -> tuple[str, ...]:
    names = {o for atoms in atom_sets for a in atoms for o in a[1:]} | {o for a in actions for o in a[1:]}
    return tuple(sorted(names))


def trajectory_cases(doc: dict, suffixes: bool = True) -> list[Case]:
    """Cases of a loaded trajectories document (genplan.formats.trajectories.load): each plan (the
    problem's plan and its `alternatives`, when the file has them) from its initial state, and with
    `suffixes` from every later state too."""
    cases = []
    for rec in doc["problems"]:
        statics = frozenset(map(str_to_atom, rec["statics"]))
        goal = frozenset(map(str_to_atom, rec["goal"]))
        plan = tuple(str_to_atom(a) for a in rec["actions"])
        states = [frozenset(map(str_to_atom, s)) for s in rec["states"]]
        objects = _objects(statics, goal, *states, actions=plan)
        for alt in [{"actions": rec["actions"], "states": rec["states"]}] + rec.get("alternatives", []):
            plan = tuple(str_to_atom(a) for a in alt["actions"])
            states = [frozenset(map(str_to_atom, s)) for s in alt["states"]]
            starts = range(len(plan)) if suffixes else range(min(1, len(plan)))
            cases += [Case(rec["problem"], objects, states[i], statics, goal, plan[i:]) for i in starts]
    return cases


def statespace_cases(folder: str | Path, n: int, seed: int, by: str = "state",
                     keep_goal_states: bool = False) -> tuple[list[Case], dict]:
    """n cases sampled from the state spaces of a split folder (the SymT protocol) and counts of
    what they were drawn from (problems, states, dead ends left out, goal-state cases). Goal states
    (empty plans) are left out unless `keep_goal_states` (a heuristic learns h = 0 from them; a
    plan generator only `<end>`)."""
    from genplan.datasets.statespace import load_split, sample_split

    spaces = load_split(folder)
    info = {"statespace_problems": len(spaces), "statespace_states": int(sum(len(s) for s in spaces)),
            "dead_end_states_excluded": int(sum(len(s) - len(s.solvable) for s in spaces))}
    cases = [Case(ex.problem, tuple(ex.objects), ex.state, ex.statics, ex.goal, tuple(ex.plan))
             for ex in sample_split(spaces, n, seed, by=by) if keep_goal_states or ex.plan]
    if not cases:
        raise GenplanError("every sampled state is a goal state: nothing to learn", folder)
    info["goal_state_examples"] = sum(not c.plan for c in cases)
    return cases, info


def check_object_pool(pool: int | dict, cases: list[Case]) -> None:
    """GenplanError when one pool of `pool` object tokens (an int; per-type pools are checked when
    renaming) is smaller than the objects of a case."""
    need = max(len(c.objects) for c in cases)
    if isinstance(pool, int) and pool < need:
        raise GenplanError(f"object_pool {pool} is smaller than the {need} objects of a training or validation "
                           "problem: raise it")
