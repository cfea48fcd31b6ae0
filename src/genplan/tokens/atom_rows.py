"""SymT's atom-level inputs (Fritzsche, Gestrin and Seipp, Section 4, "Addressing Atom Order
Symmetries with Encoders"): every atom of the state and of the goal is ONE input token, built from
its predicate and object tokens,

    T_p(o1..on) = W (E[p] | E[o1] | ... | E[on] | E[pad] ... ) + b      (m - n pads, m = max arity)

(the embedding and the linear map live in the model, genplan.models.symt.model); here an atom is
the row of token ids ``[p, o1, ..., on, pad, ...]`` of width 1 + m. Goal atoms take their own
predicates ``goal_<p>`` instead of a separator, so that state and goal form one set; the initial
state's atoms are the fluents and the static atoms (as PlanGPT's prompt,
genplan.tokens.sequences).

The vocabulary is the domain's (genplan.tokens.vocab) with the goal predicates added
(`atom_vocabulary`); plans use its action-schema and object tokens as PlanGPT does.

Row order: the encoder has no positions, so order carries no information; rows are sorted by the
underlying (not renamed) atoms, state atoms first, so that two renamed copies of one example list
corresponding atoms at the same positions (SymT's contrastive losses pair them position by position).
"""

from __future__ import annotations

from collections.abc import Iterable

from genplan.errors import GenplanError
from genplan.pddl_io import Atom
from genplan.tokens.renaming import Renaming
from genplan.tokens.vocab import PAD_ID, Vocabulary

GOAL_PREFIX = "goal_"


def atom_vocabulary(domain_info, object_pool) -> Vocabulary:
    """The domain's vocabulary plus a `goal_<p>` predicate for every predicate p."""
    preds = dict(domain_info.predicates)
    clash = [p for p in preds if f"{GOAL_PREFIX}{p}" in preds]
    if clash:
        raise GenplanError(f"predicate {GOAL_PREFIX}{clash[0]!r} of domain {domain_info.name!r} would be the goal "
                           f"form of {clash[0]!r}", getattr(domain_info, "path", None))
    preds.update({f"{GOAL_PREFIX}{p}": a for p, a in domain_info.predicates.items()})
    return Vocabulary(domain_info.name, preds, domain_info.actions, object_pool)


def check_atom_vocabulary(vocab: Vocabulary, domain_info) -> None:
    """GenplanError unless `vocab` is the atom vocabulary of `domain_info`."""
    if atom_vocabulary(domain_info, dict(vocab.object_pool) if vocab.per_type else vocab.object_pool) != vocab:
        raise GenplanError(f"the model's vocabulary is for domain {vocab.domain!r} (predicates "
                           f"{sorted(vocab.predicates)}), not for domain {domain_info.name!r}",
                           getattr(domain_info, "path", None))


def max_arity(vocab: Vocabulary) -> int:
    """m: the largest predicate arity (at least 1)."""
    return max([1, *vocab.predicates.values()])


def _row(atom: Atom, head: str, renaming: Renaming, vocab: Vocabulary, width: int) -> list[int]:
    pid = vocab.id(head)
    if not vocab.is_predicate(pid):
        raise GenplanError(f"{atom[0]!r} in {atom!r} is not a predicate of domain {vocab.domain!r}")
    if len(atom) - 1 != vocab.arity(head):
        raise GenplanError(f"atom {atom!r} has {len(atom) - 1} arguments, {atom[0]!r} takes {vocab.arity(head)}")
    row = [pid, *(vocab.id(renaming.rename(o)) for o in atom[1:])]
    return row + [PAD_ID] * (width - len(row))


def encode_atom_set(state: Iterable[Atom], goal: Iterable[Atom], renaming: Renaming, vocab: Vocabulary,
                    statics: Iterable[Atom] = frozenset()) -> list[list[int]]:
    """One row [p, o1..on, pad..] (width 1 + max arity) per atom of state | statics, then one per
    goal atom with its goal_ predicate; rows sorted by the underlying atoms (module docstring)."""
    width = 1 + max_arity(vocab)
    init = sorted(set(state) | set(statics))
    rows = [_row(a, a[0], renaming, vocab, width) for a in init]
    rows += [_row(a, f"{GOAL_PREFIX}{a[0]}", renaming, vocab, width) for a in sorted(set(goal))]
    return rows
