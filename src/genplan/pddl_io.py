"""PDDL text at the edge: parse domains and problems (with the `pddl` library) into the package's
one representation, and write generated problems.

Representation (DESIGN.md conventions):
- an atom is a tuple of strings, ``("on", "a", "b")``;
- a state is a frozenset of *fluent* atoms;
- static atoms (of predicates that no action changes) are kept apart, once per problem;
- a ground action is a tuple of strings, ``("stack", "a", "b")``;
- a task's objects are the problem's objects and the domain's constants; types are checked by the
  tools that read the files (Fast Downward, VAL, pymimir), not kept.

Supported PDDL (`SUPPORTED_REQUIREMENTS`): STRIPS with typing, constants, negative preconditions and
equality. Anything else (conditional or universal effects, derived predicates, numeric fluents,
action costs, ...) is refused by name when the domain is parsed, before any tool reads it.
"""

from __future__ import annotations

import functools
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path

from pddl.core import Domain as _PDomain
from pddl.core import Problem as _PProblem
from pddl.formatter import problem_to_string
from pddl.logic import Constant, Predicate
from pddl.logic.base import And, Not
from pddl.parser.domain import DomainParser
from pddl.parser.problem import ProblemParser

from genplan.errors import GenplanError

Atom = tuple[str, ...]
State = frozenset  # frozenset[Atom] of fluent atoms
Action = tuple[str, ...]


@dataclass(frozen=True)
class DomainInfo:
    name: str
    path: Path
    predicates: dict[str, int]  # name -> arity
    fluent_predicates: frozenset[str]  # predicates some action adds or deletes
    actions: dict[str, int]  # name -> number of parameters
    constants: tuple[str, ...] = ()  # the domain's (:constants ...), objects of every problem
    # what a plan's steps are checked against (genplan.plan_check): per action the types each
    # parameter admits (empty: any object), per constant its type, per type itself and its ancestors
    parameter_types: dict[str, tuple[frozenset[str], ...]] = field(default_factory=dict)
    constant_types: dict[str, str] = field(default_factory=dict)
    supertypes: dict[str, frozenset[str]] = field(default_factory=dict)


@dataclass(frozen=True)
class Task:
    """A problem in the package's representation."""

    name: str
    domain_name: str
    path: Path | None
    objects: tuple[str, ...]
    init: State  # fluent atoms only
    statics: frozenset  # static atoms
    goal: frozenset  # positive goal atoms

    @property
    def num_objects(self) -> int:
        return len(self.objects)


def atom_to_str(atom: Atom) -> str:
    return "(" + " ".join(atom) + ")"


def str_to_atom(text: str) -> Atom:
    text = text.strip()
    if not (text.startswith("(") and text.endswith(")")):
        raise ValueError(f"not an atom: {text!r}")
    parts = tuple(text[1:-1].lower().split())
    if not parts:
        raise ValueError(f"empty atom: {text!r}")
    return parts


SUPPORTED_REQUIREMENTS = (":strips", ":typing", ":negative-preconditions", ":equality")
_EFFECT_KINDS = {"When": "conditional effect", "Forall": "universal (forall) effect",
                 "OneOf": "non-deterministic effect"}


def _effect_atoms(effect, path=None, action: str = "?") -> list[Predicate]:
    if effect is None:
        return []
    if isinstance(effect, Predicate):
        return [effect]
    if isinstance(effect, Not):
        return _effect_atoms(effect.argument, path, action)
    if isinstance(effect, And):
        out = []
        for op in effect.operands:
            out.extend(_effect_atoms(op, path, action))
        return out
    kind = _EFFECT_KINDS.get(type(effect).__name__, "effect")
    raise GenplanError(f"unsupported {kind} in action {action!r}: {effect}; only STRIPS effects are supported", path)


def _check_supported(dom: _PDomain, path) -> None:
    """Refuse, by name, what the pipeline's stages cannot all handle."""
    unsupported = sorted(str(r) for r in dom.requirements if str(r) not in SUPPORTED_REQUIREMENTS)
    if unsupported:
        raise GenplanError(f"unsupported requirement(s) {' '.join(unsupported)}: the pipeline handles "
                           f"{' '.join(SUPPORTED_REQUIREMENTS)}", path)
    if dom.derived_predicates:
        names = sorted(str(d.predicate.name) for d in dom.derived_predicates)
        raise GenplanError(f"unsupported derived predicates {names}", path)
    if dom.functions:
        raise GenplanError(f"unsupported functions {sorted(str(f) for f in dom.functions)} (numeric fluents or "
                           "action costs): the pipeline counts plan length", path)


def read_text(path: str | Path, what: str, allow_empty: bool = False) -> str:
    """The UTF-8 text of a file; GenplanError naming the file and `what` it should be ("PDDL
    domain", "plan", ...) when it is missing, unreadable, not UTF-8 text, or empty (unless allowed)."""
    path = Path(path)
    if not path.is_file():
        raise GenplanError(f"{what} file not found", path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise GenplanError(f"cannot read the {what} file: {exc.strerror or exc}", path) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise GenplanError(f"{what} file is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})",
                           path) from None
    if not allow_empty and not text.strip():
        raise GenplanError(f"empty {what} file", path)
    return text


@functools.lru_cache(maxsize=64)
def _parse_domain_cached(path: str, mtime: float, size: int) -> DomainInfo:
    text = read_text(path, "PDDL domain")
    try:
        dom: _PDomain = _domain_parser()(text)
    except Exception as exc:  # the library raises lark and its own errors
        raise GenplanError(f"malformed PDDL domain: {_first_line(exc)}", path) from None
    _check_supported(dom, path)
    fluent: set[str] = set()
    actions, parameter_types = {}, {}
    for action in dom.actions:
        actions[str(action.name)] = len(action.parameters)
        parameter_types[str(action.name).lower()] = tuple(
            frozenset(str(t).lower() for t in p.type_tags) for p in action.parameters)
        for atom in _effect_atoms(action.effect, path, str(action.name)):
            fluent.add(str(atom.name))
    predicates = {str(p.name): p.arity for p in dom.predicates}
    constants = tuple(sorted(str(c.name).lower() for c in dom.constants))
    constant_types = {str(c.name).lower(): str(c.type_tag or "object").lower() for c in dom.constants}
    return DomainInfo(str(dom.name), Path(path), predicates, frozenset(fluent), actions, constants,
                      parameter_types, constant_types, _supertypes(dom.types))


def _supertypes(parents) -> dict[str, frozenset[str]]:
    """Each declared type with itself and its ancestors (`object` the root of all); a cycle ends
    where it closes."""
    parents = {str(k).lower(): (str(v).lower() if v is not None else "object") for k, v in parents.items()}
    out = {}
    for name in [*parents, "object"]:
        seen = [name]
        while seen[-1] in parents and parents[seen[-1]] not in seen:
            seen.append(parents[seen[-1]])
        out[name] = frozenset([*seen, "object"])
    return out


def parse_domain(path: str | Path) -> DomainInfo:
    path = Path(path)
    if not path.is_file():
        raise GenplanError("domain file not found", path)
    stat = path.stat()
    try:
        return _parse_domain_cached(str(path.resolve()), stat.st_mtime, stat.st_size)
    except GenplanError as exc:  # name the file as the caller did
        raise GenplanError(exc.message, path) from None


_DOMAIN_HEADER = re.compile(r"\(\s*:domain\s+([^\s()]+)\s*\)", re.IGNORECASE)


def check_problem_header(path: str | Path, domain: DomainInfo) -> None:
    """A cheap check of a problem file before an external tool reads it (VAL crashes on bad
    problems): UTF-8, not empty, and its ``(:domain X)`` names `domain`. The full parse
    (`parse_problem`) names any other defect."""
    text = read_text(path, "PDDL problem")
    text = "\n".join(line.split(";", 1)[0] for line in text.splitlines())
    match = _DOMAIN_HEADER.search(text)
    if match is None:
        parse_problem(path, domain)  # names what is wrong
        raise GenplanError("malformed PDDL problem: no (:domain ...) section", path)
    if match.group(1).lower() != domain.name.lower():
        raise GenplanError(f"problem is for domain {match.group(1)!r}, not {domain.name!r} ({domain.path})", path)


_TOKEN_LIST = re.compile(r"^error while parsing tokens \[.*\]: ", re.DOTALL)


def _first_line(exc: Exception) -> str:
    """The parser's reason in one line of at most 300 characters. Lark wraps what a rule's code raised
    (the pddl library's "duplicate name 'x' in typed list") in a VisitError whose first line is only
    the rule's name and a colon: the wrapped exception is the reason; the token list the library
    prefixes to it (every object of the problem) is dropped."""
    inner = getattr(exc, "orig_exc", None) or exc
    text = _TOKEN_LIST.sub("", str(inner).strip()) or type(inner).__name__
    line = next((l.strip() for l in text.splitlines() if l.strip()), text)
    return line if len(line) <= 300 else line[:297] + "..."


def _goal_atoms(goal, path) -> list[Predicate]:
    if isinstance(goal, Predicate):
        return [goal]
    if isinstance(goal, And):
        out = []
        for op in goal.operands:
            if not isinstance(op, Predicate):
                raise GenplanError(f"unsupported goal {op!r}: only conjunctions of atoms", path)
            out.append(op)
        return out
    raise GenplanError(f"unsupported goal {goal!r}: only conjunctions of atoms", path)


def _atom(pred: Predicate) -> Atom:
    return (str(pred.name).lower(), *(str(t.name).lower() for t in pred.terms))


_PARSERS = threading.local()  # one parser a thread: Fast Downward's pool calls parse_problem from threads


def _domain_parser() -> DomainParser:
    """The pddl package's domain parser, built once per thread as `problem_parser` (its grammar costs
    about 0.25 s of CPU, which every domain read paid: the domain fuzz target ran 3 inputs a second),
    with a new transformer for each text."""
    parser = getattr(_PARSERS, "domain_parser", None)
    if parser is None:
        parser = _PARSERS.domain_parser = DomainParser()
    parser._transformer = type(parser._transformer)()
    return parser


def problem_parser() -> ProblemParser:
    """The pddl package's problem parser, its Lark grammar built once per thread (a new ProblemParser
    builds it anew: about 0.06 s of CPU, longer than parsing a small problem), with a new transformer
    for each text (the transformer keeps the objects of the problem it last read). Per thread, not per
    process: the parser and its transformer are state that two threads must not share
    (genplan.processes.run_pool's workers parse problems side by side)."""
    parser = getattr(_PARSERS, "parser", None)
    if parser is None:
        parser = _PARSERS.parser = ProblemParser()
    parser._transformer = type(parser._transformer)()
    return parser


def parse_problem(path: str | Path, domain: DomainInfo) -> Task:
    """Parse a problem file; every failure names the file."""
    path = Path(path)
    text = read_text(path, "PDDL problem")
    try:
        prob: _PProblem = problem_parser()(text)
    except Exception as exc:
        raise GenplanError(f"malformed PDDL problem: {_first_line(exc)}", path) from None
    if prob.domain_name is not None and str(prob.domain_name) != domain.name:
        raise GenplanError(
            f"problem is for domain {prob.domain_name!r}, not {domain.name!r} ({domain.path})", path
        )
    init_atoms = [_atom(a) for a in prob.init if isinstance(a, Predicate)]
    if len(init_atoms) != len(prob.init):
        raise GenplanError("unsupported initial state: only atoms are allowed", path)
    goal = [_atom(a) for a in _goal_atoms(prob.goal, path)]
    for atom in [*init_atoms, *goal]:
        if atom[0] not in domain.predicates:
            raise GenplanError(f"unknown predicate {atom[0]!r} in {atom_to_str(atom)}", path)
        if len(atom) - 1 != domain.predicates[atom[0]]:
            raise GenplanError(f"wrong number of arguments in {atom_to_str(atom)}", path)
    objects = tuple(sorted({str(o.name).lower() for o in prob.objects} | set(domain.constants)))
    known = set(objects)
    for atom in [*init_atoms, *goal]:
        missing = [o for o in atom[1:] if o not in known]
        if missing:
            raise GenplanError(f"undeclared object {missing[0]!r} in {atom_to_str(atom)}", path)
    fluent = frozenset(a for a in init_atoms if a[0] in domain.fluent_predicates)
    statics = frozenset(a for a in init_atoms if a[0] not in domain.fluent_predicates)
    return Task(str(prob.name), domain.name, path, objects, fluent, statics, frozenset(goal))


def problem_to_pddl(
    name: str,
    domain_name: str,
    objects: list[str] | tuple[str, ...],
    init: list[Atom] | frozenset,
    goal: list[Atom] | frozenset,
    types: list[str] | tuple[str, ...] = (),
) -> str:
    """PDDL text of a STRIPS problem (formatted by the `pddl` library); `types`, when given, the
    type of each object in the order of `objects` (a typed domain's problem)."""
    if types and len(types) != len(objects):
        raise ValueError(f"{len(types)} types for {len(objects)} objects")
    consts = {o: Constant(o, t) for o, t in zip(objects, types or [None] * len(objects))}

    def pred(atom: Atom) -> Predicate:
        return Predicate(atom[0], *(consts[o] for o in atom[1:]))

    goal_atoms = [pred(a) for a in goal]
    problem = _PProblem(
        name,
        domain_name=domain_name,
        objects=list(consts.values()),
        init={pred(a) for a in init},
        goal=And(*goal_atoms) if len(goal_atoms) != 1 else goal_atoms[0],
    )
    return problem_to_string(problem) + "\n"


_PLAN_LINE = re.compile(r"\(\s*[^\s();]+(?:\s+[^\s();]+)*\s*\)")


def read_plan(path: str | Path) -> list[Action]:
    """Read a whole plan file: one ``(action object ...)`` a line, ``;`` comments and blank lines;
    any other line is refused naming the file and the line (VAL stops reading at such a line and
    judges the prefix before it: a plan with junk in it must never pass for that prefix)."""
    return [action for _, action in read_plan_lines(path)]


def read_plan_lines(path: str | Path) -> list[tuple[int, Action]]:
    """`read_plan`'s actions, each with its 1-based line in the file."""
    actions = []
    for lineno, line in enumerate(read_text(path, "plan", allow_empty=True).splitlines(), 1):
        text = line.split(";", 1)[0].strip()
        if not text:
            continue
        if not _PLAN_LINE.fullmatch(text):
            shown = text if len(text) <= 80 else text[:77] + "..."
            raise GenplanError(f"line {lineno}: not an action `(name object ...)` nor a `;` comment: {shown!r}",
                               path)
        actions.append((lineno, str_to_atom(text)))
    return actions


def plan_to_text(actions: list[Action]) -> str:
    lines = [atom_to_str(a) for a in actions]
    lines.append(f"; cost = {len(actions)} (unit cost)")
    return "\n".join(lines) + "\n"
