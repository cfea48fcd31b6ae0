"""A plan's steps checked against the task's signature before VAL sees them: each action is one the
domain declares, with as many arguments as it has parameters, each argument an object of the
problem or a constant of the domain, of a type the parameter admits.

VAL cannot be trusted with this: it ignores surplus arguments (a plan whose step names an object
that does not exist was called valid), and it crashes on a step with too few. VAL then judges what
only it can: applicability, step by step, and the goal. PDDL names are case-insensitive: all are
compared in lower case (`genplan.pddl_io.str_to_atom` lowers the plan's).

The problem's objects are read from its ``(:objects ...)`` section only (`problem_objects`), not by
the full parser: cheap enough for a problem of ten thousand objects, checked once per file.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

from genplan.errors import GenplanError
from genplan.pddl_io import Action, DomainInfo, atom_to_str, parse_domain, read_plan_lines, read_text

_OBJECTS = re.compile(r"\(\s*:objects\b", re.IGNORECASE)
_TOKENS = re.compile(r"[()]|[^\s()]+")


@dataclass(frozen=True)
class StepError:
    """The first step that the task's signature refuses."""

    step: int  # 1-based, among the plan's actions
    line: int  # 1-based line of the plan file
    action: Action
    why: str

    @property
    def message(self) -> str:
        return f"step {self.step} (line {self.line}) {_shown(self.action)}: {self.why}"


def _shown(action: Action) -> str:
    text = atom_to_str(action)
    return text if len(text) <= 120 else text[:117] + "..."


def problem_objects(path: str | Path) -> dict[str, str]:
    """The problem's objects and their types (`object` where none is given), from its ``(:objects
    ...)`` section; GenplanError naming the file when the section does not close or holds what a
    typed list cannot."""
    path = Path(path)
    stat = path.stat()
    return _problem_objects(str(path.resolve()), stat.st_mtime, stat.st_size)


@functools.lru_cache(maxsize=64)
def _problem_objects(path: str, mtime: float, size: int) -> dict[str, str]:
    text = "\n".join(line.split(";", 1)[0] for line in read_text(path, "PDDL problem").splitlines())
    match = _OBJECTS.search(text)
    if match is None:
        return {}
    names: list[str] = []
    out: dict[str, str] = {}
    tokens = _TOKENS.finditer(text, match.end())
    for tok in tokens:
        word = tok.group(0).lower()
        if word == ")":
            for name in names:
                out[name] = "object"
            return out
        if word == "(":
            raise GenplanError("malformed PDDL problem: '(' inside (:objects ...)", path)
        if word == "-":
            kind = next(tokens, None)
            if kind is None or kind.group(0) in "()":
                raise GenplanError("malformed PDDL problem: '-' without a type in (:objects ...)", path)
            for name in names:
                out[name] = kind.group(0).lower()
            names = []
        else:
            names.append(word)
    raise GenplanError("malformed PDDL problem: (:objects ... never closes", path)


def first_bad_step(domain: DomainInfo, objects: dict[str, str], steps: list[tuple[int, Action]]) -> StepError | None:
    """The first of `steps` ((line, action) as `read_plan_lines` gives them) that the domain's
    actions and the task's objects (`objects` with the domain's constants) refuse, else None."""
    known = {**domain.constant_types, **objects}
    arity = {name.lower(): n for name, n in domain.actions.items()}
    for step, (line, action) in enumerate(steps, 1):
        name, args = action[0], action[1:]
        if name not in arity:
            return StepError(step, line, action, f"the domain has no action {name!r}")
        if len(args) != arity[name]:
            return StepError(step, line, action, f"{name} takes {arity[name]} argument(s), the step gives {len(args)}")
        for i, (arg, admits) in enumerate(zip(args, domain.parameter_types.get(name, ())), 1):
            if arg not in known:
                return StepError(step, line, action, f"argument {i} {arg!r} is no object of the problem "
                                 "nor constant of the domain")
            kind = known[arg]
            if admits and not admits & domain.supertypes.get(kind, frozenset((kind, "object"))):
                return StepError(step, line, action, f"argument {i} {arg!r} is of type {kind}, parameter {i} "
                                 f"of {name} takes {' or '.join(sorted(admits))}")
    return None


def check_plan(domain: str | Path, problem: str | Path, plan: str | Path) -> StepError | None:
    """`first_bad_step` of the plan file against the domain and problem files."""
    return first_bad_step(parse_domain(domain), problem_objects(problem), read_plan_lines(plan))
