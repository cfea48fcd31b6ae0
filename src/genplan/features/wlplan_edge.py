"""wlplan at the edge: the package's atoms (tuples of strings) to wlplan Atoms, States and
Problems, and feature generators to and from text.

Conversions are cached per problem: converting atoms costs as much as embedding otherwise
(measured on the reference decoder's problems: 8k-17k states a second naive, 82k-128k cached)."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from wlplan.feature_generator import (
    Features,
    get_available_pruning_methods,
    init_feature_generator,
    load_feature_generator,
)
from wlplan.planning import Atom, Domain, Predicate, Problem, Schema, State
from wlplan.planning import parse_domain as _wl_parse_domain

from genplan.errors import GenplanError
from genplan.features.wlplan_saved import check as check_saved
from genplan.pddl_io import atom_to_str

# wlplan's feature pruning: none; a-m (WL-GOOSE's: colours equivalent on the collected data merged,
# over all iterations, by MaxSAT); i-g, i-m, i-f, i-mf (per iteration: greedy, MaxSAT, rare colours,
# MaxSAT then rare)
PRUNING = tuple(get_available_pruning_methods())


def load_domain(domain_file: str | Path) -> Domain:
    """The wlplan domain of a PDDL file, static predicates kept (they are in every state)."""
    try:
        return _wl_parse_domain(str(domain_file), keep_statics=True)
    except Exception as exc:  # the pddl library raises its own errors
        raise GenplanError(f"wlplan cannot read the domain: {str(exc).splitlines()[0][:300]}", domain_file) from None


def domain_from_saved(text: str) -> Domain:
    """The wlplan domain stored in a saved feature generator (predicates in the saved order)."""
    d = check_saved(text)["domain"]
    return Domain(
        name=d["name"],
        predicates=[Predicate(name=n, arity=int(a)) for n, a in d["predicates"]],
        functions=[],
        schemata=[Schema(name=n, arity=int(a)) for n, a in d["schemata"]],
        constant_objects=list(d["constant_objects"]),
    )


def new_generator(domain: Domain, iterations: int, multiset_hash: bool, pruning: str = "none") -> Features:
    """An unfitted WL generator on ILG graphs; `pruning` is one of wlplan's feature pruning methods
    (PRUNING), applied by `collect` to the colours of the collected data."""
    return init_feature_generator("wl", domain, graph_representation="ilg", iterations=iterations,
                                  pruning=pruning, multiset_hash=multiset_hash)


def collect(fg: Features, dataset) -> None:
    """`fg.collect(dataset)` without wlplan's progress lines on standard output (written by its
    C++ code, hence redirected at the file-descriptor level)."""
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 1)
            fg.collect(dataset)
    finally:
        os.dup2(saved, 1)
        os.close(saved)


def generator_to_text(fg: Features) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "wl.json")
        fg.save(path)
        return Path(path).read_text()


def generator_from_text(text: str) -> Features:
    """The generator of a saved text; ValueError for one wlplan cannot load safely (wlplan_saved)."""
    check_saved(text)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "wl.json")
        Path(path).write_text(text)
        return load_feature_generator(path, quiet=True)


class ProblemConverter:
    """Converts the atoms of one problem to wlplan, caching each atom's conversion."""

    def __init__(self, domain: Domain, objects, statics, goal, source=None):
        self._predicates = {p.name: p for p in domain.predicates}
        self._cache: dict[tuple, Atom] = {}
        self._source = source
        self._statics = [self.atom(a) for a in sorted(statics)]
        self.goal_atoms = [self.atom(a) for a in sorted(goal)]
        # the domain's constants are wlplan's domain objects, not the problem's (as wlplan's own parser)
        constants = set(domain.constant_objects)
        self.problem = Problem(domain, sorted(o for o in objects if o not in constants), self.goal_atoms, [])

    def atom(self, atom: tuple) -> Atom:
        wl = self._cache.get(atom)
        if wl is None:
            pred = self._predicates.get(atom[0])
            if pred is None or pred.arity != len(atom) - 1:
                raise GenplanError(f"atom {atom_to_str(atom)} does not fit the domain's predicates", self._source)
            wl = Atom(predicate=pred, objects=list(atom[1:]))
            self._cache[atom] = wl
        return wl

    def state(self, fluents) -> State:
        """A wlplan state: the fluent atoms plus the problem's static atoms."""
        return State(self._statics + [self.atom(a) for a in sorted(fluents)])

    def goal_state(self) -> State:
        """The state made of the positive goal atoms only (as the reference)."""
        return State(list(self.goal_atoms))
