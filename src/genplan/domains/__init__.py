"""The four standard domain files of the papers, shipped with the package, and the project's key of
any PDDL domain (`domain_key`: the workflow's `domain` wildcard, the name checkpoints carry)."""

from __future__ import annotations

import functools
from importlib import resources
from pathlib import Path

DOMAINS = ("blocks", "gripper", "logistics", "visitall")


def check_domain(name: str) -> str:
    if name not in DOMAINS:
        raise ValueError(f"Unknown value {name=}. Must be from {list(DOMAINS)}")
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
    a domain the project does not ship keeps its PDDL name."""
    from genplan.pddl_io import parse_domain

    name = parse_domain(domain).name
    return _shipped_domain_names().get(name, name)
