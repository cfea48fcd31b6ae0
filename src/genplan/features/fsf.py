"""Fixed-size factored (FSF) encodings, state-centric paper appendix F (Table 6).

A vector of 1 + N values: slot 0 holds global information (robot position, or the constant 0
where the domain has none), slots 1..N one value per object. Per domain, the objects that get
slots are those of some classes (unary static predicates such as `ball`, `gripper`); each class
gets a block of slots as large as its largest count in the problems it is sized on, a setting
(`slots`):
- `train_validation` (default): the problems given to `fit`, the training and validation problems
  (the validation split selects the model, so it must be representable; its problems are larger
  than the training ones in every domain of the paper). The test splits are never looked at, and
  a test problem with more objects of a class than slots is refused (every extrapolation problem
  of the paper's instances is);
- `all_splits` (the reference's choice, its "FSF slots sized on the test problems" read as a setting): also the problems of
  every other split, given to `widen` (genplan.features.fsf_sizing reads them from the benchmark's
  manifest). Only their object counts per class are used, which are known before any planning:
  no result leaks, but the slot count depends on the test problems.
A slot means the same class in every problem. A problem with more objects of a class than slots
raises GenplanError.

Slot order (documented and deterministic): classes in the order of the layout; within a class,
objects in natural order of their names (`ball2` before `ball10`; digits compare as numbers).
Values that refer to a slotted object use its slot number; values that refer to a room or a
location use its 1-based position in natural order among the objects of that class.
Special values: -99 padding (slot unused in this problem), -10 don't-care (goal only).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from genplan.errors import GenplanError
from genplan.features.base import BoundEncoder, Encoder, ProblemView
from genplan.pddl_io import parse_domain

SLOTS = ("train_validation", "all_splits")
PAD = -99.0
DONT_CARE = -10.0
GLOBAL = ""  # key of slot 0 in a value dictionary
ALL = "*"  # class of every object (untyped Blocksworld)


def natural_key(name: str) -> tuple:
    return tuple((0, int(t), "") if t.isdigit() else (1, 0, t) for t in re.split(r"(\d+)", name) if t)


def _blocks(atoms, ref, goal):
    v = {GLOBAL: 0.0}
    for a in atoms:
        if a[0] == "on":
            v[a[1]] = ref[a[2]]
        elif a[0] == "ontable":
            v[a[1]] = 0.0
        elif a[0] == "holding":
            v[a[1]] = -1.0
    return v


def _gripper(atoms, ref, goal):
    v = {}
    for a in atoms:
        if a[0] == "at-robby":
            v[GLOBAL] = ref[a[1]]
        elif a[0] == "at":
            v[a[1]] = ref[a[2]]
        elif a[0] == "carry":
            v[a[1]], v[a[2]] = -ref[a[2]], ref[a[1]]
        elif a[0] == "free":
            v[a[1]] = 0.0
    return v


def _logistics(atoms, ref, goal):
    v = {GLOBAL: 0.0}
    for a in atoms:
        if a[0] == "at":
            v[a[1]] = ref[a[2]]
        elif a[0] == "in":
            v[a[1]] = -ref[a[2]]
    return v


def _visitall(atoms, ref, goal):
    # closed world: in a state every cell not visited is 0; the goal leaves other cells don't-care
    v = {} if goal else dict.fromkeys(ref, 0.0)
    for a in atoms:
        if a[0] == "at-robot":
            v[GLOBAL] = ref[a[1]]
        elif a[0] == "visited":
            v[a[1]] = 1.0
    return v


@dataclass(frozen=True)
class Layout:
    slot_classes: tuple[str, ...]  # classes whose objects get slots, in slot order
    index_classes: tuple[str, ...]  # classes referred to by their position (rooms, locations)
    values: object  # (atoms, ref, goal) -> {object or GLOBAL: value}


LAYOUTS = {
    "blocks": Layout((ALL,), (), _blocks),
    "gripper-strips": Layout(("ball", "gripper"), ("room",), _gripper),
    "logistics": Layout(("package", "truck", "airplane"), ("location",), _logistics),
    "grid-visit-all": Layout(("place",), (), _visitall),
}


def _members(view: ProblemView, cls: str) -> list[str]:
    objs = view.objects if cls == ALL else {a[1] for a in view.statics if a[0] == cls and len(a) == 2}
    return sorted(objs, key=natural_key)


class FSFEncoder(Encoder):
    name = "fsf"
    fit_on_validation = True  # the validation problems select the model: they must fit the slots

    def __init__(self, domain_file: str | Path, layout: str | None = None, slots: str = SLOTS[0]):
        if slots not in SLOTS:
            raise ValueError(f"Unknown value {slots=}. Must be from {list(SLOTS)}")
        self.slots = slots
        self.domain_file = Path(domain_file)
        self.layout_name = layout or parse_domain(domain_file).name
        if self.layout_name not in LAYOUTS:
            raise GenplanError(f"no FSF layout for domain {self.layout_name!r}; known: {sorted(LAYOUTS)}", domain_file)
        self.layout = LAYOUTS[self.layout_name]
        self.capacity: dict[str, int] | None = None

    @property
    def dim(self) -> int:
        return 1 + sum(self._capacity().values())

    def _capacity(self) -> dict[str, int]:
        if self.capacity is None:
            raise RuntimeError("FSF encoder used before fit")
        return self.capacity

    def fit(self, problems: list[dict]) -> None:
        if not problems:
            raise GenplanError("no training trajectories to size the FSF slots from")
        views = [ProblemView.from_record(r) for r in problems]
        self.capacity = {c: max(len(_members(v, c)) for v in views) for c in self.layout.slot_classes}

    def widen(self, views: list[ProblemView]) -> None:
        """Grow each class's slots to hold the given problems too (`slots: all_splits`: the
        problems of every split); after `fit`. Only the object counts of the problems are read."""
        capacity = self._capacity()
        for cls in self.layout.slot_classes:
            capacity[cls] = max([capacity[cls]] + [len(_members(v, cls)) for v in views])

    def bind_view(self, problem: ProblemView) -> "FSFBound":
        capacity = self._capacity()
        ref: dict[str, float] = {}
        slot_of: dict[str, int] = {}
        offset = 1
        for cls in self.layout.slot_classes:
            members = _members(problem, cls)
            if len(members) > capacity[cls]:
                what = "objects" if cls == ALL else f"'{cls}' objects"
                sized = "every split's" if self.slots == "all_splits" else "the training and validation"
                raise GenplanError(f"problem {problem.name} has {len(members)} {what}, more than the "
                                   f"{capacity[cls]} FSF slots sized on {sized} problems", problem.path)
            for i, obj in enumerate(members):
                slot_of[obj] = offset + i
            offset += capacity[cls]
        for cls in self.layout.index_classes:
            for i, obj in enumerate(_members(problem, cls), 1):
                ref.setdefault(obj, float(i))
        ref.update({o: float(s) for o, s in slot_of.items()})
        return FSFBound(self, problem, slot_of, ref)

    def to_dict(self) -> dict:
        d = {"name": self.name, "domain_file": str(self.domain_file), "layout": self.layout_name,
             "capacity": dict(self._capacity())}
        if self.slots != SLOTS[0]:  # the default is left out: the encoders of earlier runs are unchanged
            d["slots"] = self.slots
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "FSFEncoder":
        enc = cls.__new__(cls)
        enc.domain_file = Path(d["domain_file"])
        enc.layout_name = d["layout"]
        if enc.layout_name not in LAYOUTS:
            raise GenplanError(f"no FSF layout for domain {enc.layout_name!r}; known: {sorted(LAYOUTS)}")
        enc.layout = LAYOUTS[enc.layout_name]
        enc.capacity = {str(k): int(v) for k, v in d["capacity"].items()}
        enc.slots = d.get("slots", SLOTS[0])
        return enc


class FSFBound(BoundEncoder):
    def __init__(self, encoder: FSFEncoder, problem: ProblemView, slot_of: dict[str, int], ref: dict[str, float]):
        super().__init__(encoder, problem)
        self.slot_of = slot_of
        self.ref = ref
        self.template = np.full(encoder.dim, PAD, dtype=np.float32)
        self.template[0] = DONT_CARE
        for slot in slot_of.values():
            self.template[slot] = DONT_CARE

    def _vector(self, atoms, goal: bool) -> np.ndarray:
        vec = self.template.copy()
        for obj, value in self.encoder.layout.values(atoms, self.ref, goal).items():
            vec[0 if obj == GLOBAL else self.slot_of[obj]] = value
        return vec

    def embed(self, states: list[frozenset]) -> np.ndarray:
        out = np.empty((len(states), self.encoder.dim), dtype=np.float32)
        for i, state in enumerate(states):
            out[i] = self._vector(state, goal=False)
        return out

    def embed_goal(self) -> np.ndarray:
        return self._vector(self.problem.goal, goal=True)
