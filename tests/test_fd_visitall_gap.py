"""experiments/fd_visitall_gap.py: its log and plan readers, and one real run on a tiny VisitAll grid
where LM-cut before Fast Downward's tie-breaking change (its pull request 301; both tie-breaking rules off) is weaker than FD 26.6's
default."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from genplan.errors import GenplanError

REPO = Path(__file__).resolve().parents[1]


def _module():
    spec = importlib.util.spec_from_file_location("fd_visitall_gap", REPO / "experiments" / "fd_visitall_gap.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up there
    spec.loader.exec_module(mod)
    return mod


gap = _module()

DOMAIN = """(define (domain grid-visit-all)
  (:requirements :strips)
  (:predicates (place ?x) (connected ?x ?y) (at-robot ?x) (visited ?x))
  (:action move :parameters (?curpos ?nextpos)
    :precondition (and (place ?curpos) (place ?nextpos) (at-robot ?curpos) (connected ?curpos ?nextpos))
    :effect (and (at-robot ?nextpos) (not (at-robot ?curpos)) (visited ?nextpos))))
"""


def _grid(w: int, h: int, start=(0, 0)) -> str:
    cells = [(x, y) for y in range(h) for x in range(w)]
    name = lambda c: f"loc-x{c[0]}-y{c[1]}"  # noqa: E731
    init = [f"(place {name(c)})" for c in cells] + [f"(at-robot {name(start)})", f"(visited {name(start)})"]
    for x, y in cells:
        for nx, ny in ((x + 1, y), (x, y + 1)):
            if nx < w and ny < h:
                init += [f"(connected {name((x, y))} {name((nx, ny))})", f"(connected {name((nx, ny))} {name((x, y))})"]
    goal = " ".join(f"(visited {name(c)})" for c in cells)
    return (f"(define (problem grid-{w}-{h}) (:domain grid-visit-all) (:objects {' '.join(map(name, cells))})\n"
            f"  (:init {' '.join(init)})\n  (:goal (and {goal})))\n")


def test_readers():
    assert gap.cells_of("w04h08-01") == 32 and gap.cells_of("probBLOCKS-4-0") is None
    assert gap.plan_actions("(MOVE  a b)\n; cost = 1 (unit cost)\n\n(move b c)\n") == ["(move a b)", "(move b c)"]
    old = ("[t=0.0061616s, 10660 KB] Initial heuristic value for lmcut(): 20\n"
           "[t=2.0s, 12332 KB] f = 27, 58877 evaluated, 25065 expanded, 105 reopened\n"
           "Peak memory: 16004 KB\ncaught signal 24 -- exiting\n")
    assert gap.parse_log(old) == {"expanded": 25065, "evaluated": 58877, "expanded_final": False, "f_reached": 27,
                                  "initial_h": 20, "peak_kb": 16004}
    new = ("[t=0.002852s, 10544 KB] Initial heuristic value for lmcut: 31\n"
           "[t=0.17s, 10820 KB] Expanded 2093 state(s).\n[t=0.17s, 10820 KB] Evaluated 6649 state(s).\n"
           "[t=0.17s, 10820 KB] Expanded until last jump: 0 state(s).\n"
           "Peak memory: 10820 KB\n")
    assert gap.parse_log(new) == {"expanded": 2093, "evaluated": 6649, "expanded_final": True, "f_reached": None,
                                  "initial_h": 31, "peak_kb": 10820}
    assert [gap.status_of(c) for c in (0, 124, 23, 22, 30)] == ["solved", "timeout", "timeout", "memory", "error 30"]


def test_lmcut_before_the_tie_breaking_change_is_weaker_on_visitall(tmp_path):
    (tmp_path / "domain.pddl").write_text(DOMAIN)
    (tmp_path / "w03h03-01.pddl").write_text(_grid(3, 3, start=(1, 0)))
    driver = gap.fast_downward_driver()
    runs = {s: gap.run(driver, tmp_path / "domain.pddl", tmp_path / "w03h03-01.pddl",
                       gap.Setting(s, "current", "cpu", 20, None, search))
            for s, search in (("new", gap.ASTAR), ("old", gap.ASTAR_2025))}
    # 9 cells, the robot on an edge cell of the minority colour: no Hamiltonian path, optimal 9
    assert [len(r.plan) for r in runs.values()] == [9, 9]
    assert runs["new"].initial_h == 8 and runs["old"].initial_h < 8
    assert runs["old"].expanded > runs["new"].expanded


def test_table_and_agreement(tmp_path, capsys):
    (tmp_path / "domain.pddl").write_text(DOMAIN)
    probs, refs = tmp_path / "p", tmp_path / "r"
    probs.mkdir()
    refs.mkdir()
    (probs / "w02h02-01.pddl").write_text(_grid(2, 2))
    (refs / "w02h02-01.plan").write_text("(move loc-x0-y0 loc-x1-y0)\n(move loc-x1-y0 loc-x1-y1)\n"
                                         "(move loc-x1-y1 loc-x0-y1)\n; cost = 3 (unit cost)\n")
    (tmp_path / "plans.csv").write_text("problem,config,status,plan_length\nw02h02-01,astar_lmcut,optimal,3\n")
    args = ["--domain", str(tmp_path / "domain.pddl"), "--problems", str(probs), "--reference-plans", str(refs),
            "--plans-csv", str(tmp_path / "plans.csv"), "--sample", "w02h02-01", "--time-limit", "20",
            "--settings", "ours", "lmcut-2025"]
    assert gap.main(args) == 0
    out = capsys.readouterr().out
    rows = [line.split("\t") for line in out.splitlines() if line.startswith("w02h02-01")]
    assert [(r[1], r[2], r[3], r[4], r[5], r[6]) for r in rows] == [
        ("4", "3", "3", "A*", "ours", "solved"), ("4", "3", "3", "A*", "lmcut-2025", "solved")]
    assert "ours\t1/1" in out and "lmcut-2025\t1/1" in out

    with pytest.raises(GenplanError, match="w09h09-09"):
        gap.main(args[:-5] + ["--sample", "w09h09-09"])
    with pytest.raises(GenplanError, match="unknown settings"):
        gap.main(args[:-3] + ["--settings", "fd99"])
