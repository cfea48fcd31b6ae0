"""Plansformer's text at the edge: a PDDL domain and problem as the one-line prompt its CodeT5 was
fine-tuned on, and its generated text as a plan in the package's representation.

The format is the one the Plansformer authors publish with their pretrained model (Pallagani et al. 2022,
arXiv:2212.08681; repository VishalPallagani/plansformer-docker, `plansformer-train/code/
generate_prompt_function.py` for the prompt and `train.py`'s `display_plans_VAL` for the plan); this
module is written anew from that description (the repository carries no licence), on a small
S-expression reader of its own:

    <GOAL> on b1 b2, clear b1 <INIT> handempty, ontable b1, ... <ACTION> pick-up <PRE> clear x,
    ontable x, handempty <EFFECT> not ontable x, not clear x, not handempty, holding x <ACTION> ...

goal atoms, then initial atoms, then every action of the domain in file order with its
precondition and effect literals in file order, variables without their `?`, a negated literal
as `not <atom>`, parts separated by ", ", everything on one line with single spaces (the training
script collapses whitespace so). One difference from the published script: a negative
precondition is written once, as `not <atom>` (the script also emits the atom inside it).

The model answers `plan: unstack b2 b1, put-down b2, ...`: comma-separated ground actions,
optionally after `plan:`; `read_plan_text` also takes one action a line and parenthesised actions.
"""

from __future__ import annotations

import re
from pathlib import Path

from genplan.errors import GenplanError
from genplan.pddl_io import Action, read_text

_TOKEN = re.compile(r"[()]|[^\s()]+")


def _sexprs(text: str, path: Path) -> list:
    """The S-expressions of a PDDL text (comments dropped, everything lower-case); GenplanError
    naming `path` for unbalanced parentheses."""
    stack: list[list] = [[]]
    for tok in _TOKEN.findall(re.sub(r";[^\n]*", "", text).lower()):
        if tok == "(":
            stack.append([])
        elif tok == ")":
            if len(stack) == 1:
                raise GenplanError("unbalanced parentheses: a ')' closes nothing", path)
            done = stack.pop()
            stack[-1].append(done)
        else:
            stack[-1].append(tok)
    if len(stack) != 1:
        raise GenplanError("unbalanced parentheses: a '(' is never closed", path)
    return stack[0]


def _define(text: str, path: Path) -> list:
    """The body of the file's `(define ...)`."""
    for expr in _sexprs(text, path):
        if isinstance(expr, list) and expr and expr[0] == "define":
            return expr[1:]
    raise GenplanError("no (define ...) in the file", path)


def _literals(expr, path: Path) -> list[str]:
    """The literals of a conjunction, in file order: `pred a b`, `not pred a b`."""
    if not isinstance(expr, list) or not expr:
        return []
    head = expr[0]
    if head == "and":
        return [lit for part in expr[1:] for lit in _literals(part, path)]
    if head == "not":
        inner = _literals(expr[1], path) if len(expr) == 2 else []
        if len(inner) != 1:
            raise GenplanError(f"a negation of no single atom: {_show(expr)}", path)
        return [f"not {inner[0]}"]
    if any(isinstance(x, list) for x in expr) or head in ("or", "imply", "forall", "exists", "when"):
        raise GenplanError(f"not a STRIPS literal (Plansformer's prompt has none): {_show(expr)}", path)
    return [" ".join(x.lstrip("?") for x in expr)]


def _show(expr) -> str:
    if not isinstance(expr, list):
        return expr
    return "(" + " ".join(map(_show, expr)) + ")"


def _section(name: str, literals: list[str]) -> str:
    return f"<{name}> " + ", ".join(literals)


def domain_text(path: str | Path) -> str:
    """The domain's part of the prompt: each action's name, precondition and effect."""
    path = Path(path)
    parts = []
    for item in _define(read_text(path, "domain"), path):
        if not (isinstance(item, list) and item and item[0] == ":action" and len(item) > 1):
            continue
        fields = dict(zip(item[2::2], item[3::2]))
        part = f"<ACTION> {item[1]}"
        if ":precondition" in fields:
            part += " " + _section("PRE", _literals(fields[":precondition"], path))
        if ":effect" in fields:
            part += " " + _section("EFFECT", _literals(fields[":effect"], path))
        parts.append(part)
    if not parts:
        raise GenplanError("no (:action ...) in the domain", path)
    return " ".join(parts)


def problem_text(path: str | Path) -> str:
    """The problem's part of the prompt: its goal atoms, then its initial atoms."""
    path = Path(path)
    sections = {item[0]: item[1:] for item in _define(read_text(path, "problem"), path)
                if isinstance(item, list) and item and item[0] in (":init", ":goal")}
    if ":init" not in sections or len(sections.get(":goal", ())) != 1:
        raise GenplanError("a problem needs (:init ...) and one (:goal ...)", path)
    init = [lit for atom in sections[":init"] for lit in _literals(atom, path)]
    return _section("GOAL", _literals(sections[":goal"][0], path)) + " " + _section("INIT", init)


def prompt(domain: str | Path, problem: str | Path) -> str:
    """Plansformer's input for one problem: goal, initial state, then the domain's actions."""
    return " ".join(f"{problem_text(problem)} {domain_text(domain)}".split())


def read_plan_text(text: str) -> list[Action]:
    """The ground actions of the model's answer (`plan: a x y, b z, ...`, or one action a line, with
    or without parentheses), lower-case; ValueError for text that is no list of actions (a
    parenthesis left inside an action)."""
    body = text.strip()
    if body.lower().startswith("plan:"):
        body = body[len("plan:"):]
    actions = []
    for piece in re.split(r"[,\n]", body.replace(":", " ")):
        piece = piece.strip()
        if piece.startswith("(") and piece.endswith(")"):
            piece = piece[1:-1]
        if "(" in piece or ")" in piece:
            raise ValueError(f"not an action: {piece!r}")
        if piece.split():
            actions.append(tuple(piece.lower().split()))
    return actions
