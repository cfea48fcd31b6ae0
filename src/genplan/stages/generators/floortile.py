"""Floortile (IPC 2011): t tiles to paint (the size) in a checkerboard of white and black, on a
grid of r rows x c columns (r * c = t, both at most `max_side`, c at least `robots`) plus the
unpainted row 0 below it, by `robots` robots that paint the tile above or below them.

Tiles are tile_<row>-<column> (rows 0..r, columns 1..c) with ``up``/``down``/``right``/``left``
between neighbours. As the IPC generator (AI-Planning/pddl-generators floortile), each robot
starts on a random row of its own random column; its colour is random (the IPC generator
alternates white and black); both colours are available; tile_<row>-<col> (row >= 1) must be
painted white when row + col is even, black otherwise. A grid shape is drawn uniformly among the
shapes of t. Robots can paint themselves into dead ends; that every initial state is solvable
(paint from the top row down) is not proved here: the plan stage checks each problem. The IPC
2011 problems paint 4 x 3 to 7 x 7 tiles (12 to 49) with 2 or 3 robots (potassco/pddl-instances
ipc-2011/domains/floor-tile-sequential-*/instances, counted from their tile names; PlanGPT:
"LAMA solves only 2 of the 20 FLOORTILE problems"). Canonical form: (r, c) and the set of
robots' (row, column, colour): robots are interchangeable, so problems that differ by their names
count once.
"""

from __future__ import annotations

import random
from math import comb

from genplan.stages.generators import Problem
from genplan.stages.generators._common import typed

DEFAULTS: dict[str, int] = {"robots": 2, "max_side": 8}
MAXIMA: dict[str, int] = {"robots": 10, "max_side": 20}
MAX_SIZE = 400  # tiles to paint, a 20 x 20 grid (IPC 2011: at most 49)
UNIT = "tiles to paint"
COLORS = ("white", "black")


def shapes(t: int, params: dict[str, int]) -> list[tuple[int, int]]:
    """Every (rows, columns) with rows * columns = t, both at most max_side, columns >= robots."""
    side, robots = params["max_side"], params["robots"]
    return [(t // c, c) for c in range(robots, side + 1) if t % c == 0 and t // c <= side]


def count(t: int, params: dict[str, int]) -> int:
    """The distinct problems: per shape, the robots' columns (a set) and each one's row and colour."""
    k = params["robots"]
    return sum(comb(c, k) * (2 * (r + 1)) ** k for r, c in shapes(t, params))


def tile(row: int, col: int) -> str:
    return f"tile_{row}-{col}"


def sample(t: int, rng: random.Random, params: dict[str, int]) -> Problem | None:
    """A random problem with t tiles to paint (None when t has no grid shape)."""
    options = shapes(t, params)
    if not options:
        return None
    rows, cols = rng.choice(options)
    robots = [f"robot{i + 1}" for i in range(params["robots"])]
    columns = rng.sample(range(1, cols + 1), len(robots))
    placed = [(rng.randrange(rows + 1), col, rng.choice(COLORS)) for col in columns]
    cells = [(row, col) for row in range(rows + 1) for col in range(1, cols + 1)]
    occupied = {(row, col) for row, col, _ in placed}
    init = []
    for robot, (row, col, color) in zip(robots, placed):
        init += [("robot-at", robot, tile(row, col)), ("robot-has", robot, color)]
    init += [("available-color", color) for color in COLORS]
    init += [("clear", tile(row, col)) for row, col in cells if (row, col) not in occupied]
    for row, col in cells:
        if row < rows:
            init += [("up", tile(row + 1, col), tile(row, col)), ("down", tile(row, col), tile(row + 1, col))]
        if col < cols:
            init += [("right", tile(row, col + 1), tile(row, col)), ("left", tile(row, col), tile(row, col + 1))]
    goal = [("painted", tile(row, col), COLORS[(row + col) % 2]) for row, col in cells if row >= 1]
    tiles = [tile(row, col) for row, col in cells]
    objects, types = typed([(tiles, "tile"), (robots, "robot"), (list(COLORS), "color")])
    form = (rows, cols, tuple(sorted(placed)))
    return Problem(f"floortile-r{rows}c{cols}", objects, tuple(init), tuple(goal), form, types=types)
