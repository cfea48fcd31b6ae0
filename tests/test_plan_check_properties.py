"""Property tests of the plan pre-check (genplan.plan_check): on random typed tasks (a type tree,
objects and constants of its types, actions with typed parameters, written as PDDL and read by the
package's real readers), a random well-typed plan passes, and the same plan perturbed at one step
in its action's name, its arity, one argument's object, or one argument's type is refused at exactly
that step. A change of case alone changes nothing (PDDL names are case-insensitive)."""

from __future__ import annotations

import itertools

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from genplan import plan_check  # noqa: E402

pytestmark = pytest.mark.timeout(300)
_COUNTER = itertools.count()  # a fresh file name per example: the readers cache by path and mtime


@st.composite
def tasks(draw):
    """(domain text, problem text, {object: type}, {type: ancestors}, {action: parameter types}, a plan)."""
    n_types = draw(st.integers(1, 4))
    parents = {f"t{i}": (f"t{draw(st.integers(0, i - 1))}" if i and draw(st.booleans()) else "object")
               for i in range(n_types)}
    ancestors = {}
    for t in parents:
        chain, cur = {t, "object"}, t
        while parents.get(cur, "object") != "object":
            cur = parents[cur]
            chain.add(cur)
        ancestors[t] = chain
    types = sorted(parents)
    objects = {f"o{i}": draw(st.sampled_from(types)) for i in range(draw(st.integers(1, 6)))}
    constants = {f"c{i}": draw(st.sampled_from(types)) for i in range(draw(st.integers(0, 2)))}
    actions = {f"a{i}": [draw(st.sampled_from(types)) for _ in range(draw(st.integers(0, 3)))]
               for i in range(draw(st.integers(1, 3)))}
    known = {**objects, **constants}

    def fits(t):
        return [o for o, k in known.items() if t in ancestors[k]]

    usable = [a for a, ps in actions.items() if all(fits(t) for t in ps)]
    if not usable:
        usable_name = "a0"
        actions[usable_name] = []
        usable = [usable_name]
    plan = []
    for _ in range(draw(st.integers(1, 6))):
        name = draw(st.sampled_from(usable))
        plan.append((name, *(draw(st.sampled_from(fits(t))) for t in actions[name])))
    type_lines = " ".join(f"{t} - {p}" for t, p in parents.items())
    action_text = "\n".join(
        f"  (:action {a} :parameters ({' '.join(f'?p{j} - {t}' for j, t in enumerate(ps))})"
        f" :precondition (and) :effect (and (done)))" for a, ps in actions.items())
    consts = " ".join(f"{c} - {t}" for c, t in constants.items())
    domain = (f"(define (domain rnd) (:requirements :strips :typing)\n  (:types {type_lines})\n"
              + (f"  (:constants {consts})\n" if constants else "")
              + f"  (:predicates (done))\n{action_text})\n")
    problem = (f"(define (problem p) (:domain rnd)\n  (:objects {' '.join(f'{o} - {t}' for o, t in objects.items())})\n"
               "  (:init) (:goal (done)))\n")
    return domain, problem, known, ancestors, actions, plan


def _check(tmp_path, domain, problem, plan):
    n = next(_COUNTER)
    d, p, f = tmp_path / f"d{n}.pddl", tmp_path / f"p{n}.pddl", tmp_path / f"plan{n}"
    d.write_text(domain)
    p.write_text(problem)
    f.write_text("".join("(" + " ".join(step) + ")\n" for step in plan))
    return plan_check.check_plan(d, p, f)


PERTURBATIONS = ("name", "surplus", "missing", "object", "type", "case")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(task=tasks(), where=st.integers(0, 5), how=st.sampled_from(PERTURBATIONS), data=st.data())
def test_a_perturbed_plan_is_never_valid_by_the_pre_check(tmp_path, task, where, how, data):
    domain, problem, known, ancestors, actions, plan = task
    assert _check(tmp_path, domain, problem, plan) is None  # the well-typed plan passes
    i = where % len(plan)
    name, *args = plan[i]
    if how == "name":
        step = ("no-" + name, *args)
    elif how == "surplus":
        step = (name, *args, data.draw(st.sampled_from(sorted(known))))
    elif how == "missing":
        if not args:
            return
        step = (name, *args[:-1])
    elif how == "object":
        if not args:
            return
        j = data.draw(st.integers(0, len(args) - 1))
        step = (name, *args[:j], "nosuchobject", *args[j + 1:])
    elif how == "type":
        j = data.draw(st.integers(0, max(len(args) - 1, 0)))
        wrong = [o for o, k in known.items() if args and actions[name][j] not in ancestors[k]]
        if not wrong:
            return
        step = (name, *args[:j], data.draw(st.sampled_from(wrong)), *args[j + 1:])
    else:
        step = tuple(s.upper() for s in plan[i])
    bad = _check(tmp_path, domain, problem, [*plan[:i], step, *plan[i + 1:]])
    if how == "case":
        assert bad is None
    else:
        assert bad is not None and bad.step == i + 1 and bad.line == i + 1, (how, step, bad)
