"""One token per ground atom, over the renamed object pool (plan-diffusion, Section "Plan
Diffusion": "we represent each (goal) atom as a single token, e.g. the ground atom on(o1, o2)
becomes one symbol", following SymT; "predicate and goal-predicate symbols occupy disjoint regions
of the vocabulary").

The atoms are those of the domain's predicates over the global pool ``o0 .. o{K-1}`` of a
`Vocabulary` (genplan.tokens.vocab). Ids are computed, never enumerated: predicate ``p`` of arity
``a`` owns ``K**a`` consecutive ids, the atom ``p(o_i1, ..., o_ia)`` being ``base[p]`` plus the
mixed-radix number ``i1 i2 ... ia`` in base K; predicates in sorted order. The state region holds
ids ``0 .. A-1`` and the goal region ``A .. 2A-1`` (``A`` atoms over the pool), so a goal atom and
the same atom of the state are two different tokens. (SymT's factored atom rows,
genplan.tokens.atom_rows, build an atom's input from its predicate and object tokens instead.)
"""

from __future__ import annotations

from collections.abc import Iterable

from genplan.errors import GenplanError
from genplan.tokens.renaming import Renaming
from genplan.tokens.vocab import GLOBAL_PREFIX, Vocabulary


class AtomVocabulary:
    """Atom tokens of a vocabulary's predicates over its global object pool (see the module doc)."""

    def __init__(self, vocab: Vocabulary):
        if vocab.per_type:
            raise GenplanError("atom tokens are defined over one global object pool; the vocabulary has "
                               "per-type pools (set per_type: false)")
        self.vocab = vocab
        self.pool = int(vocab.object_pool)
        self._base: dict[str, int] = {}
        n = 0
        for pred, arity in vocab.predicates.items():
            self._base[pred] = n
            n += self.pool ** arity
        self.atoms = n  # A: atoms of one region
        self._ranges = sorted((b, p) for p, b in self._base.items())

    def __len__(self) -> int:
        """Both regions: 2A ids."""
        return 2 * self.atoms

    def __repr__(self) -> str:
        return f"AtomVocabulary({self.vocab.domain!r}, pool={self.pool}, {self.atoms} atoms per region)"

    def _index(self, token: str) -> int:
        if not token.startswith(GLOBAL_PREFIX) or not token[len(GLOBAL_PREFIX):].isdigit():
            raise GenplanError(f"{token!r} is not an object token of the pool "
                               f"{GLOBAL_PREFIX}0..{GLOBAL_PREFIX}{self.pool - 1}")
        i = int(token[len(GLOBAL_PREFIX):])
        if i >= self.pool:
            raise GenplanError(f"object token {token!r} is outside the pool of {self.pool} objects")
        return i

    def id(self, atom: tuple[str, ...], goal: bool = False) -> int:
        """The id of a renamed atom (``("on", "o3", "o0")``), in the goal region when `goal`."""
        pred = atom[0]
        if pred not in self._base:
            raise GenplanError(f"{pred!r} in {atom!r} is not a predicate of domain {self.vocab.domain!r}")
        arity = self.vocab.predicates[pred]
        if len(atom) - 1 != arity:
            raise GenplanError(f"atom {atom!r} has {len(atom) - 1} arguments, {pred!r} takes {arity}")
        k = 0
        for obj in atom[1:]:
            k = k * self.pool + self._index(obj)
        return self._base[pred] + k + (self.atoms if goal else 0)

    def atom(self, id: int) -> tuple[str, tuple[str, ...]]:
        """(region, renamed atom) of an id: the inverse of `id`."""
        id = int(id)
        if not 0 <= id < len(self):
            raise GenplanError(f"atom id {id} is outside 0..{len(self) - 1}")
        region, local = ("goal", id - self.atoms) if id >= self.atoms else ("state", id)
        base, pred = max((b, p) for b, p in self._ranges if b <= local)
        k, args = local - base, []
        for _ in range(self.vocab.predicates[pred]):
            k, i = divmod(k, self.pool)
            args.append(f"{GLOBAL_PREFIX}{i}")
        return region, (pred, *reversed(args))

    def encode(self, state: Iterable, goal: Iterable, renaming: Renaming) -> list[int]:
        """The condition of a problem: its state atoms (fluents and statics), then its goal atoms,
        each one token, in the order of the atoms' own (unrenamed) names: two renamings of one
        problem give sequences whose i-th tokens stand for the same atom (SymT's contrastive
        losses compare them position by position). A model that gives every condition token one
        position reads them as a set."""
        s = [self.id(renaming.rename_atom(a)) for a in sorted(set(state))]
        g = [self.id(renaming.rename_atom(a), goal=True) for a in sorted(set(goal))]
        return s + g

    def rows(self):
        """The factored form of every atom id (`condition: factored`, genplan.models.diffusion.model):
        a LongTensor [2A, 1 + m] whose row `id` holds the atom's predicate slot (the predicate's index
        in sorted order, plus the number of predicates in the goal region: goal predicates are their
        own symbols) and the plan vocabulary's ids of its object tokens, `<pad>` up to the largest
        arity m."""
        import torch

        preds = list(self.vocab.predicates)
        width = 1 + max([self.vocab.predicates[p] for p in preds] + [0])
        if len(self) * width > 50_000_000:
            raise GenplanError(f"{len(self):,} atom ids over a pool of {self.pool} objects are too many to "
                               "factor in one table: lower object_pool")
        objects = torch.tensor([self.vocab.id(f"{GLOBAL_PREFIX}{i}") for i in range(self.pool)])
        out = torch.full((len(self), width), self.vocab.pad_id, dtype=torch.long)
        for slot, pred in enumerate(preds):
            arity, base = self.vocab.predicates[pred], self._base[pred]
            local = torch.arange(self.pool ** arity)
            for region in (0, 1):
                ids = base + local + region * self.atoms
                out[ids, 0] = slot + region * len(preds)
                k = local.clone()
                for j in reversed(range(arity)):  # the mixed-radix digits, last argument first
                    out[ids, 1 + j] = objects[k % self.pool]
                    k = k // self.pool
        return out

