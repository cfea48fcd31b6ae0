"""Gripper: n balls in room A, the robot in room A with both grippers free; every ball must be
moved to room B. There is exactly one problem per n, so the canonical form is n itself."""

from __future__ import annotations

import random

from genplan.stages.generators import Problem

DEFAULTS: dict[str, int] = {}
MAXIMA: dict[str, int] = {}
MAX_SIZE = 200  # balls (the papers: at most 42)
UNIT = "balls"


def count(n: int, params: dict[str, int]) -> int:
    return 1


def sample(n: int, rng: random.Random, params: dict[str, int]) -> Problem:
    """The gripper problem with n balls (`rng` is unused: there is no choice to make)."""
    balls = [f"ball{i}" for i in range(1, n + 1)]
    init = [
        ("room", "rooma"),
        ("room", "roomb"),
        *(("ball", ball) for ball in balls),
        ("gripper", "left"),
        ("gripper", "right"),
        ("at-robby", "rooma"),
        ("free", "left"),
        ("free", "right"),
        *(("at", ball, "rooma") for ball in balls),
    ]
    goal = tuple(("at", ball, "roomb") for ball in balls)
    objects = ("rooma", "roomb", "left", "right", *balls)
    return Problem(f"gripper-n{n}", objects, tuple(init), goal, n, indexed=False)
