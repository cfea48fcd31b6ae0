"""Plans are checked against the task's signature before VAL (genplan.plan_check): VAL ignores
surplus arguments (a step naming an object that does not exist passed), and segfaults on a step with
too few. Each case goes through the command line, with real VAL; the tampered stored plan through
`genplan validate --evaluation`. VAL's own crashes and limits are one "not checked:" verdict, and a
plan the planner says reaches the goal is kept where the user asked for it."""

from __future__ import annotations

import time

import pytest
from conftest import run_cli

from genplan import plan_check, val
from genplan.errors import GenplanError
from genplan.formats import stored_plans, tables
from genplan.formats.evaluation_csv import COLUMNS
from genplan.planners.base import Attempt
from genplan.planners.solve import solve
from genplan.stages.importer import SPLIT_DIRS
from genplan.stages.problems import generate_benchmark

pytestmark = pytest.mark.timeout(120)

PLAN = ["(pick ball1 rooma left)", "(pick ball2 rooma right)", "(move rooma roomb)", "(drop ball1 roomb left)",
        "(drop ball2 roomb right)", "(move roomb rooma)", "(pick ball3 rooma left)", "(pick ball4 rooma right)",
        "(move rooma roomb)", "(drop ball3 roomb left)", "(drop ball4 roomb right)"]

# (how the plan is changed, the step that must be named, what the reason says)
TAMPERED = {
    "surplus argument naming no object": ({10: "(drop ball4 roomb right nosuchobject)"}, 11, "drop takes 3"),
    "surplus arguments at step 1": ({0: "(pick ball1 rooma left ball2 ball3 ball4)"}, 1, "pick takes 3"),
    "missing argument": ({0: "(pick ball1 rooma)"}, 1, "the step gives 2"),
    "unknown object": ({0: "(pick ball1 roomz left)"}, 1, "'roomz' is no object"),
    "unknown action": ({2: "(fly rooma roomb)"}, 3, "no action 'fly'"),
}


@pytest.fixture(scope="module")
def gripper4(tmp_path_factory):
    w = tmp_path_factory.mktemp("check")
    generate_benchmark("gripper", {"sizes": {s: [4] for s in SPLIT_DIRS}, "per_size": {s: 1 for s in SPLIT_DIRS}},
                       0, w / "bench")
    (w / "good.plan").write_text("\n".join(PLAN) + "\n")
    return w, w / "bench/domain.pddl", w / "bench/extrapolation/gripper-n4.pddl"


def _tampered(changes: dict[int, str]) -> list[str]:
    return [changes.get(i, a) for i, a in enumerate(PLAN)]


@pytest.mark.parametrize("case", sorted(TAMPERED))
def test_validate_calls_a_plan_that_does_not_fit_the_task_invalid_naming_the_step(gripper4, case):
    w, domain, problem = gripper4
    changes, step, why = TAMPERED[case]
    plan = w / "tampered.plan"
    plan.write_text("; a comment first\n" + "\n".join(_tampered(changes)) + "\n")
    res = run_cli("validate", domain, problem, plan)
    assert res.returncode == 1, res.stdout + res.stderr
    assert res.stdout.startswith(f"Plan invalid: step {step} (line {step + 1}) "), res.stdout
    assert why in res.stdout and res.stderr == ""


def test_the_untampered_plan_stays_valid(gripper4):
    w, domain, problem = gripper4
    res = run_cli("validate", domain, problem, w / "good.plan")
    assert res.returncode == 0 and "Plan valid: 11 steps" in res.stdout, res.stdout + res.stderr


TYPED_DOMAIN = """(define (domain typed)
  (:requirements :strips :typing)
  (:types room vehicle - object car - vehicle)
  (:constants garage - room)
  (:predicates (at ?v - vehicle ?r - room))
  (:action drive :parameters (?v - vehicle ?from ?to - room)
    :precondition (at ?v ?from) :effect (and (at ?v ?to) (not (at ?v ?from)))))
"""
TYPED_PROBLEM = """(define (problem p) (:domain typed)
  (:objects c1 - car home - room)
  (:init (at c1 home)) (:goal (at c1 garage)))
"""


@pytest.mark.parametrize("step, verdict", [
    ("(drive c1 home garage)", None),  # a car is a vehicle; a constant is an object of every problem
    ("(drive home c1 garage)", "argument 1 'home' is of type room, parameter 1 of drive takes vehicle"),
    ("(DRIVE C1 HOME GARAGE)", None),  # PDDL names are case-insensitive
])
def test_arguments_must_be_of_a_type_the_parameter_admits(tmp_path, step, verdict):
    (tmp_path / "d.pddl").write_text(TYPED_DOMAIN)
    (tmp_path / "p.pddl").write_text(TYPED_PROBLEM)
    (tmp_path / "plan").write_text(step + "\n")
    bad = plan_check.check_plan(tmp_path / "d.pddl", tmp_path / "p.pddl", tmp_path / "plan")
    assert (bad and bad.why) == verdict
    result = val.validate(tmp_path / "d.pddl", tmp_path / "p.pddl", tmp_path / "plan")
    assert result.valid == (verdict is None), result.message


def test_a_val_crash_is_a_not_checked_verdict_not_a_traceback(gripper4):
    w, domain, problem = gripper4
    plan = w / "short.plan"
    plan.write_text("(pick ball1 rooma)\n")  # VAL itself segfaults on a step with too few arguments
    crash = val.run_val(domain, problem, plan, 60, plan)
    assert not crash.valid and crash.message.startswith("not checked: VAL crashed (SIGSEGV)"), crash.message
    assert val.validate(domain, problem, plan).message.startswith("step 1 (line 1) (pick ball1 rooma):")


def test_a_100000_character_object_name_is_checked_in_seconds(gripper4):
    w, domain, problem = gripper4
    name = "b" + "x" * 100_000
    (w / "long.pddl").write_text(problem.read_text().replace("ball1", name))
    (w / "long.plan").write_text("\n".join(PLAN).replace("ball1", name) + "\n")
    start = time.perf_counter()
    assert val.validate(domain, w / "long.pddl", w / "long.plan", timeout=60).valid  # VAL ran past 300 s before
    assert time.perf_counter() - start < 20
    (w / "longbad.plan").write_text("\n".join(PLAN[1:]).replace("ball1", name) + "\n")
    bad = val.validate(domain, w / "long.pddl", w / "longbad.plan", timeout=60)
    assert bad.failed_step == 3 and name in bad.message  # the name VAL was shown as an alias, restored
    assert val.long_names("(a " + "y" * 300 + ")") and not val.long_names("(a " + "y" * 200 + ")")


def test_a_duplicate_object_is_named_not_cut_at_a_colon(gripper4):
    w, domain, problem = gripper4
    (w / "dup.pddl").write_text(problem.read_text().replace("(:objects ball1", "(:objects ball1 ball1"))
    res = run_cli("validate", domain, w / "dup.pddl", w / "good.plan")
    assert res.returncode == 1
    assert "malformed PDDL problem: duplicate name 'ball1' in typed list already present" in res.stderr, res.stderr


class _Found:
    """A planner that returns the plan it is given and says it reached the goal (the subject here is
    what `solve` keeps of it, not how it was found)."""

    def __init__(self, plan):
        self.plan = plan

    def solve(self, problem):
        from genplan.pddl_io import str_to_atom

        return Attempt([str_to_atom(a) for a in self.plan], "goal", 0.1)


def test_a_found_plan_val_cannot_check_is_written_to_out_and_names_no_temporary_file(gripper4, tmp_path):
    w, domain, problem = gripper4
    moves = ["(move rooma roomb)", "(move roomb rooma)"] * 5000 + PLAN  # past VAL's plan parser
    out = tmp_path / "found.plan"
    outcome, text = solve(_Found(moves), domain, problem, out)
    assert outcome.unchecked and not outcome.solved
    assert outcome.verdict.message.startswith("not checked: VAL's plan parser refuses plans")
    assert out.read_text() == text and len(text.splitlines()) == len(moves) + 1
    assert "genplan-solve-" not in outcome.verdict.message


def _evaluation(tmp, problem, plan: list[str], rows: int = 1) -> tuple:
    csv = tmp / "extrapolation.gbfs.csv"
    row = {**dict.fromkeys(COLUMNS, ""), "benchmark": "generated", "domain": "gripper", "split": "extrapolation",
           "system": "s", "variant": "v", "model": "m", "seed": "1", "strategy": "gbfs", "problem": "gripper-n4",
           "solved": "yes", "reason": "goal", "val": "valid", "plan_length": str(len(plan)), "counters": "{}"}
    csv.write_text(tables.csv_text([row] * rows, COLUMNS))
    doc = stored_plans.document(csv, problem.parent.parent, problem.parent.parent / "domain.pddl",
                                [("gripper-n4", problem, plan)])
    stored_plans.plans_path(csv).write_bytes(stored_plans.encode(doc))
    return csv, problem.parent.parent


@pytest.mark.parametrize("case", ["surplus argument naming no object", "surplus arguments at step 1",
                                  "missing argument"])
def test_validate_evaluation_disagrees_with_a_stored_plan_so_tampered(gripper4, tmp_path, case):
    w, domain, problem = gripper4
    csv, bench = _evaluation(tmp_path, problem, PLAN)
    ok = run_cli("validate", "--evaluation", csv, "--problems", bench)
    assert ok.returncode == 0 and "1 agree, 0 disagree" in ok.stdout, ok.stdout + ok.stderr
    changes, step, why = TAMPERED[case]
    csv, bench = _evaluation(tmp_path, problem, _tampered(changes))
    res = run_cli("validate", "--evaluation", csv, "--problems", bench)
    assert res.returncode == 1 and "0 agree, 1 disagree" in res.stdout, res.stdout + res.stderr
    assert f"VAL now says 'step {step} (line {step})" in res.stdout and why in res.stdout


def test_a_stored_plan_that_is_no_plan_is_a_disagreement_naming_no_temporary_file(gripper4, tmp_path):
    w, domain, problem = gripper4
    csv, bench = _evaluation(tmp_path, problem, [*PLAN[:3], "pick ball1", *PLAN[3:]])
    res = run_cli("validate", "--evaluation", csv, "--problems", bench)
    assert res.returncode == 1 and "the stored plan cannot be read as a plan: line 4" in res.stdout, res.stdout
    assert "genplan-validate-" not in res.stdout + res.stderr


def test_an_objects_section_that_never_closes_is_named(tmp_path):
    (tmp_path / "p.pddl").write_text("(define (problem p) (:domain d) (:objects a b - t")
    with pytest.raises(GenplanError, match="never closes"):
        plan_check.problem_objects(tmp_path / "p.pddl")
