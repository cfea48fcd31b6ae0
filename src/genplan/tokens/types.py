"""Object types, for renaming objects per type (PlanGPT, Section "Dataset Generation": each object
name is replaced "with a name of an object of the same type of obj randomly taken from the
vocabulary"; Section "Preprocessing and Tokeniser": "substituted with an unused object of the same
type in the vocabulary").

The type of an object is
- in a domain that declares ``(:types ...)``: the object's declared (most specific) type in the
  problem's ``(:objects ...)``; an ``(either ...)`` type gets the lexicographically first of its
  types; an object declared without a type gets ``"object"``;
- in an untyped STRIPS domain, where types are written as unary static predicates such as
  ``(ball ?x)`` or ``(room ?x)``: the unary *static* predicates (no action adds or deletes them)
  that hold of the object in the problem's initial state; an object with several gets the
  lexicographically first (Logistics airports are also locations: ``airport``), an object with
  none gets ``"object"``.

On the shipped domains this gives: Blocks, every block ``object`` (no static predicates);
Gripper ``ball``, ``room``, ``gripper``; Logistics ``package``, ``truck``, ``airplane``, ``city``,
``airport`` (airports) and ``location`` (other locations); VisitAll ``place``.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path

from genplan.errors import GenplanError
from genplan.pddl_io import DomainInfo, Task, parse_domain, read_text

DEFAULT_TYPE = "object"


def _stamp(path: Path) -> tuple[str, float, int]:
    stat = path.stat()
    return str(path.resolve()), stat.st_mtime, stat.st_size


@functools.lru_cache(maxsize=64)
def _declared_types(path: str, mtime: float, size: int) -> dict[str, str]:
    from pddl.parser.domain import DomainParser

    try:
        return dict(DomainParser()(read_text(path, "PDDL domain")).types)
    except GenplanError:
        raise
    except Exception as exc:  # the library raises lark and its own errors
        raise GenplanError(f"malformed PDDL domain: {str(exc).strip().splitlines()[0][:300]}", path) from None


@functools.lru_cache(maxsize=256)
def _problem_types(path: str, mtime: float, size: int) -> dict[str, str]:
    from genplan.pddl_io import problem_parser  # the grammar built once per thread

    try:
        problem = problem_parser()(read_text(path, "PDDL problem"))
    except GenplanError:
        raise
    except Exception as exc:
        raise GenplanError(f"malformed PDDL problem: {str(exc).strip().splitlines()[0][:300]}", path) from None
    return {str(o.name).lower(): min((str(t).lower() for t in o.type_tags), default=DEFAULT_TYPE)
            for o in problem.objects}


def declares_types(domain: DomainInfo | str | Path) -> bool:
    """Whether the domain file has a non-empty ``(:types ...)`` section."""
    path = Path(domain.path if isinstance(domain, DomainInfo) else domain)
    return bool(_declared_types(*_stamp(path)))


def object_types(domain: DomainInfo | str | Path, task: Task) -> dict[str, str]:
    """object -> type for every object of `task` (see the module doc for the rule)."""
    info = domain if isinstance(domain, DomainInfo) else parse_domain(domain)
    if info.path is not None and Path(info.path).is_file() and declares_types(info):
        if task.path is None:
            raise GenplanError(f"domain {info.name!r} declares types: the object types of problem "
                               f"{task.name!r} are read from its PDDL file, and it has none", info.path)
        declared = _problem_types(*_stamp(Path(task.path)))
        return {o: declared.get(o, DEFAULT_TYPE) for o in task.objects}
    unary = {p for p, arity in info.predicates.items() if arity == 1 and p not in info.fluent_predicates}
    found: dict[str, str] = {}
    for atom in task.statics:
        if atom[0] in unary and len(atom) == 2 and (atom[1] not in found or atom[0] < found[atom[1]]):
            found[atom[1]] = atom[0]
    return {o: found.get(o, DEFAULT_TYPE) for o in task.objects}


def type_counts(types: Mapping[str, str]) -> dict[str, int]:
    """type -> number of objects of that type, sorted by type."""
    return dict(sorted(Counter(types.values()).items()))


def pool_sizes(all_types: Iterable[Mapping[str, str]], minimum: int = 0) -> dict[str, int]:
    """type -> the largest number of objects of that type in any one problem (at least `minimum`):
    the smallest per-type pools that fit every problem given (for example the training split)."""
    sizes: dict[str, int] = {}
    for types in all_types:
        for t, n in type_counts(types).items():
            sizes[t] = max(sizes.get(t, minimum), n)
    return dict(sorted(sizes.items()))
