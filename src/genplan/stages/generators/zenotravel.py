"""Zenotravel (IPC 2002): n people (the size) flown between `cities` cities by `planes` aircraft
whose fuel has `fuel_levels` levels fl0 (empty) .. fl{fuel_levels-1} (``next`` links each level
to the one above).

Aircraft start at random cities with a uniformly random fuel level: PlanGPT's change to the
generator ("we extended the ZENOTRAVEL generator to randomise the initial fuel level of each
aircraft"; the original starts every aircraft empty). People start at random cities. The goal:
each person at a random city other than their start, and each aircraft, with probability 1/2, at
a random city (the IPC 2002 problems place some aircraft too). Refuelling is possible anywhere,
so every problem is solvable. The IPC 2002 problems range from 1 plane, 2 people, 3 cities to 5
planes, 25 people, 22 cities (AI-Planning/pddl-generators zenotravel/README), with 7 fuel levels
fl0..fl6 and aircraft that already start at random levels (potassco/pddl-instances
ipc-2002/domains/zenotravel-strips-automatic/instances).
Canonical form: the sorted initial and goal atoms.
"""

from __future__ import annotations

import random

from genplan.stages.generators import Problem
from genplan.stages.generators._common import at_least, canonical, typed

DEFAULTS: dict[str, int] = {"cities": 3, "planes": 1, "fuel_levels": 7}
MAXIMA: dict[str, int] = {"cities": 50, "planes": 20, "fuel_levels": 20}
MAX_SIZE = 100  # people (IPC 2002: at most 25)
UNIT = "people"


def count(n: int, params: dict[str, int]) -> None:
    """Too many distinct problems to exhaust."""
    return None


def sample(n: int, rng: random.Random, params: dict[str, int]) -> Problem:
    """A random problem with n people."""
    at_least("zenotravel", params, "cities", 2, "a person must move")
    at_least("zenotravel", params, "fuel_levels", 2, "an aircraft needs fuel to fly")
    cities = [f"city{i}" for i in range(params["cities"])]
    planes = [f"plane{i}" for i in range(params["planes"])]
    people = [f"person{i}" for i in range(n)]
    levels = [f"fl{i}" for i in range(params["fuel_levels"])]
    init = [("next", low, high) for low, high in zip(levels, levels[1:])]
    for plane in planes:
        init += [("at", plane, rng.choice(cities)), ("fuel-level", plane, rng.choice(levels))]
    start = {person: rng.choice(cities) for person in people}
    init += [("at", person, start[person]) for person in people]
    goal = [("at", person, rng.choice([c for c in cities if c != start[person]])) for person in people]
    goal += [("at", plane, rng.choice(cities)) for plane in planes if rng.random() < 0.5]
    objects, types = typed([(planes, "aircraft"), (people, "person"), (cities, "city"), (levels, "flevel")])
    return Problem(f"zenotravel-n{n}", objects, tuple(init), tuple(goal), canonical(init, goal), types=types)
