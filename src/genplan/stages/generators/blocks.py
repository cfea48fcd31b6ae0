"""Blocksworld: n blocks b1..bn; the initial state is uniformly random over all states of n
labelled blocks with the hand empty (as Slaney's bwstates); the goal is one tower of all n
blocks in a uniformly random order, stated with ``on`` atoms only (as the SymT instances).

Canonical form (object names ignored): blocks relabelled by their position in the goal tower
(0 = bottom), then the initial towers (bottom to top) as a sorted tuple of tuples.
"""

from __future__ import annotations

import functools
import random
from math import comb, factorial

from genplan.stages.generators import Problem

DEFAULTS: dict[str, int] = {}
MAXIMA: dict[str, int] = {}
MAX_SIZE = 100  # blocks (the papers: at most 17)
UNIT = "blocks"

Towers = list[list[int]]  # towers of block indices, each listed bottom to top


def lah(n: int, k: int) -> int:
    """Unsigned Lah number L(n, k): the number of states of n labelled blocks in k towers."""
    return comb(n - 1, k - 1) * factorial(n) // factorial(k)


@functools.lru_cache(maxsize=64)
def _weights(n: int) -> tuple[int, ...]:
    """L(n, k) for k = 1..n."""
    return tuple(lah(n, k) for k in range(1, n + 1))


def count(n: int, params: dict[str, int]) -> int:
    """The distinct problems of n blocks: every state but the goal tower (goal order relabelled away)."""
    return sum(_weights(n)) - 1 if n >= 2 else 0


def random_towers(n: int, rng: random.Random) -> Towers:
    """A uniformly random blocksworld state of blocks 0..n-1 (n >= 1), hand empty.

    The number of towers k is drawn with probability L(n,k) / sum_j L(n,j), exactly (integer
    arithmetic); then a uniformly random permutation is cut into k non-empty towers at k-1
    distinct gaps drawn uniformly from the n-1 gaps.
    """
    weights = _weights(n)
    r = rng.randrange(sum(weights))
    k = 1
    while r >= weights[k - 1]:
        r -= weights[k - 1]
        k += 1
    order = list(range(n))
    rng.shuffle(order)
    bounds = [0, *sorted(rng.sample(range(1, n), k - 1)), n]
    return [order[a:b] for a, b in zip(bounds, bounds[1:])]


def canonical(towers: Towers, goal: list[int]) -> tuple[tuple[int, ...], ...]:
    """The initial towers relabelled by goal position (goal lists the goal tower bottom to top)."""
    position = {block: i for i, block in enumerate(goal)}
    return tuple(sorted(tuple(position[block] for block in tower) for tower in towers))


def sample(n: int, rng: random.Random, params: dict[str, int]) -> Problem | None:
    """A random problem with n blocks whose initial state is not a goal state (None for n < 2:
    a one-block goal tower has no ``on`` atom)."""
    if n < 2:
        return None
    goal = list(range(n))
    rng.shuffle(goal)
    solved = (tuple(range(n)),)
    while True:
        towers = random_towers(n, rng)
        form = canonical(towers, goal)
        if form != solved:
            break
    name = [f"b{i + 1}" for i in range(n)]
    init: list[tuple[str, ...]] = [("handempty",)]
    for tower in towers:
        init.append(("ontable", name[tower[0]]))
        init.extend(("on", name[upper], name[lower]) for lower, upper in zip(tower, tower[1:]))
        init.append(("clear", name[tower[-1]]))
    goal_atoms = tuple(("on", name[goal[i]], name[goal[i - 1]]) for i in range(n - 1, 0, -1))
    return Problem(f"blocks-s{n}", tuple(name), tuple(init), goal_atoms, form)
