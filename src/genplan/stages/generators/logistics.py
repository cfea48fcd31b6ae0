"""Logistics: g goal packages among max(g, min_packages) packages, in `cities` cities of
`locations_per_city` locations each (location l{c}-0 is the airport of city c), one truck per
city and `airplanes` airplanes.

Trucks start at a random location of their city, airplanes at a random airport, packages at a
random location of any city; each of g distinct random packages must go to a random location
other than its initial one. Canonical form: the sorted initial and goal atoms (the names are
systematic, so they are kept).
"""

from __future__ import annotations

import random

from genplan.stages.generators import GeneratorError, Problem

DEFAULTS: dict[str, int] = {"cities": 2, "locations_per_city": 2, "airplanes": 1, "min_packages": 4}
MAXIMA: dict[str, int] = {"cities": 20, "locations_per_city": 20, "airplanes": 20, "min_packages": 200}
MAX_SIZE = 200  # goal atoms (the papers: at most 15)
UNIT = "goal atoms"


def count(g: int, params: dict[str, int]) -> None:
    """Too many distinct problems to exhaust (random positions of every truck, airplane, package)."""
    return None


def sample(g: int, rng: random.Random, params: dict[str, int]) -> Problem:
    """A random problem with g goal atoms."""
    cities, per_city = params["cities"], params["locations_per_city"]
    if cities * per_city < 2:
        raise GeneratorError("logistics needs at least two locations (cities * locations_per_city)")
    airplanes = [f"a{i}" for i in range(params["airplanes"])]
    city_names = [f"c{c}" for c in range(cities)]
    trucks = [f"t{c}" for c in range(cities)]
    locations = [[f"l{c}-{i}" for i in range(per_city)] for c in range(cities)]
    airports = [city_locations[0] for city_locations in locations]
    everywhere = [loc for city_locations in locations for loc in city_locations]
    packages = [f"p{i}" for i in range(max(g, params["min_packages"]))]

    init = [("airplane", a) for a in airplanes]
    init += [("city", c) for c in city_names]
    init += [("truck", t) for t in trucks]
    for city, city_locations in zip(city_names, locations):
        for loc in city_locations:
            init += [("location", loc), ("in-city", loc, city)]
    init += [("airport", loc) for loc in airports]
    init += [("package", p) for p in packages]
    init += [("at", truck, rng.choice(locs)) for truck, locs in zip(trucks, locations)]
    init += [("at", a, rng.choice(airports)) for a in airplanes]
    start = {p: rng.choice(everywhere) for p in packages}
    init += [("at", p, start[p]) for p in packages]

    chosen = sorted(rng.sample(range(len(packages)), g))
    goal = []
    for i in chosen:
        package = packages[i]
        targets = [loc for loc in everywhere if loc != start[package]]
        goal.append(("at", package, rng.choice(targets)))
    objects = (*airplanes, *city_names, *trucks, *everywhere, *packages)
    form = (tuple(sorted(init)), tuple(sorted(goal)))
    return Problem(f"logistics-g{g}", objects, tuple(init), tuple(goal), form)
