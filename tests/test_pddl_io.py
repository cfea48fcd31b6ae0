
import pytest

from genplan.domains import domain_file
from genplan.errors import GenplanError
from genplan.pddl_io import parse_domain, parse_problem, problem_to_pddl, read_plan


def test_statics_are_kept_apart(paper_splits):
    dom = parse_domain(domain_file("gripper"))
    assert dom.fluent_predicates == {"at", "at-robby", "free", "carry"}
    task = parse_problem(paper_splits / "gripper" / "train" / "balls02.pddl", dom)
    assert ("at-robby", "rooma") in task.init
    assert ("room", "rooma") in task.statics and ("room", "rooma") not in task.init
    assert task.goal == {("at", "ball1", "roomb"), ("at", "ball2", "roomb")}


def test_round_trip_through_pddl_text(tmp_path):
    dom = parse_domain(domain_file("blocks"))
    text = problem_to_pddl("p", dom.name, ["a", "b"], [("clear", "a"), ("on", "a", "b"), ("ontable", "b"), ("handempty",)], [("on", "b", "a")])
    path = tmp_path / "p.pddl"
    path.write_text(text)
    task = parse_problem(path, dom)
    assert task.objects == ("a", "b") and task.goal == {("on", "b", "a")}
    assert ("handempty",) in task.init


def test_problems_parsed_from_threads_are_the_problems_parsed_one_by_one(tmp_path):
    """parse_problem keeps one pddl parser a thread (its grammar is slow to build): problems parsed side by
    side from threads, as Fast Downward's pool does, are each their own (no objects of another)."""
    from concurrent.futures import ThreadPoolExecutor

    dom = parse_domain(domain_file("blocks"))
    paths = []
    for n in range(2, 14):
        names = [f"b{i}" for i in range(n)]
        init = [("clear", names[0]), ("handempty",), *[("on", a, b) for a, b in zip(names, names[1:])],
                ("ontable", names[-1])]
        path = tmp_path / f"p{n}.pddl"
        path.write_text(problem_to_pddl(f"p{n}", dom.name, names, init, [("on", names[-1], names[0])]))
        paths.append(path)
    alone = [parse_problem(p, dom) for p in paths]
    with ThreadPoolExecutor(4) as pool:
        together = list(pool.map(lambda p: parse_problem(p, dom), paths * 8))
    assert together == alone * 8


@pytest.mark.parametrize(
    "text, message",
    [
        ("(define (problem p) (:domain blocks) (:objects a) (:init (clear a) (:goal (clear a)))", "malformed PDDL problem"),
        ("(define (problem p) (:domain gripper-strips) (:objects a) (:init) (:goal (clear a)))", "not 'blocks'"),
        ("(define (problem p) (:domain blocks) (:objects a) (:init (clear a b)) (:goal (clear a)))", "wrong number of arguments"),
        ("(define (problem p) (:domain blocks) (:objects a) (:init (clear c)) (:goal (clear a)))", "undeclared object"),
        ("(define (problem p) (:domain blocks) (:objects a) (:init (flying a)) (:goal (clear a)))", "unknown predicate"),
    ],
)
def test_bad_problems_name_the_file(tmp_path, text, message):
    path = tmp_path / "bad.pddl"
    path.write_text(text)
    with pytest.raises(GenplanError) as err:
        parse_problem(path, parse_domain(domain_file("blocks")))
    assert message in str(err.value) and "bad.pddl" in str(err.value)


def test_malformed_domain(tmp_path):
    path = tmp_path / "domain.pddl"
    path.write_text("(define (domain d) (:predicates (p ?x)")
    with pytest.raises(GenplanError, match="malformed PDDL domain"):
        parse_domain(path)


def test_missing_plan_and_bad_plan_line(tmp_path):
    with pytest.raises(GenplanError, match="plan file not found"):
        read_plan(tmp_path / "none.plan")
    bad = tmp_path / "bad.plan"
    bad.write_text("(pick-up a)\npick-up b\n")
    with pytest.raises(GenplanError, match="line 2"):
        read_plan(bad)


def test_unknown_domain():
    with pytest.raises(ValueError, match="Unknown value name='chess'"):
        domain_file("chess")
