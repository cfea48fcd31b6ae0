"""Driverlog (IPC 2002): p packages (the size) delivered by `trucks` trucks that `drivers`
drivers drive on a road map of `locations` locations s0.., drivers walking between them over
path points.

Roads: a random spanning tree of the locations plus `extra_links` more random roads (fewer when
the map is complete), each usable both ways (``link``). Footpaths: one path point p{a}-{b} on
each road of the spanning tree (``path`` both ways between it and each end), so every driver can
walk to every location. Drivers, empty trucks and packages start at random locations. The goal:
each package at a random location other than its start, and each driver and each truck at a
random location (as the IPC 2002 problems, whose goals place drivers and trucks too). Any such
problem is solvable (roads and footpaths connect every location). The IPC 2002 problems range
from 2 drivers, 2 trucks, 2 packages to 8 drivers, 6 trucks, 25 packages
(AI-Planning/pddl-generators driverlog/README.txt); PlanGPT's training set reached 25 packages
("up to 4 packages in DRIVERLOG compared to 25 in our training"). Canonical form: the sorted
initial and goal atoms.
"""

from __future__ import annotations

import random

from genplan.stages.generators import Problem
from genplan.stages.generators._common import at_least, canonical, random_tree, typed

DEFAULTS: dict[str, int] = {"drivers": 2, "trucks": 2, "locations": 4, "extra_links": 1}
MAXIMA: dict[str, int] = {"drivers": 20, "trucks": 20, "locations": 50, "extra_links": 200}
MAX_SIZE = 100  # packages (IPC 2002 and PlanGPT: at most 25)
UNIT = "packages"


def count(p: int, params: dict[str, int]) -> None:
    """Too many distinct problems to exhaust."""
    return None


def sample(p: int, rng: random.Random, params: dict[str, int]) -> Problem:
    """A random problem with p packages."""
    at_least("driverlog", params, "locations", 2, "a package must move")
    n = params["locations"]
    locations = [f"s{i}" for i in range(n)]
    tree = random_tree(n, rng)
    roads = {tuple(sorted(edge)) for edge in tree}
    others = [(a, b) for a in range(n) for b in range(a + 1, n) if (a, b) not in roads]
    roads |= set(rng.sample(others, min(params["extra_links"], len(others))))
    init = [("link", locations[a], locations[b]) for a, b in sorted(roads)]
    init += [("link", locations[b], locations[a]) for a, b in sorted(roads)]
    points = []
    for a, b in sorted(tuple(sorted(edge)) for edge in tree):
        point = f"p{a}-{b}"
        points.append(point)
        for end in (locations[a], locations[b]):
            init += [("path", end, point), ("path", point, end)]
    drivers = [f"driver{i}" for i in range(params["drivers"])]
    trucks = [f"truck{i}" for i in range(params["trucks"])]
    packages = [f"package{i}" for i in range(p)]
    init += [("at", driver, rng.choice(locations)) for driver in drivers]
    init += [("at", truck, rng.choice(locations)) for truck in trucks]
    init += [("empty", truck) for truck in trucks]
    start = {package: rng.choice(locations) for package in packages}
    init += [("at", package, start[package]) for package in packages]
    goal = [("at", package, rng.choice([loc for loc in locations if loc != start[package]])) for package in packages]
    goal += [("at", driver, rng.choice(locations)) for driver in drivers]
    goal += [("at", truck, rng.choice(locations)) for truck in trucks]
    objects, types = typed([(locations + points, "location"), (drivers, "driver"), (trucks, "truck"),
                            (packages, "obj")])
    return Problem(f"driverlog-p{p}", objects, tuple(init), tuple(goal), canonical(init, goal), types=types)
