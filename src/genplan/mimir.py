"""pymimir at the edge: grounding, successor states and full state spaces, converted to the
package's representation (fluent atoms as string tuples; pymimir's type atoms such as
`(object x)` and the problem's static atoms never enter a state).

pymimir reads the requirements strictly: a problem that writes its objects typed (`b1 b2 - object`)
for a domain that declares no `:typing` (IPC 2023's Blocksworld) is refused, where Fast Downward,
VAL and the `pddl` library accept it. Such a domain is loaded with `:typing` added to its
requirements (`_with_typing`), which changes nothing else: its objects are all of type `object`."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import pymimir as pm

from genplan.errors import GenplanError
from genplan.pddl_io import Action, Atom, read_text

_REQUIREMENTS = re.compile(r"\(\s*:requirements\b", re.IGNORECASE)
_DOMAIN_NAME = re.compile(r"\(\s*domain\s+[^\s()]+\s*\)", re.IGNORECASE)
_NO_TYPING = "Undefined requirement: :typing"


def _with_typing(text: str) -> str:
    """The domain's PDDL text with `:typing` among its requirements (a `(:requirements :typing)`
    section after the domain's name when it has none)."""
    match = _REQUIREMENTS.search(text)
    if match is not None:
        text = text[:match.end()] + " :typing" + text[match.end():]
    else:
        name = _DOMAIN_NAME.search(text)
        if name is None:
            raise ValueError("no (domain ...) name in the domain text")
        text = text[:name.end()] + "\n(:requirements :typing)" + text[name.end():]
    return text


def load_task(domain: str | Path, problem: str | Path):
    """pymimir's domain and problem, and the temporary folder that holds the domain file read (None
    when it is `domain` itself): a domain without `:typing` whose problem writes typed objects is
    loaded from a copy with the requirement added (pymimir reads domain files, not text)."""
    try:
        dom = pm.Domain(Path(domain))
        return dom, pm.Problem(dom, Path(problem), mode="lifted"), None
    except Exception as exc:
        if _NO_TYPING not in str(exc):
            raise
    tmp = tempfile.TemporaryDirectory(prefix="genplan-mimir-")
    typed = Path(tmp.name) / "domain.pddl"
    typed.write_text(_with_typing(read_text(domain, "PDDL domain")), encoding="utf-8")
    dom = pm.Domain(typed)
    return dom, pm.Problem(dom, Path(problem), mode="lifted"), tmp


class MimirTask:
    """A problem loaded into pymimir, with cached conversions of its atoms and actions."""

    def __init__(self, domain: str | Path, problem: str | Path):
        try:
            self.domain, self.problem, self._typed_copy = load_task(domain, problem)
        except Exception as exc:  # pymimir raises RuntimeError with the parser's message
            raise GenplanError(f"pymimir cannot load the problem: {str(exc).splitlines()[0][:300]}", problem) from None
        self.path = Path(problem)
        self._atoms: dict[int, Atom] = {}
        self._actions: dict[int, Action] = {}
        self._fluent_by_index: dict[int, Atom] = {}
        self._goal = None  # the goal condition, built once

    def atom(self, ground_atom) -> Atom:
        idx = ground_atom.get_index()
        atom = self._atoms.get(idx)
        if atom is None:
            atom = (ground_atom.get_predicate().get_name(), *(t.get_name() for t in ground_atom.get_terms()))
            self._atoms[idx] = atom
        return atom

    def action(self, ground_action) -> Action:
        idx = ground_action.get_index()
        act = self._actions.get(idx)
        if act is None:
            act = (ground_action.get_action().get_name(), *(o.get_name() for o in ground_action.get_objects()))
            self._actions[idx] = act
        return act

    def fluent_indices(self, state) -> list[int]:
        """The indices of the state's fluent atoms (pymimir's own, as `GroundAtom.get_index()`),
        read without wrapping each atom in a Python object (10x faster on a 100-block state)."""
        try:
            return list(state._advanced_state.get_fluent_atoms())
        except AttributeError:  # a pymimir without the advanced state: the public, slower way
            return [a.get_index() for a in state.get_atoms(ignore_static=True, ignore_derived=True)]

    def fluent_atom(self, index: int) -> Atom:
        """The fluent atom of a pymimir fluent-atom index."""
        atom = self._fluent_by_index.get(index)
        if atom is None:
            from pymimir.wrapper_formalism import GroundAtom

            repo = self.problem._advanced_problem.get_repositories()
            atom = self.atom(GroundAtom(repo.get_fluent_ground_atoms_from_indices([index])[0]))
            self._fluent_by_index[index] = atom
        return atom

    def fluents(self, state) -> frozenset:
        """The state's fluent atoms, read by index (fluent_indices, fluent_atom: ~3x faster than
        wrapping each pymimir atom)."""
        return frozenset(map(self.fluent_atom, self.fluent_indices(state)))

    def initial_state(self):
        return self.problem.get_initial_state()

    def successors(self, state) -> list[tuple[Action, object]]:
        """Applicable ground actions and their successor pymimir states."""
        return [(self.action(a), a.apply(state)) for a in state.generate_applicable_actions()]

    def apply(self, state, action: Action):
        """The successor of `state` under the named ground action; GenplanError if not applicable."""
        for a in state.generate_applicable_actions():
            if self.action(a) == action:
                return a.apply(state)
        raise GenplanError(f"action ({' '.join(action)}) is not applicable according to pymimir", self.path)

    def is_goal(self, state) -> bool:
        # the goal condition is built once: pymimir makes it afresh on every call (measured 2 ms
        # on a 100-block problem, against 3 us for `holds`)
        if self._goal is None:
            self._goal = self.problem.get_goal_condition()
        return self._goal.holds(state)
