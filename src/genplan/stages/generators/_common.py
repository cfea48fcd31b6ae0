"""Helpers shared by the typed generators (depots, driverlog, floortile, satellite, zenotravel)."""

from __future__ import annotations

import random

from genplan.pddl_io import Atom
from genplan.stages.generators import GeneratorError


def at_least(domain: str, params: dict[str, int], key: str, minimum: int, why: str) -> None:
    """GeneratorError naming `key` unless params[key] >= minimum."""
    if params[key] < minimum:
        raise GeneratorError(f"{key}: {params[key]} is below {minimum}, the least a {domain} problem needs ({why})")


def typed(groups: list[tuple[list[str], str]]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(objects, types) from (names, type) groups, in order."""
    objects = tuple(name for names, _ in groups for name in names)
    types = tuple(kind for names, kind in groups for _ in names)
    return objects, types


def canonical(init: list[Atom], goal: list[Atom]) -> tuple:
    """The sorted initial and goal atoms (the generators' names are systematic, so they are kept)."""
    return tuple(sorted(init)), tuple(sorted(goal))


def random_tree(nodes: int, rng: random.Random) -> list[tuple[int, int]]:
    """The edges of a random spanning tree of nodes 0..nodes-1 (each node after the first, in a
    random order, joined to a random earlier one)."""
    order = list(range(nodes))
    rng.shuffle(order)
    return [(order[rng.randrange(i)], order[i]) for i in range(1, nodes)]
