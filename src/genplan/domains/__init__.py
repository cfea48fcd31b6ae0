"""The four standard domain files of the papers, shipped with the package."""

from __future__ import annotations

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
