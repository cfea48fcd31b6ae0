"""The token vocabulary of a domain, shared by the sequence families (PlanGPT, SymT, diffusion).

PlanGPT (paper, Section "Preprocessing and Tokeniser") tokenises at word level: a fluent is its
predicate name followed by its objects, an action its schema name followed by its objects, with
special tokens ``<start>``, ``<goal>``, ``<actions>`` (ours: ``<action>``) and ``<end>``. Its
vocabulary is fixed per domain: the predicates, the action schemas and "a predefined set of objects
for each domain", problem objects being renamed into that set per type (genplan.tokens.renaming).

An action schema named as a predicate is (Floortile's `up`, `down`, `left` and `right` are both) takes
the token ``{name}:action`` (``ACTION_MARK``), so that one token never names two things; every other
schema's token is its name. Code that writes or reads an action goes through `action_token` and
`action_words`, never the bare name.

Token order (fixed, deterministic, so that ids never depend on dict or set order):
``SPECIALS`` (ids 0..6, ``<pad>`` = 0), predicate names sorted, action-schema tokens sorted by name, then
the object tokens: a global pool ``o0 .. o{K-1}``, or per-type pools in sorted type order, each
``{type}0 .. {type}{K-1}`` (e.g. ``ball0 .. ball41``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType

from genplan.errors import GenplanError

SPECIALS = ("<pad>", "<start>", "<goal>", "<action>", "<end>", "<mask>", "<sep>")
PAD_ID, START_ID, GOAL_ID, ACTION_ID, END_ID, MASK_ID, SEP_ID = range(len(SPECIALS))
GLOBAL_PREFIX = "o"  # tokens of the global object pool: o0, o1, ...
ACTION_MARK = ":action"  # appended to the token of an action schema that a predicate names too
FORMAT = 1  # version of `to_dict`'s layout


def _count(value, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise GenplanError(f"{what} must be a non-negative integer, not {value!r}")
    return value


class Vocabulary:
    """Specials + predicates + action schemas + object tokens of one domain (see the module doc)."""

    def __init__(self, domain: str, predicates: Mapping[str, int], actions: Mapping[str, int],
                 object_pool: int | Mapping[str, int]):
        self.domain = str(domain)
        self._predicates = {str(p): _count(a, f"arity of predicate {p!r}") for p, a in sorted(predicates.items())}
        self._actions = {str(s): _count(a, f"arity of action {s!r}") for s, a in sorted(actions.items())}
        if isinstance(object_pool, Mapping):
            self.per_type = True
            pool = {str(t): _count(k, f"object pool of type {t!r}") for t, k in sorted(object_pool.items())}
            if any(not t or any(c.isspace() or c in "()" for c in t) for t in pool):
                raise GenplanError(f"bad type name in object pool {sorted(pool)}")
            self._pools = {t: tuple(f"{t}{i}" for i in range(k)) for t, k in pool.items()}
            self._object_pool: int | dict[str, int] = pool
        else:
            self.per_type = False
            k = _count(object_pool, "object pool size")
            self._pools = {None: tuple(f"{GLOBAL_PREFIX}{i}" for i in range(k))}
            self._object_pool = k
        objects = [tok for pool in self._pools.values() for tok in pool]
        self._action_tokens = {a: f"{a}{ACTION_MARK}" if a in self._predicates else a for a in self._actions}
        self._action_names = {t: a for a, t in self._action_tokens.items()}
        self._tokens = (*SPECIALS, *self._predicates, *self._action_tokens.values(), *objects)
        self._ids: dict[str, int] = {}
        for i, tok in enumerate(self._tokens):
            if tok in self._ids:
                raise GenplanError(f"token {tok!r} would name two things in the vocabulary of domain "
                                   f"{self.domain!r} (a predicate, action schema or object token)")
            self._ids[tok] = i
        self._first_action = len(SPECIALS) + len(self._predicates)
        self._first_object = self._first_action + len(self._actions)
        self._pool_of = {tok: t for t, pool in self._pools.items() for tok in pool}

    @classmethod
    def for_domain(cls, domain_info, object_pool: int | Mapping[str, int]) -> "Vocabulary":
        """The vocabulary of a parsed domain (genplan.pddl_io.DomainInfo) with a global pool of
        `object_pool` objects (int) or per-type pools (dict type -> size)."""
        return cls(domain_info.name, domain_info.predicates, domain_info.actions, object_pool)

    # --- serialisation -------------------------------------------------------------------------
    def to_dict(self) -> dict:
        """Plain JSON-able description, stored in checkpoints; `from_dict` rebuilds it."""
        pool = dict(self._object_pool) if self.per_type else self._object_pool
        return {"format": FORMAT, "domain": self.domain, "predicates": dict(self._predicates),
                "actions": dict(self._actions), "object_pool": pool, "tokens": list(self._tokens)}

    @classmethod
    def from_dict(cls, d: Mapping) -> "Vocabulary":
        try:
            if d.get("format") != FORMAT:
                raise GenplanError(f"vocabulary format {d.get('format')!r} is not {FORMAT}")
            vocab = cls(d["domain"], d["predicates"], d["actions"], d["object_pool"])
        except (KeyError, AttributeError, TypeError) as exc:
            raise GenplanError(f"malformed vocabulary description ({type(exc).__name__}: {exc})") from None
        if "tokens" in d and list(d["tokens"]) != list(vocab._tokens):
            raise GenplanError("vocabulary description lists other tokens than its predicates, actions and "
                               "object pools give (written by another version of genplan?)")
        return vocab

    def __eq__(self, other) -> bool:
        return isinstance(other, Vocabulary) and self.to_dict() == other.to_dict()

    def __hash__(self) -> int:
        return hash(self._tokens)

    def __repr__(self) -> str:
        return f"Vocabulary(domain={self.domain!r}, {len(self)} tokens, object_pool={self._object_pool!r})"

    def check_domain(self, domain_info) -> None:
        """GenplanError unless `domain_info` has this vocabulary's predicates and action schemas."""
        if dict(sorted(domain_info.predicates.items())) != self._predicates or \
                dict(sorted(domain_info.actions.items())) != self._actions:
            raise GenplanError(f"the model's vocabulary is for domain {self.domain!r} (predicates "
                               f"{sorted(self._predicates)}, actions {sorted(self._actions)}), not for "
                               f"domain {domain_info.name!r}", getattr(domain_info, "path", None))

    # --- lookup --------------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self._tokens)

    def __contains__(self, token) -> bool:
        return token in self._ids

    @property
    def tokens(self) -> tuple[str, ...]:
        return self._tokens

    def id(self, token: str) -> int:
        try:
            return self._ids[token]
        except (KeyError, TypeError):
            raise GenplanError(f"token {token!r} is not in the vocabulary of domain {self.domain!r} "
                               f"({len(self)} tokens)") from None

    def ids(self, tokens: Iterable[str]) -> list[int]:
        return [self.id(t) for t in tokens]

    def token(self, id: int) -> str:
        if isinstance(id, bool) or not isinstance(id, int) or not 0 <= id < len(self._tokens):
            try:  # numpy and torch integers
                id = int(id)
            except (TypeError, ValueError):
                id = -1
            if not 0 <= id < len(self._tokens):
                raise GenplanError(f"token id {id!r} is outside the vocabulary of domain {self.domain!r} "
                                   f"(ids 0..{len(self) - 1})")
        return self._tokens[id]

    def tokens_of(self, ids: Iterable[int]) -> list[str]:
        return [self.token(i) for i in ids]

    def action_token(self, name: str) -> str:
        """The token of action schema `name` (module doc: `name`, or `name:action` where a predicate is
        named so); an unknown name is returned as it is, for `id` to refuse by name."""
        return self._action_tokens.get(name, name)

    def action_words(self, ids: Iterable[int]) -> list[str]:
        """An action's token ids as words: its schema's name, then its object tokens."""
        tokens = self.tokens_of(ids)
        return [self._action_names.get(tokens[0], tokens[0]), *tokens[1:]] if tokens else []

    # --- special ids ---------------------------------------------------------------------------
    pad_id = property(lambda self: PAD_ID)
    start_id = property(lambda self: START_ID)
    goal_id = property(lambda self: GOAL_ID)
    action_id = property(lambda self: ACTION_ID)
    end_id = property(lambda self: END_ID)
    mask_id = property(lambda self: MASK_ID)
    sep_id = property(lambda self: SEP_ID)

    # --- kinds ---------------------------------------------------------------------------------
    @property
    def predicates(self) -> Mapping[str, int]:
        """predicate name -> arity, sorted by name."""
        return MappingProxyType(self._predicates)

    @property
    def actions(self) -> Mapping[str, int]:
        """action-schema name -> number of parameters, sorted by name."""
        return MappingProxyType(self._actions)

    @property
    def object_pool(self) -> int | Mapping[str, int]:
        """The global pool size (int), or type -> pool size."""
        return MappingProxyType(self._object_pool) if self.per_type else self._object_pool

    @property
    def types(self) -> tuple[str, ...]:
        """The types with a pool (empty for a global pool)."""
        return tuple(t for t in self._pools if t is not None)

    def predicate_ids(self) -> range:
        return range(len(SPECIALS), self._first_action)

    def action_ids(self) -> range:
        return range(self._first_action, self._first_object)

    def object_ids(self, type: str | None = None) -> range | list[int]:
        if type is None:
            return range(self._first_object, len(self._tokens))
        return [self._ids[t] for t in self.object_tokens(type)]

    def object_tokens(self, type: str | None = None) -> tuple[str, ...]:
        """All object tokens (type None), or the pool of one type (per-type vocabularies only; a
        type without a pool has none)."""
        if type is None:
            return tuple(tok for pool in self._pools.values() for tok in pool)
        if not self.per_type:
            raise GenplanError(f"the vocabulary of domain {self.domain!r} has one global object pool, "
                               f"no pool of type {type!r}")
        return self._pools.get(type, ())

    def object_type(self, token: str) -> str | None:
        """The pool type of an object token (None for the global pool)."""
        if token not in self._pool_of:
            raise GenplanError(f"{token!r} is not an object token of the vocabulary of domain {self.domain!r}")
        return self._pool_of[token]

    def is_special(self, id: int) -> bool:
        return 0 <= id < len(SPECIALS)

    def is_predicate(self, id: int) -> bool:
        return len(SPECIALS) <= id < self._first_action

    def is_action(self, id: int) -> bool:
        return self._first_action <= id < self._first_object

    def is_object(self, id: int) -> bool:
        return self._first_object <= id < len(self._tokens)

    def arity(self, token: str | int) -> int:
        """Arity of a predicate or number of parameters of an action schema (token or id)."""
        if not isinstance(token, str):
            token = self.token(token)
        if token in self._predicates:
            return self._predicates[token]
        if token in self._action_names:
            return self._actions[self._action_names[token]]
        raise GenplanError(f"{token!r} is neither a predicate nor an action schema of domain {self.domain!r}")
