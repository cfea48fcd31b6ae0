"""Seeded, deterministic problem generators: the papers' four domains (blocks, gripper, logistics,
visitall) and the five more of PlanGPT's benchmark (depots, driverlog, floortile, satellite,
zenotravel; typed domains: their problems carry each object's type).

Every generator module has ``DEFAULTS`` (its parameters, with their default values),
``MAXIMA`` (the largest value of each parameter), ``MAX_SIZE`` and ``UNIT`` (the largest size
parameter and what it counts), ``sample(size, rng, params) -> Problem | None``: one random problem
of that size, drawn with `rng` only (so a recorded seed reproduces it), or None when the size has
no problem at all, and ``count(size, params) -> int | None``: how many distinct problems of that
size exist (None: too many to matter). Distinctness is judged by `Problem.canonical`, equal for
problems that differ only by renaming objects or by a symmetry of the domain.

The bounds keep a mistyped configuration from exhausting memory or running for days; they are far
above the papers' sizes (state-centric Table 5: at most 17 blocks, 42 balls, 15 goals, 121 cells)
and are checked before any problem is drawn.
"""

from __future__ import annotations

import random
import re
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Any

from genplan.errors import GenplanError
from genplan.pddl_io import Atom, Task

MAX_PROBLEMS_PER_SPLIT = 100_000  # sizes x per_size of one split (PlanGPT: 70,000 training problems per domain)
BENCHMARK_KEYS = ("sizes", "per_size")  # the keys of a domain's generate section besides its parameters


class GeneratorError(GenplanError, ValueError):
    """A bad generator parameter: one message naming it (exit 1 on the command line); a ValueError
    for callers that check values."""


@dataclass(frozen=True)
class Problem:
    """A generated problem, before it gets its final name."""

    stem: str  # name without its index, e.g. "blocks-s7"
    objects: tuple[str, ...]
    init: tuple[Atom, ...]  # static and fluent atoms
    goal: tuple[Atom, ...]
    canonical: Hashable  # equal exactly for problems that count as the same
    indexed: bool = True  # False when the stem alone names the problem (one problem per stem)
    types: tuple[str, ...] = ()  # each object's type, in the order of `objects`; () for untyped domains


# The modules import Problem from here, so they are imported once it is defined.
from genplan.stages.generators import (  # noqa: E402  # noqa: E402
    blocks,
    depots,
    driverlog,
    floortile,
    gripper,
    logistics,
    satellite,
    visitall,
    zenotravel,
)

GENERATORS = {"blocks": blocks, "gripper": gripper, "logistics": logistics, "visitall": visitall,
              "depots": depots, "driverlog": driverlog, "floortile": floortile, "satellite": satellite,
              "zenotravel": zenotravel}


def _generator(name: str):
    if name not in GENERATORS:
        raise ValueError(f"Unknown value {name=}. Must be from {list(GENERATORS)}")
    return GENERATORS[name]


def generator_params(domain: str, config: Mapping[str, Any]) -> dict[str, int]:
    """The generator's parameters: its defaults, overridden by the keys of `config` (a domain's
    generate section); a key that is neither a parameter nor sizes/per_size is refused."""
    module = _generator(domain)
    unknown = sorted(set(config) - set(BENCHMARK_KEYS) - set(module.DEFAULTS))
    if unknown:
        known = [*BENCHMARK_KEYS, *module.DEFAULTS]
        raise GeneratorError(f"unknown {domain} generate parameter(s) {unknown}; known: {known}")
    params = {key: config.get(key, value) for key, value in module.DEFAULTS.items()}
    check_params(domain, params)
    return params


def check_params(domain: str, params: Mapping[str, Any]) -> None:
    """GeneratorError unless every key is a parameter of the generator and its value an integer
    between 1 and the parameter's maximum."""
    module = _generator(domain)
    unknown = sorted(set(params) - set(module.DEFAULTS))
    if unknown:
        raise GeneratorError(f"unknown {domain} generator parameters {unknown}; known: {list(module.DEFAULTS)}")
    for key, value in params.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise GeneratorError(f"{key}: {value!r} is not a positive integer ({domain} generator parameter)")
        if value > module.MAXIMA[key]:
            raise GeneratorError(f"{key}: {value} is greater than the maximum of {module.MAXIMA[key]} "
                                 f"({domain} generator parameter)")


def max_size(domain: str) -> tuple[int, str]:
    """The largest size parameter of `domain` and what it counts."""
    return _generator(domain).MAX_SIZE, _generator(domain).UNIT


def count(domain: str, size: int, params: Mapping[str, int]) -> int | None:
    """How many distinct problems of `size` exist (None: more than anyone draws)."""
    return _generator(domain).count(size, {**_generator(domain).DEFAULTS, **params})


def generate_size(
    domain: str, size: int, rng: random.Random, params: Mapping[str, int] | None = None
) -> Problem | None:
    """One random problem of `domain` with size parameter `size` (None: no problem of that size).

    `params` may set any of the generator's parameters (positive integers up to their maxima);
    others are refused.
    """
    module = _generator(domain)
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise GeneratorError(f"size {size!r} must be a positive integer")
    if size > module.MAX_SIZE:
        raise GeneratorError(f"size {size} is greater than the largest {domain} size, {module.MAX_SIZE} {module.UNIT}")
    params = dict(params or {})
    check_params(domain, params)
    return module.sample(size, rng, {**module.DEFAULTS, **params})


def size_parameter(domain: str, task: Task) -> int:
    """The size parameter of any parsed task of `domain`, generated or imported.

    blocks: number of blocks; gripper: number of balls; logistics: number of goal atoms;
    visitall: number of cells (``place`` atoms); depots: goal ``on`` atoms (crates placed);
    floortile: goal ``painted`` atoms; satellite: goal ``have_image`` atoms; zenotravel: people
    (located objects without a fuel level). Driverlog's packages cannot be told from its drivers
    without the problem's types: ValueError.
    """
    _generator(domain)
    atoms = task.statics | task.init
    goal_count = {"depots": "on", "floortile": "painted", "satellite": "have_image"}
    if domain in goal_count:
        return sum(1 for atom in task.goal if atom[0] == goal_count[domain])
    if domain == "zenotravel":
        fuelled = {atom[1] for atom in atoms if atom[0] == "fuel-level"}
        return len({atom[1] for atom in atoms if atom[0] in ("at", "in")} - fuelled)
    if domain == "driverlog":
        raise ValueError("driverlog's size (packages) needs the problem's object types; the generator records it")
    if domain == "blocks":
        return task.num_objects
    if domain == "gripper":
        return sum(1 for atom in atoms if atom[0] == "ball")
    if domain == "logistics":
        return len(task.goal)
    return sum(1 for atom in atoms if atom[0] == "place")


_SIZES = re.compile(r"^([0-9]{1,40})(?:-([0-9]{1,40})(?:/([0-9]{1,40}))?)?$")  # int() refuses thousands of digits


def _parse_one(item: int | str, maximum: int | None, unit: str) -> list[int]:
    if isinstance(item, bool) or not isinstance(item, int | str):
        raise GeneratorError(f"size {item!r} is not an integer or a range string")
    match = None if isinstance(item, int) else _SIZES.match(item.strip())
    if isinstance(item, str) and not match:
        raise GeneratorError(f"size {item!r} is not an integer, 'a-b' or 'a-b/s'")
    low = item if isinstance(item, int) else int(match[1])
    high = low if match is None or match[2] is None else int(match[2])
    if maximum is not None and max(low, high) > maximum:
        raise GeneratorError(f"size {item!r} is greater than the largest size, {maximum} {unit}".rstrip())
    if match is None or match[2] is None:
        return [low]
    step = int(match[3] or 1)
    if low > high or step < 1:
        raise GeneratorError(f"size range {item!r} is empty or has a step below 1")
    return list(range(low, high + 1, step))


def parse_sizes(spec: int | str | list, maximum: int | None = None, unit: str = "") -> list[int]:
    """Sizes from an int, a string ("7", "9-17", "12-42/2": inclusive, step 2) or a list of them.

    Returns the distinct sizes in increasing order; every size must be positive (and at most
    `maximum`, checked before a range is expanded).
    """
    items = spec if isinstance(spec, list | tuple) else [spec]
    sizes = sorted({size for item in items for size in _parse_one(item, maximum, unit)})
    if any(size < 1 for size in sizes):
        raise GeneratorError(f"sizes {spec!r} must be positive")
    return sizes
