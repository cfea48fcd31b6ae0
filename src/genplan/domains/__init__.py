"""The four standard domain files of the papers, shipped with the package, the domains each benchmark
kind provides (`BENCHMARK_DOMAINS`), and the project's key of any PDDL domain (`domain_key`: the
workflow's `domain` wildcard, the name checkpoints carry).

Domain names are open: a configuration names the domains of its benchmarks. `generated` has
generators for the four shipped domains, `paper` the papers' instances of the same four, `ipc2023`
the ten domains of the IPC 2023 learning track (read from a folder the user names)."""

from __future__ import annotations

import functools
from importlib import resources
from pathlib import Path

DOMAINS = ("blocks", "gripper", "logistics", "visitall")
IPC2023_DOMAINS = ("blocksworld", "childsnack", "ferry", "floortile", "miconic", "rovers", "satellite", "sokoban",
                   "spanner", "transport")
BENCHMARK_DOMAINS = {"generated": DOMAINS, "paper": DOMAINS, "ipc2023": IPC2023_DOMAINS}
# the IPC 2023 domains whose PDDL name is not their folder's (the `domain` wildcard)
IPC2023_PDDL_NAMES = {"rover": "rovers"}


def check_domain(name: str) -> str:
    if name not in DOMAINS:
        raise ValueError(f"Unknown value {name=}. Must be from {list(DOMAINS)}")
    return name


def check_benchmark_domain(benchmark: str, name: str) -> str:
    """`name` if the benchmark kind provides that domain; ValueError naming its domains otherwise."""
    if benchmark not in BENCHMARK_DOMAINS:
        raise ValueError(f"Unknown value {benchmark=}. Must be from {list(BENCHMARK_DOMAINS)}")
    if name not in BENCHMARK_DOMAINS[benchmark]:
        raise ValueError(f"benchmark {benchmark!r} has no domain {name!r}; its domains: "
                         f"{list(BENCHMARK_DOMAINS[benchmark])}")
    return name


def domain_file(name: str) -> Path:
    check_domain(name)
    return Path(str(resources.files(__package__) / f"{name}.pddl"))


@functools.cache
def _shipped_domain_names() -> dict[str, str]:
    from genplan.pddl_io import parse_domain  # the PDDL parser: not needed by readers of DOMAINS

    return {parse_domain(domain_file(key)).name: key for key in DOMAINS}


def domain_key(domain: str | Path) -> str:
    """The project's name of a PDDL domain (`blocks`, `gripper`, ...), from the file's domain name;
    an IPC 2023 domain its folder's name (`rover` -> `rovers`); any other domain keeps its PDDL name."""
    from genplan.pddl_io import parse_domain

    name = parse_domain(domain).name
    return _shipped_domain_names().get(name, IPC2023_PDDL_NAMES.get(name, name))
