"""Seeded, deterministic problem generators for the four domains.

Every generator module has ``DEFAULTS`` (its parameters, with their default values) and
``sample(size, rng, params) -> Problem | None``: one random problem of that size, drawn with
`rng` only (so a recorded seed reproduces it), or None when the size has no problem at all.
Distinctness is judged by `Problem.canonical`, equal for problems that differ only by renaming
objects or by a symmetry of the domain.
"""

from __future__ import annotations

import random
import re
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Any

from genplan.pddl_io import Atom, Task


@dataclass(frozen=True)
class Problem:
    """A generated problem, before it gets its final name."""

    stem: str  # name without its index, e.g. "blocks-s7"
    objects: tuple[str, ...]
    init: tuple[Atom, ...]  # static and fluent atoms
    goal: tuple[Atom, ...]
    canonical: Hashable  # equal exactly for problems that count as the same
    indexed: bool = True  # False when the stem alone names the problem (one problem per stem)


# The modules import Problem from here, so they are imported once it is defined.
from genplan.stages.generators import blocks, gripper, logistics, visitall  # noqa: E402

GENERATORS = {"blocks": blocks, "gripper": gripper, "logistics": logistics, "visitall": visitall}


def _generator(name: str):
    if name not in GENERATORS:
        raise ValueError(f"Unknown value {name=}. Must be from {list(GENERATORS)}")
    return GENERATORS[name]


def generator_params(domain: str, config: Mapping[str, Any]) -> dict[str, int]:
    """The generator's parameters: its defaults, overridden by the keys of `config` it knows."""
    defaults = _generator(domain).DEFAULTS
    return {key: config.get(key, value) for key, value in defaults.items()}


def generate_size(
    domain: str, size: int, rng: random.Random, params: Mapping[str, int] | None = None
) -> Problem | None:
    """One random problem of `domain` with size parameter `size` (None: no problem of that size).

    `params` may set any of the generator's parameters (positive integers); others are refused.
    """
    module = _generator(domain)
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise ValueError(f"size {size!r} must be a positive integer")
    params = dict(params or {})
    unknown = sorted(set(params) - set(module.DEFAULTS))
    if unknown:
        known = list(module.DEFAULTS)
        raise ValueError(f"unknown {domain} generator parameters {unknown}; known: {known}")
    for key, value in params.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{domain} generator parameter {key}={value!r} must be positive")
    return module.sample(size, rng, {**module.DEFAULTS, **params})


def size_parameter(domain: str, task: Task) -> int:
    """The size parameter of any parsed task of `domain`, generated or imported.

    blocks: number of blocks; gripper: number of balls; logistics: number of goal atoms;
    visitall: number of cells (``place`` atoms).
    """
    _generator(domain)
    atoms = task.statics | task.init
    if domain == "blocks":
        return task.num_objects
    if domain == "gripper":
        return sum(1 for atom in atoms if atom[0] == "ball")
    if domain == "logistics":
        return len(task.goal)
    return sum(1 for atom in atoms if atom[0] == "place")


_RANGE = re.compile(r"^(\d+)-(\d+)(?:/(\d+))?$")


def _parse_one(item: int | str) -> list[int]:
    if isinstance(item, bool) or not isinstance(item, int | str):
        raise ValueError(f"size {item!r} is not an integer or a range string")
    if isinstance(item, int):
        return [item]
    text = item.strip()
    if text.isdigit():
        return [int(text)]
    match = _RANGE.match(text)
    if not match:
        raise ValueError(f"size {item!r} is not an integer, 'a-b' or 'a-b/s'")
    low, high, step = int(match[1]), int(match[2]), int(match[3] or 1)
    if low > high or step < 1:
        raise ValueError(f"size range {item!r} is empty or has a step below 1")
    return list(range(low, high + 1, step))


def parse_sizes(spec: int | str | list) -> list[int]:
    """Sizes from an int, a string ("7", "9-17", "12-42/2": inclusive, step 2) or a list of them.

    Returns the distinct sizes in increasing order; every size must be positive.
    """
    items = spec if isinstance(spec, list | tuple) else [spec]
    sizes = sorted({size for item in items for size in _parse_one(item)})
    if any(size < 1 for size in sizes):
        raise ValueError(f"sizes {spec!r} must be positive")
    return sizes
