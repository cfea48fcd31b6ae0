"""Visitall: a w x h grid of c = w*h cells (w, h <= max_side), the robot at a start cell that is
already visited; every cell must be visited. Cells are named loc-x{i}-y{j} (0 <= i < w,
0 <= j < h) and connected to their 4-neighbours in both directions.

The candidates are every (w, h, start). Canonical form: the minimum of ((w, h), start) over the
eight symmetries of the grid (flips of either axis and transposition, which maps a w x h grid
to an h x w one), so isomorphic problems count once. A problem is drawn by picking a distinct
problem uniformly, then one of its symmetric variants uniformly.
"""

from __future__ import annotations

import functools
import random

from genplan.stages.generators import Problem

DEFAULTS: dict[str, int] = {"max_side": 11}
MAXIMA: dict[str, int] = {"max_side": 30}
MAX_SIZE = 900  # cells, a 30 x 30 grid (the papers: at most 121)
UNIT = "cells"

Candidate = tuple[int, int, int, int]  # w, h, start x, start y


def shapes(c: int, max_side: int) -> list[tuple[int, int]]:
    """Every grid (w, h) with w * h = c and both sides at most max_side."""
    return [(w, c // w) for w in range(1, max_side + 1) if c % w == 0 and c // w <= max_side]


def variants(candidate: Candidate) -> set[Candidate]:
    """The images of a candidate under the eight symmetries of its grid."""
    w, h, x, y = candidate
    out = set()
    for fx in (x, w - 1 - x):
        for fy in (y, h - 1 - y):
            out.add((w, h, fx, fy))
            out.add((h, w, fy, fx))
    return out


@functools.lru_cache(maxsize=8)  # sizes are drawn in order; large grids make large entries
def distinct_problems(c: int, max_side: int) -> tuple[tuple[Candidate, ...], ...]:
    """The distinct problems with c cells, each as its sorted variants (the first is canonical)."""
    candidates = {(w, h, x, y) for w, h in shapes(c, max_side) for x in range(w) for y in range(h)}
    return tuple(sorted({tuple(sorted(variants(cand))) for cand in candidates}))


def count(c: int, params: dict[str, int]) -> int:
    return len(distinct_problems(c, params["max_side"]))


def cell(x: int, y: int) -> str:
    return f"loc-x{x}-y{y}"


def build(candidate: Candidate) -> Problem:
    """The problem of a candidate (w, h, start x, start y)."""
    w, h, x0, y0 = candidate
    cells = [(x, y) for x in range(w) for y in range(h)]
    init = [("place", cell(x, y)) for x, y in cells]
    for x, y in cells:
        for nx, ny in ((x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)):
            if 0 <= nx < w and 0 <= ny < h:
                init.append(("connected", cell(x, y), cell(nx, ny)))
    init += [("at-robot", cell(x0, y0)), ("visited", cell(x0, y0))]
    goal = tuple(("visited", cell(x, y)) for x, y in cells)
    objects = tuple(cell(x, y) for x, y in cells)
    return Problem(f"visitall-w{w}h{h}", objects, tuple(init), goal, min(variants(candidate)))


def sample(c: int, rng: random.Random, params: dict[str, int]) -> Problem | None:
    """A random problem with c cells (None when c has no grid within max_side)."""
    problems = distinct_problems(c, params["max_side"])
    if not problems:
        return None
    return build(rng.choice(rng.choice(problems)))
