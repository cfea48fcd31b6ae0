"""PlanGPT token sequences (PlanGPT paper, Section "Preprocessing and Tokeniser", Figure 1):

    <start> init-atoms <goal> goal-atoms <action> plan <end>

Each atom is its predicate token followed by its argument (object) tokens, each action its schema
token followed by its argument tokens, objects renamed into the vocabulary (genplan.tokens.renaming).
The initial-atom part is the full initial state: fluent atoms and, when given, static atoms (for
our untyped domains these include the type atoms that PlanGPT adds to typed problems, Section
"Dataset Generation"). PlanGPT sorts the initial atoms; ``order="canonical"`` sorts the atoms by
their token ids (so the order depends on the renamed sequence only), ``"shuffled"`` permutes them
with a seeded Generator. The loss is applied to the plan tokens only (Section "PlanGPT Models":
loss masking keeps the model from learning to generate the initial state and goal).

`ActionParser` follows the grammar of the plan part token by token (a schema, then as many object
tokens as its arity; `<end>` between actions) for constrained decoding.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from genplan.errors import GenplanError
from genplan.pddl_io import Action, Atom
from genplan.tokens.renaming import Renaming
from genplan.tokens.vocab import ACTION_ID, END_ID, GOAL_ID, START_ID, Vocabulary

ORDERS = ("canonical", "shuffled")


class SequenceError(GenplanError, ValueError):
    """A malformed token sequence (a GenplanError and a ValueError)."""


def _atom_ids(atom: Atom, renaming: Renaming, vocab: Vocabulary, kind: str) -> list[int]:
    head = vocab.id(atom[0] if kind == "atom" else vocab.action_token(atom[0]))
    ok = vocab.is_predicate(head) if kind == "atom" else vocab.is_action(head)
    if not ok:
        raise SequenceError(f"{atom[0]!r} in {atom!r} is not {'a predicate' if kind == 'atom' else 'an action schema'}")
    if len(atom) - 1 != vocab.arity(head):
        raise SequenceError(f"{kind} {atom!r} has {len(atom) - 1} arguments, {atom[0]!r} takes {vocab.arity(head)}")
    return [head, *(vocab.id(renaming.rename(o)) for o in atom[1:])]


def encode_atoms(atoms: Iterable[Atom], renaming: Renaming, vocab: Vocabulary, order: str = "canonical",
                 rng: np.random.Generator | None = None) -> list[int]:
    """The token ids of a set of atoms, predicate then arguments, in `order`."""
    if order not in ORDERS:
        raise ValueError(f"Unknown value {order=}. Must be from {list(ORDERS)}")
    encoded = sorted(tuple(_atom_ids(a, renaming, vocab, "atom")) for a in set(atoms))
    if order == "shuffled":
        if rng is None:
            raise ValueError("order='shuffled' needs a numpy Generator (rng)")
        encoded = [encoded[i] for i in rng.permutation(len(encoded))]
    return [i for atom in encoded for i in atom]


def encode_problem(state: Iterable[Atom], goal: Iterable[Atom], renaming: Renaming, vocab: Vocabulary,
                   order: str = "canonical", rng: np.random.Generator | None = None,
                   statics: Iterable[Atom] = frozenset()) -> list[int]:
    """``<start> init-atoms <goal> goal-atoms <action>``: the prompt (init = state plus statics)."""
    init = encode_atoms(set(state) | set(statics), renaming, vocab, order, rng)
    return [START_ID, *init, GOAL_ID, *encode_atoms(goal, renaming, vocab, order, rng), ACTION_ID]


def encode_action(action: Action, renaming: Renaming, vocab: Vocabulary) -> list[int]:
    """One action's ids: its schema's token (`Vocabulary.action_token`) then its arguments' tokens;
    SequenceError for an unknown schema, a wrong arity or an object the renaming does not name."""
    return _atom_ids(action, renaming, vocab, "action")


def encode_plan(actions: Iterable[Action], renaming: Renaming, vocab: Vocabulary) -> list[int]:
    """``plan <end>``: each action its schema token then its argument tokens."""
    return [i for a in actions for i in encode_action(a, renaming, vocab)] + [END_ID]


def make_example(problem_ids: Sequence[int], plan_ids: Sequence[int]) -> tuple[list[int], list[bool]]:
    """The training sequence and its loss mask: True exactly at the plan tokens and `<end>` (the
    tokens predicted after `<action>`). A next-token model predicts ``ids[i]`` from ``ids[:i]``, so
    the targets shifted by one take ``mask[1:]``."""
    problem_ids, plan_ids = [int(i) for i in problem_ids], [int(i) for i in plan_ids]
    if not problem_ids or problem_ids[0] != START_ID or problem_ids[-1] != ACTION_ID:
        raise SequenceError("a problem sequence starts with <start> and ends with <action>")
    if not plan_ids or plan_ids[-1] != END_ID or END_ID in plan_ids[:-1]:
        raise SequenceError("a plan sequence ends with its only <end>")
    return problem_ids + plan_ids, [False] * len(problem_ids) + [True] * len(plan_ids)


def decode_plan(ids: Sequence[int], renaming: Renaming, vocab: Vocabulary) -> list[Action]:
    """The plan (problem objects restored) of plan token ids, read up to `<end>` (padding after it
    is ignored). A whole sequence may be given: reading starts after its `<action>`. Without
    `<end>`, the complete actions are read. SequenceError for an incomplete action, a token that
    is not a schema where an action starts, not an object token where an argument is due, or an
    object token that stands for no object of the problem."""
    ids = [int(i) for i in ids]
    if ACTION_ID in ids:
        ids = ids[ids.index(ACTION_ID) + 1:]
    parser = ActionParser(vocab, renaming)
    for pos, tid in enumerate(ids):
        if parser.ended:
            break
        parser.push(tid, pos)
    if not parser.ended and parser.pending:
        raise SequenceError(f"the plan tokens end inside action {' '.join(vocab.tokens_of(parser.current))!r} "
                            f"({vocab.arity(parser.current[0])} arguments expected)")
    return [renaming.restore_action(vocab.action_words(a)) for a in parser.actions]


class ActionParser:
    """The grammar of plan tokens, one token at a time, for constrained decoding.

    At an action boundary the allowed tokens are the action schemas and `<end>` (when
    `allow_end`); after a schema, object tokens until it has `arity` of them. With a `renaming`,
    only the object tokens standing for the problem's objects are allowed (pool tokens it leaves
    unused stand for nothing)."""

    def __init__(self, vocab: Vocabulary, renaming: Renaming | None = None, allow_end: bool = True):
        self.vocab, self.allow_end = vocab, allow_end
        objects = vocab.object_ids() if renaming is None else sorted(vocab.id(t) for t in renaming.inverse)
        self._objects = tuple(objects)
        self._object_set = frozenset(objects)
        self._boundary = tuple(vocab.action_ids()) + ((END_ID,) if allow_end else ())
        self.reset()

    def reset(self) -> None:
        self.current: list[int] = []  # ids of the action being read (or the last one, when complete)
        self.actions: list[tuple[int, ...]] = []  # ids of the completed actions
        self.ended = False

    @property
    def complete(self) -> bool:
        """Whether `current` is a whole action (schema + arity objects)."""
        return bool(self.current) and len(self.current) == 1 + self.vocab.arity(self.current[0])

    @property
    def pending(self) -> bool:
        """Whether an action has been started and is not complete."""
        return bool(self.current) and not self.complete

    @property
    def expects(self) -> str:
        """``"schema"`` (or `<end>`) at an action boundary, ``"object"`` inside an action,
        ``"nothing"`` after `<end>`."""
        return "nothing" if self.ended else ("object" if self.pending else "schema")

    def allowed_ids(self) -> tuple[int, ...]:
        expects = self.expects
        return () if expects == "nothing" else (self._objects if expects == "object" else self._boundary)

    def allowed_mask(self) -> np.ndarray:
        """A boolean vector over the vocabulary, True at the allowed ids (for masking logits)."""
        mask = np.zeros(len(self.vocab), dtype=bool)
        mask[list(self.allowed_ids())] = True
        return mask

    def push(self, tid: int, pos: int | None = None) -> None:
        """Read one token; SequenceError (naming it, and `pos` when given) if it is not allowed."""
        tid, where = int(tid), "" if pos is None else f" at plan position {pos}"
        expects = self.expects
        if expects == "nothing":
            raise SequenceError(f"token {self._name(tid)}{where} after <end>")
        if expects == "schema":
            if tid == END_ID and self.allow_end:
                self.ended = True
                return
            if not self.vocab.is_action(tid):
                raise SequenceError(f"token {self._name(tid)}{where} where an action schema"
                                    f"{' or <end>' if self.allow_end else ''} is expected")
            self.current = [tid]
        else:
            head = self.vocab.token(self.current[0])
            if not self.vocab.is_object(tid):
                raise SequenceError(f"token {self._name(tid)}{where} where argument {len(self.current)} of "
                                    f"{head!r} (an object token) is expected; {head!r} takes "
                                    f"{self.vocab.arity(head)} arguments")
            if tid not in self._object_set:
                raise SequenceError(f"object token {self._name(tid)}{where} stands for no object of the problem")
            self.current.append(tid)
        if self.complete:
            self.actions.append(tuple(self.current))

    def feed(self, ids: Iterable[int]) -> None:
        for tid in ids:
            self.push(tid)

    def _name(self, tid: int) -> str:
        return repr(self.vocab.token(tid)) if 0 <= tid < len(self.vocab) else f"id {tid}"
