"""A strategy costs what the README's recipe says: one row in genplan.planners.strategies.TABLE (and its
number's bound in MAXIMA), the branch that plans with it (here a family's own planner) and its kind named
in a family's registry entry. The throwaway kind `breadth-first[-dD]` is added to a copy of the package
by those two edits of strategies.py; the throwaway family of tests/fixtures/strategy_recipe (registered
through GENPLAN_FAMILIES) offers it. In a process that imports the copy, the name parses to its
parameters, a depth past its bound and a family that does not offer the kind are refused by name, the
help text lists its form, and `genplan.registry.planner` (the call `genplan solve` makes) plans a problem
whose plan VAL accepts, the depth read from the name."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import FIXTURES, REPO

ROW = '''    Kind("breadth-first", r"breadth-first(-d(?P<depth>[1-9][0-9]*))?",
         lambda m: {"depth": int(m["depth"] or 100)}, "breadth-first[-dD]", ("breadth-first", "breadth-first-d20"),
         "breadth", "the shortest plan within D steps (100 by default), breadth first"),
'''
TABLE_END = "\n)\n_BY_NAME = "  # the table's closing line: the row goes before it
BOUNDS = 'MAXIMA = {"width": 100,'
PROBLEM = """(define (problem lamps-n3) (:domain lamps)
  (:objects lamp1 lamp2 lamp3)
  (:init (lamp lamp1) (lamp lamp2) (lamp lamp3) (first lamp1) (next lamp1 lamp2) (next lamp2 lamp3))
  (:goal (and (on lamp1) (on lamp2) (on lamp3))))
"""
SCRIPT = """
import json, sys
from genplan import registry
from genplan.planners import strategies
from genplan.planners.solve import solve
out = {"params": strategies.parse("breadth-first-d20").params, "default": strategies.parse("breadth-first").params}
try:
    strategies.parse("breadth-first-d5000")
except ValueError as exc:
    out["bound"] = str(exc)
out["offered"] = registry.check_models({"m": {"family": "breadth", "seeds": [1], "strategies": ["breadth-first-d9"]}})
out["refused"] = registry.check_models({"m": {"family": "transition", "strategies": ["breadth-first"]}})
out["help"] = strategies.describe({"breadth": registry.family("breadth").strategy_kinds})
model = registry.family("breadth").impl.load({}, None)
outcome, text = solve(registry.planner(model, "breadth-first-d5", {}), sys.argv[1], sys.argv[2], out=sys.argv[3])
out["solved"], out["plan"] = outcome.solved, text
out["short"] = solve(registry.planner(model, "breadth-first-d2", {}), sys.argv[1], sys.argv[2])[0].attempt.reason
print(json.dumps(out))
"""


def _package_with_the_row(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    shutil.copytree(REPO / "src" / "genplan", src / "genplan", ignore=shutil.ignore_patterns("__pycache__"))
    path = src / "genplan" / "planners" / "strategies.py"
    text = path.read_text()
    assert text.count(TABLE_END) == 1 and text.count(BOUNDS) == 1  # the recipe's two places, as the README names them
    path.write_text(text.replace(TABLE_END, "\n" + ROW.rstrip("\n") + TABLE_END, 1)
                    .replace(BOUNDS, 'MAXIMA = {"depth": 1000, "width": 100,', 1))
    return src


def test_a_strategy_added_by_the_recipe_parses_is_checked_and_plans(tmp_path):
    src = _package_with_the_row(tmp_path)
    (tmp_path / "p.pddl").write_text(PROBLEM)
    domain = FIXTURES / "generated_domain" / "lamps.pddl"
    env = {**os.environ, "GENPLAN_FAMILIES": "strategy_recipe",
           "PYTHONPATH": os.pathsep.join(filter(None, [str(src), str(FIXTURES), os.environ.get("PYTHONPATH")]))}
    res = subprocess.run([sys.executable, "-c", SCRIPT, str(domain), str(tmp_path / "p.pddl"), str(tmp_path / "p.plan")],
                         env=env, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    out = json.loads(res.stdout.strip().splitlines()[-1])
    assert out["params"] == {"depth": 20} and out["default"] == {"depth": 100}
    assert "depth 5000 is greater than the maximum of 1000" in out["bound"]
    assert out["offered"] == []
    assert any("'breadth-first' is a breadth-first strategy; family transition offers" in p for p in out["refused"])
    assert out["help"] == "breadth: breadth-first[-dD]"
    assert out["solved"] and out["plan"].split("\n")[:3] == ["(switch-first lamp1)", "(switch-next lamp1 lamp2)",
                                                             "(switch-next lamp2 lamp3)"]
    assert (tmp_path / "p.plan").read_text() == out["plan"]
    assert out["short"] == "horizon"  # two steps are too few for three lamps: the depth is read from the name
    # the checkout's own package knows no such strategy: the row is what made it
    res = subprocess.run([sys.executable, "-c", "from genplan.planners import strategies; strategies.parse('breadth-first')"],
                         capture_output=True, text=True, timeout=120, cwd=REPO)
    assert res.returncode != 0 and "Unknown value strategy='breadth-first'" in res.stderr
