"""Depots (IPC 2002): c crates (the size) stacked on pallets at `depots` depots and `distributors`
distributors, moved by `trucks` trucks and by hoists.

Every place has at least one pallet and one hoist (pallet i and hoist i stand at place i; the
rest of the `pallets` and `hoists` at random places), trucks start at random places, every hoist
is available. Initially each crate, in a random order, goes on top of a random pallet's stack;
the goal is another such random stacking of every crate, stated with ``on`` atoms (one per crate,
so the size is also the number of goal atoms); a goal already true initially is drawn again. Any
such goal is reachable (every place has a hoist, trucks reach every place). The IPC 2002 problems
range over 1-6 depots, 2-6 distributors, 2-6 trucks, 3-20 pallets, 3-15 hoists and 2-20 crates
(AI-Planning/pddl-generators depots/README.txt); PlanGPT chose "the number of objects following
the setups of the IPC". Canonical form: the sorted initial and goal atoms.
"""

from __future__ import annotations

import random

from genplan.stages.generators import Problem
from genplan.stages.generators._common import at_least, canonical, typed

DEFAULTS: dict[str, int] = {"depots": 1, "distributors": 2, "trucks": 2, "pallets": 3, "hoists": 3}
MAXIMA: dict[str, int] = {"depots": 20, "distributors": 20, "trucks": 20, "pallets": 60, "hoists": 60}
MAX_SIZE = 100  # crates (IPC 2002: at most 20)
UNIT = "crates"


def count(c: int, params: dict[str, int]) -> None:
    """Too many distinct problems to exhaust."""
    return None


def _stack(crates: list[int], pallets: int, rng: random.Random) -> dict[int, int]:
    """crate -> what it stands on (pallet p as -1 - p, crate as its index), crates taken in a
    random order, each onto the top of a random pallet's stack."""
    order = list(crates)
    rng.shuffle(order)
    top = [-1 - p for p in range(pallets)]
    below = {}
    for crate in order:
        p = rng.randrange(pallets)
        below[crate] = top[p]
        top[p] = crate
    return below


def sample(c: int, rng: random.Random, params: dict[str, int]) -> Problem:
    """A random problem with c crates."""
    places = params["depots"] + params["distributors"]
    at_least("depots", params, "pallets", places, "one pallet at each depot and distributor")
    at_least("depots", params, "hoists", places, "one hoist at each depot and distributor")
    depot_names = [f"depot{i}" for i in range(params["depots"])]
    distributor_names = [f"distributor{i}" for i in range(params["distributors"])]
    place_names = depot_names + distributor_names
    trucks = [f"truck{i}" for i in range(params["trucks"])]
    pallets = [f"pallet{i}" for i in range(params["pallets"])]
    hoists = [f"hoist{i}" for i in range(params["hoists"])]
    crates = [f"crate{i}" for i in range(c)]
    pallet_place = [i if i < places else rng.randrange(places) for i in range(len(pallets))]
    hoist_place = [i if i < places else rng.randrange(places) for i in range(len(hoists))]

    def surface(index: int) -> str:
        return pallets[-1 - index] if index < 0 else crates[index]

    def place_of(below: dict[int, int], crate: int) -> int:
        while crate >= 0:
            crate = below[crate]
        return pallet_place[-1 - crate]

    start = _stack(list(range(c)), len(pallets), rng)
    while True:
        goal_stack = _stack(list(range(c)), len(pallets), rng)
        if goal_stack != start:
            break
    init = [("at", pallets[i], place_names[pallet_place[i]]) for i in range(len(pallets))]
    init += [("at", truck, rng.choice(place_names)) for truck in trucks]
    init += [("at", hoists[i], place_names[hoist_place[i]]) for i in range(len(hoists))]
    init += [("available", hoist) for hoist in hoists]
    init += [("at", crates[i], place_names[place_of(start, i)]) for i in range(c)]
    init += [("on", crates[i], surface(start[i])) for i in range(c)]
    covered = set(start.values())
    init += [("clear", surface(s)) for s in [-1 - p for p in range(len(pallets))] + list(range(c)) if s not in covered]
    goal = [("on", crates[i], surface(goal_stack[i])) for i in range(c)]
    objects, types = typed([(depot_names, "depot"), (distributor_names, "distributor"), (trucks, "truck"),
                            (pallets, "pallet"), (crates, "crate"), (hoists, "hoist")])
    return Problem(f"depots-c{c}", objects, tuple(init), tuple(goal), canonical(init, goal), types=types)
