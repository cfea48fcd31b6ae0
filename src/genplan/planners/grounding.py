"""A grounded STRIPS task from pymimir, for the compiled search (genplan._wlsearch):
every ground action reachable in the delete relaxation, as precondition / negative precondition /
add / delete lists over dense fluent atom ids, in the lexicographic order of the actions' names
(the order in which genplan.planners.best_first generates successors).

pymimir 0.13.63 does not list a problem's ground actions, so they are found by a relaxed
exploration with pymimir's own lifted successor generator: the state holding every fluent atom
reached so far is expanded until no new atom is added. Negative preconditions would cut actions
out of that over-full state, so the exploration runs on a copy of the domain without the negated
literals of its preconditions (a superset of the reachable actions); each action found is then
grounded in the real problem (`Problem.ground`), whose conditions and effects, with pymimir's
atom indices, are what the task holds. Static preconditions are checked against the initial
static atoms. Conditional effects and derived predicates are refused (GenplanError)."""

from __future__ import annotations

import re
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from genplan.errors import GenplanError
from genplan.mimir import MimirTask, load_task
from genplan.pddl_io import read_text

CHECK_EVERY = 1024  # ground actions between two looks at the clock


class GroundingTimeout(Exception):
    """The deadline passed while grounding: the problem's time limit ran out before its search began."""


def _check(deadline: float | None) -> None:
    if deadline is not None and time.perf_counter() > deadline:
        raise GroundingTimeout


_PRECONDITION = re.compile(r":precondition\b", re.IGNORECASE)
_NOT = re.compile(r"\(\s*not\b", re.IGNORECASE)


@dataclass
class GroundTask:
    names: list[tuple]  # ground action names, sorted; action i of the lists below
    pre: list[list[int]]
    neg: list[list[int]]
    add: list[list[int]]
    delete: list[list[int]]
    init: list[int]
    goal_pos: list[int]
    goal_neg: list[int]
    mimir_index: list[int]  # dense fluent id -> pymimir fluent atom index
    dense: dict  # pymimir fluent atom index -> dense id
    atoms: list[tuple]  # dense fluent id -> the atom

    def state_ids(self, mimir: MimirTask, state) -> list[int]:
        """Dense ids of a pymimir state's fluent atoms (KeyError for an atom no action touches)."""
        return [self.dense[i] for i in mimir.fluent_indices(state)]


def _close(text: str, start: int) -> int:
    """The index after the s-expression opening at `start`."""
    depth = 0
    for i in range(start, len(text)):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth == 0:
            return i + 1
    raise ValueError("unbalanced parentheses")


def without_negative_preconditions(text: str) -> str:
    """The domain text with every `(not ...)` inside an action's precondition removed."""
    text = re.sub(r";[^\n]*", "", text)
    out, pos = [], 0
    for match in _PRECONDITION.finditer(text):
        if match.start() < pos:
            continue
        start = text.index("(", match.end())
        end = _close(text, start)
        body = text[start:end]
        while (neg := _NOT.search(body)) is not None:
            body = body[:neg.start()] + body[_close(body, neg.start()):]
        if not body.strip("() \t\n").strip():
            body = "(and)"
        out += [text[pos:start], body]
        pos = end
    return "".join(out) + text[pos:]


def _explore(domain_file: Path, problem_file: Path, deadline: float | None = None) -> set[tuple]:
    """Names (schema, objects...) of the ground actions reachable in the delete relaxation of the
    domain without negative preconditions (GroundingTimeout once time.perf_counter() passes `deadline`)."""
    with tempfile.TemporaryDirectory(prefix="genplan-ground-") as tmp:
        relaxed = Path(tmp) / "domain.pddl"
        relaxed.write_text(without_negative_preconditions(read_text(domain_file, "PDDL domain")), encoding="utf-8")
        try:
            _dom, prob, typed = load_task(relaxed, problem_file)
        except Exception as exc:
            raise GenplanError(f"pymimir cannot load the relaxed domain: {str(exc).splitlines()[0][:300]}",
                               domain_file) from None
        try:
            ctx = prob._search_context
            repo = prob._advanced_problem.get_repositories()
            states, generator = ctx.get_state_repository(), ctx.get_applicable_action_generator()
            reached = set(prob.get_initial_state()._advanced_state.get_fluent_atoms())
            done: set[int] = set()
            names: set[tuple] = set()
            while True:
                state, _ = states.get_or_create_state(repo.get_fluent_ground_atoms_from_indices(sorted(reached)), [])
                new = set()
                for k, a in enumerate(generator.generate_applicable_actions(state)):
                    if k % CHECK_EVERY == 0:
                        _check(deadline)
                    if a.get_index() in done:
                        continue
                    done.add(a.get_index())
                    names.add((a.get_action().get_name(), *(o.get_name() for o in a.get_objects())))
                    for effect in a.get_conditional_effects():
                        new.update(effect.get_conjunctive_effect().get_positive_effects())
                if new <= reached:
                    return names
                reached |= new
        finally:
            if typed is not None:
                typed.cleanup()


def ground(mimir: MimirTask, domain_file: str | Path, deadline: float | None = None) -> GroundTask:
    """The grounded task of a pymimir problem (see the module docstring). With a `deadline` (a
    time.perf_counter() value) GroundingTimeout is raised once it has passed, the clock read every
    CHECK_EVERY ground actions: a problem whose grounding alone outlasts its time limit stops there."""
    path = mimir.path
    names = sorted(_explore(Path(domain_file), path, deadline))
    problem = mimir.problem
    objects = {o.get_name(): o for o in problem.get_objects()}
    objects |= {o.get_name(): o for o in mimir.domain.get_constants()}
    advanced = problem._advanced_problem
    statics = {a.get_index() for a in advanced.get_static_initial_atoms()}
    lists: tuple[list, list, list, list] = ([], [], [], [])
    kept = []
    for k, name in enumerate(names):
        if k % CHECK_EVERY == 0:
            _check(deadline)
        act = problem.new_ground_action(mimir.domain.get_action(name[0]), [objects[o] for o in name[1:]])
        cond = act._advanced_ground_action.get_conjunctive_condition()
        if list(cond.get_derived_positive_condition()) or list(cond.get_derived_negative_condition()):
            raise GenplanError("the compiled search does not support derived predicates", path)
        if not statics.issuperset(cond.get_static_positive_condition()) or \
                statics.intersection(cond.get_static_negative_condition()):
            continue
        add, delete = [], []
        for effect in act._advanced_ground_action.get_conditional_effects():
            c = effect.get_conjunctive_condition()
            if any(list(f()) for f in (c.get_fluent_positive_condition, c.get_fluent_negative_condition,
                                       c.get_static_positive_condition, c.get_static_negative_condition)):
                raise GenplanError("the compiled search does not support conditional effects", path)
            e = effect.get_conjunctive_effect()
            add += list(e.get_positive_effects())
            delete += list(e.get_negative_effects())
        kept.append(name)
        for target, values in zip(lists, (cond.get_fluent_positive_condition(), cond.get_fluent_negative_condition(),
                                          add, delete)):
            target.append(sorted(set(values)))
    goal_pos, goal_neg = [], []
    for lit in advanced.get_fluent_goal_literals():
        (goal_pos if lit.get_polarity() else goal_neg).append(lit.get_atom().get_index())
    if list(advanced.get_derived_goal_literals()):
        raise GenplanError("the compiled search does not support derived goals", path)
    for lit in advanced.get_static_goal_literals():
        if (lit.get_atom().get_index() in statics) != lit.get_polarity():
            kept, lists = [], ([], [], [], [])  # a static goal that fails: no action can help
    init = list(mimir.initial_state()._advanced_state.get_fluent_atoms())
    used = sorted({i for group in lists for row in group for i in row} | set(init) | set(goal_pos) | set(goal_neg))
    dense = {m: d for d, m in enumerate(used)}

    def remap(ids):
        return [dense[i] for i in ids]

    return GroundTask(kept, *([remap(r) for r in group] for group in lists), remap(init), remap(goal_pos),
                      remap(goal_neg), used, dense, [mimir.fluent_atom(i) for i in used])
