"""Renaming problem objects into the vocabulary's object tokens.

PlanGPT (paper, Section "Dataset Generation", Figure 2) randomises object names when it builds the
training set, "replacing each object name obj with a name of an object of the same type of obj
randomly taken from the vocabulary", so that the model cannot learn the naming conventions of the
problem generators; at inference (Section "Preprocessing and Tokeniser") each object "is
substituted with an unused object of the same type in the vocabulary". SymT renames at random too.

`Renaming.random` draws a uniformly random injective map (per type, or into the global pool) from a
seeded numpy Generator; `Renaming.identity_order` is the deterministic map for evaluation without
randomness: objects in natural sort order (``ball2`` before ``ball10``) take the pool's tokens in
order. A problem with more objects (of a type) than the pool is refused with a GenplanError.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType

import numpy as np

from genplan.errors import GenplanError
from genplan.pddl_io import Action, Atom
from genplan.tokens.vocab import Vocabulary

_DIGITS = re.compile(r"(\d+)")


def natural_key(name: str) -> tuple:
    """Sort key putting ``ball2`` before ``ball10`` (digit runs compare as numbers)."""
    return tuple((0, int(part), part) if part.isdigit() else (1, 0, part) for part in _DIGITS.split(name) if part)


class Renaming:
    """A bijection between a problem's objects and some of the vocabulary's object tokens."""

    def __init__(self, forward: Mapping[str, str]):
        self._forward = dict(forward)
        inverse: dict[str, str] = {}
        for obj, tok in self._forward.items():
            if tok in inverse:
                raise GenplanError(f"renaming is not injective: {inverse[tok]!r} and {obj!r} both map to {tok!r}")
            inverse[tok] = obj
        self._inverse = inverse

    @property
    def forward(self) -> Mapping[str, str]:
        """problem object -> object token"""
        return MappingProxyType(self._forward)

    @property
    def inverse(self) -> Mapping[str, str]:
        """object token -> problem object"""
        return MappingProxyType(self._inverse)

    def __len__(self) -> int:
        return len(self._forward)

    def __eq__(self, other) -> bool:
        return isinstance(other, Renaming) and self._forward == other._forward

    def __repr__(self) -> str:
        return f"Renaming({self._forward!r})"

    # --- construction --------------------------------------------------------------------------
    @staticmethod
    def _groups(task_objects: Iterable[str], types: Mapping[str, str] | None, vocab: Vocabulary,
                per_type: bool | None, path) -> list[tuple[list[str], tuple[str, ...]]]:
        """(objects in natural order, pool tokens) per type in sorted type order (or one global
        group); GenplanError when a pool is too small."""
        per_type = vocab.per_type if per_type is None else bool(per_type)
        if per_type != vocab.per_type:
            kind = "per-type object pools" if vocab.per_type else "one global object pool"
            raise GenplanError(f"renaming {'per type' if per_type else 'into one pool'} asked for, but the "
                               f"model's vocabulary has {kind}")
        objects = sorted(set(task_objects), key=natural_key)
        if not per_type:
            pool = vocab.object_tokens()
            if len(objects) > len(pool):
                raise GenplanError(f"problem has {len(objects)} objects, more than the {len(pool)} object "
                                   f"tokens of the model's vocabulary", path)
            return [(objects, pool)]
        if types is None:
            raise GenplanError("renaming per type needs the objects' types (genplan.tokens.types.object_types)")
        missing = [o for o in objects if o not in types]
        if missing:
            raise GenplanError(f"object {missing[0]!r} has no type", path)
        by_type: dict[str, list[str]] = {}
        for obj in objects:
            by_type.setdefault(types[obj], []).append(obj)
        groups, too_many = [], []
        for t in sorted(by_type):
            pool = vocab.object_tokens(t)
            if len(by_type[t]) > len(pool):
                too_many.append(f"problem has {len(by_type[t])} {t!r} objects, more than the {len(pool)} {t} "
                                f"tokens of the model's vocabulary")
            groups.append((by_type[t], pool))
        if too_many:
            raise GenplanError("; ".join(too_many), path)
        return groups

    @classmethod
    def random(cls, task_objects: Iterable[str], types: Mapping[str, str] | None, vocab: Vocabulary,
               rng: np.random.Generator | int | None, per_type: bool | None = None, path=None) -> "Renaming":
        """A uniformly random injective map of the objects into the pool tokens (per type when
        `per_type`, default: as the vocabulary's pools are), drawn from `rng` (a numpy Generator,
        or a seed). The draw depends only on the set of objects, not on their order."""
        rng = np.random.default_rng(rng)
        forward = {}
        for objects, pool in cls._groups(task_objects, types, vocab, per_type, path):
            if objects:
                picks = rng.choice(len(pool), size=len(objects), replace=False)
                forward.update({obj: pool[int(i)] for obj, i in zip(objects, picks)})
        return cls(forward)

    @classmethod
    def identity_order(cls, task_objects: Iterable[str], types: Mapping[str, str] | None, vocab: Vocabulary,
                       per_type: bool | None = None, path=None) -> "Renaming":
        """The deterministic map: objects in natural sort order take the pool tokens in order."""
        forward = {}
        for objects, pool in cls._groups(task_objects, types, vocab, per_type, path):
            forward.update(zip(objects, pool))
        return cls(forward)

    @classmethod
    def at_evaluation(cls, task_objects: Iterable[str], types: Mapping[str, str] | None, vocab: Vocabulary,
                      names: Mapping | None, per_type: bool | None = None) -> list["Renaming"]:
        """How a model names a problem's objects when it plans (the SymT family's planning key `names`):
        one renaming in pool order (`identity_order`) by default; with `{order: random, samples: K,
        seed: S}` K random renamings drawn in turn from one generator seeded with S."""
        names = names or {}
        if names.get("order", "pool") != "random":
            return [cls.identity_order(task_objects, types, vocab, per_type=per_type)]
        rng = np.random.default_rng(names.get("seed", 0))
        return [cls.random(task_objects, types, vocab, rng, per_type=per_type) for _ in range(names.get("samples", 1))]

    # --- use -----------------------------------------------------------------------------------
    def rename(self, obj: str) -> str:
        try:
            return self._forward[obj]
        except KeyError:
            raise GenplanError(f"object {obj!r} is not one of the {len(self)} objects of the renaming") from None

    def restore(self, token: str) -> str:
        try:
            return self._inverse[token]
        except KeyError:
            raise GenplanError(f"object token {token!r} does not stand for any object of this problem") from None

    def rename_atom(self, atom: Atom) -> tuple[str, ...]:
        """``("on", "a", "b")`` -> ``("on", "o3", "o0")``; also for ground actions."""
        return (atom[0], *(self.rename(o) for o in atom[1:]))

    rename_action = rename_atom

    def rename_atoms(self, atoms: Iterable[Atom]) -> list[tuple[str, ...]]:
        return [self.rename_atom(a) for a in atoms]

    def restore_action(self, tokens: Sequence[str]) -> Action:
        """``["stack", "o3", "o0"]`` -> ``("stack", "a", "b")``; also for atoms."""
        if not len(tokens):
            raise GenplanError("empty action")
        return (str(tokens[0]), *(self.restore(t) for t in tokens[1:]))

    restore_atom = restore_action

    def to_dict(self) -> dict[str, str]:
        return dict(self._forward)

    @classmethod
    def from_dict(cls, d: Mapping[str, str]) -> "Renaming":
        return cls(d)


def pool_setting_problems(settings: dict) -> list[str]:
    """A model entry's object pool against its renaming mode (the sequence families' `check`):
    per-type renaming needs a pool per type, one global pool needs a count."""
    pool, per_type = settings.get("object_pool", 32), settings.get("per_type", False)
    if per_type and not isinstance(pool, dict):
        return ["per_type renaming needs object_pool as {type: count}"]
    if not per_type and isinstance(pool, dict):
        return ["object_pool {type: count} needs per_type: true"]
    return []
