"""The standard domain files shipped with the package: the papers' four (`DOMAINS`) and the five
more of PlanGPT's benchmark (`PLANGPT_DOMAINS`), the ten of the IPC 2023 learning track
(`IPC2023_DOMAINS`), and the project's key of any PDDL domain (`domain_key`: the workflow's `domain`
wildcard, the name checkpoints carry). Which benchmark provides which domains: genplan.benchmarks.

Domain names are open: a configuration names the domains of its benchmarks. `generated` has
generators for the nine shipped domains (`GENERATED_DOMAINS`), `paper` the papers' instances of
the four, `ipc2023` the ten domains of the IPC 2023 learning track (read from a folder the user
names), a folder benchmark the subfolders of its folder.

Where the five PlanGPT domain files come from (each file's header says it in full):
- depots, driverlog, satellite, zenotravel: the STRIPS (typed) domains of IPC 2002 (Long and Fox,
  JAIR 20, 2003), written here from that published definition: the copies found
  (potassco/pddl-instances ipc-2002/domains/<d>-strips-automatic/domain.pddl at commit
  cf19edf7c53d1540ddbb396c642595e0926ee552; AI-Planning/pddl-generators <d>/domain.pddl at commit
  a0de95f1ddd67a1c5ba67d3a5107f855722f09b0, the generators PlanGPT used) carry no licence, so
  nothing was copied from them; each schema was checked against them.
- floortile: the IPC 2011 domain by Tomas de la Rosa, copied from AI-Planning/pddl-generators
  floortile/domain.pddl (same commit) under its MIT licence (reproduced in the file), action costs
  removed as in the IPC 2023 learning track.
"""

from __future__ import annotations

import functools
from importlib import resources
from pathlib import Path

DOMAINS = ("blocks", "gripper", "logistics", "visitall")  # the papers' four
PLANGPT_DOMAINS = ("depots", "driverlog", "floortile", "satellite", "zenotravel")  # the rest of PlanGPT's eight
GENERATED_DOMAINS = DOMAINS + PLANGPT_DOMAINS  # every shipped domain file, each with a generator
IPC2023_DOMAINS = ("blocksworld", "childsnack", "ferry", "floortile", "miconic", "rovers", "satellite", "sokoban",
                   "spanner", "transport")
# the IPC 2023 domains whose PDDL name is not their folder's (the `domain` wildcard)
IPC2023_PDDL_NAMES = {"rover": "rovers"}


def check_domain(name: str) -> str:
    if name not in DOMAINS:
        raise ValueError(f"Unknown value {name=}. Must be from {list(DOMAINS)}")
    return name


def domain_file(name: str) -> Path:
    """The shipped domain file of `name` (one of GENERATED_DOMAINS)."""
    if name not in GENERATED_DOMAINS:
        raise ValueError(f"Unknown value {name=}. Must be from {list(GENERATED_DOMAINS)}")
    return Path(str(resources.files(__package__) / f"{name}.pddl"))


@functools.cache
def _shipped_domain_names() -> dict[str, str]:
    from genplan.pddl_io import parse_domain  # the PDDL parser: not needed by readers of DOMAINS

    return {parse_domain(domain_file(key)).name: key for key in GENERATED_DOMAINS}


def domain_key(domain: str | Path) -> str:
    """The project's name of a PDDL domain (`blocks`, `gripper`, ...), from the file's domain name;
    an IPC 2023 domain its folder's name (`rover` -> `rovers`); any other domain keeps its PDDL name."""
    from genplan.pddl_io import parse_domain

    name = parse_domain(domain).name
    return _shipped_domain_names().get(name, IPC2023_PDDL_NAMES.get(name, name))
