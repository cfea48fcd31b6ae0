"""Satellite (IPC 2002): o observations (the size; goal ``have_image`` atoms, distinct pairs of a
target and a mode) to be taken by `satellites` satellites, each carrying 1 to `instruments`
instruments (uniformly), among `modes` modes, `targets` target directions and `stars`
calibration stars.

Each instrument supports a random non-empty set of modes (then every mode no instrument supports
is given to a random instrument, as the generator's 2021 fix: every mode can be imaged) and is
calibrated on a random star. Each satellite points at a random direction and has power. The goal:
o distinct random (target, mode) images, and each satellite, with probability 1/2, pointing at a
random direction (as the IPC 2002 problems). Every problem is solvable. A size above targets x
modes has no problem. The IPC 2002 problems range from 1 satellite, 3 modes, 7 targets, 3
observations to 10 satellites, 5 modes, 205 targets, 178 observations, at most 3 instruments a
satellite (AI-Planning/pddl-generators satellite/README). Canonical form: the sorted initial and
goal atoms.
"""

from __future__ import annotations

import random

from genplan.stages.generators import Problem
from genplan.stages.generators._common import canonical, typed

DEFAULTS: dict[str, int] = {"satellites": 2, "instruments": 2, "modes": 3, "targets": 5, "stars": 2}
MAXIMA: dict[str, int] = {"satellites": 20, "instruments": 10, "modes": 20, "targets": 300, "stars": 50}
MAX_SIZE = 400  # observations (IPC 2002: at most 178)
UNIT = "observations"


def count(o: int, params: dict[str, int]) -> int | None:
    """None (too many to exhaust) when o images can be asked for; 0 when o > targets x modes."""
    return 0 if o > params["targets"] * params["modes"] else None


def sample(o: int, rng: random.Random, params: dict[str, int]) -> Problem | None:
    """A random problem with o observations (None when o > targets x modes)."""
    if count(o, params) == 0:
        return None
    satellites = [f"satellite{i}" for i in range(params["satellites"])]
    modes = [f"mode{i}" for i in range(params["modes"])]
    stars = [f"star{i}" for i in range(params["stars"])]
    targets = [f"target{i}" for i in range(params["targets"])]
    directions = stars + targets
    board = [(sat, j) for sat in satellites for j in range(rng.randint(1, params["instruments"]))]
    instruments = [f"instrument{i}" for i in range(len(board))]
    supports = [{m for m in modes if rng.random() < 0.5} or {rng.choice(modes)} for _ in instruments]
    for mode in modes:
        if not any(mode in s for s in supports):
            supports[rng.randrange(len(supports))].add(mode)
    init = []
    for instrument, (sat, _), modes_of in zip(instruments, board, supports):
        init.append(("on_board", instrument, sat))
        init += [("supports", instrument, mode) for mode in sorted(modes_of)]
        init.append(("calibration_target", instrument, rng.choice(stars)))
    for sat in satellites:
        init += [("pointing", sat, rng.choice(directions)), ("power_avail", sat)]
    images = rng.sample([(t, m) for t in targets for m in modes], o)
    goal = [("have_image", t, m) for t, m in images]
    goal += [("pointing", sat, rng.choice(directions)) for sat in satellites if rng.random() < 0.5]
    objects, types = typed([(satellites, "satellite"), (instruments, "instrument"), (modes, "mode"),
                            (directions, "direction")])
    return Problem(f"satellite-o{o}", objects, tuple(init), tuple(goal), canonical(init, goal), types=types)
