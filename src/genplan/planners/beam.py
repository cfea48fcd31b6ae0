"""Neuro-symbolic plan decoding of the state-centric paper (Algorithm 1, beam width 3).

The true symbolic state is kept at every step: successors come from pymimir, never from the model.
Per step the decoder makes ONE `predict_next` call for all beam entries (a memoryless model's
prediction is kept by state, so an entry predicted before is not asked again) and ONE `embed` call
for all new candidate successors of all entries (embeddings are cached by state), then scores each
candidate by its parent's cumulative distance plus the mode's distance between the parent's
predicted next-state embedding and the candidate's embedding.

Two beams (`DecodeConfig.beam_kind`; strategies `beam<W>-pooled`, `beam<W>-reference`):

- ``pooled`` (default): the candidates of every beam entry are pooled, a state reached by two
  entries is kept once (lowest score), and the pool is pruned to the beam width; a path never
  revisits a state of its own (the initial state included). The search stops at a goal state of
  the beam, at the horizon, or when no entry has an unvisited successor (dead end).
- ``reference``: the reference implementation's decoder, its idling beam included
  (docs/results/state-centric.md, "The reference implementation's defects"): entries are expanded in beam order with the goal test at
  the start of an expansion, the prune sits inside the loop over entries, and the loop breaks
  when the candidates gathered so far are empty. When the best entry has no unvisited successor
  the beam therefore never changes and the search idles until the horizon; the decoder detects
  this fixed point and reports it as ``idle`` with ``steps == horizon`` without burning the idle
  iterations (their outcome is determined).

Independently of the beam, ``statics=False`` (strategy suffix ``-nostatics``) embeds the states
at inference WITHOUT the problem's static atoms, as the reference's
pyperplan grounding does, although training embedded them with (its "statics at training only"). It exists to
measure the static-atom fix (``reference-nostatics`` is the reference's decoder as written, its
pyperplan operator pruning aside) and applies to WL encodings only: FSF never embeds static atoms.

Both beams break score ties by the plan's text, as the reference does, and both keep the
initial state on every path's visited set (so a Gripper robot that first moves to the empty room
has no unvisited successor: the reference beam then idles, as observed for its XGBoost models).
A recurrent model (LSTM with `predict_next_recurrent`) carries its memory along each path, as
the reference's LSTM decoder does (`DecodeConfig.memory`). `BeamPlanner` is the planner
interface (genplan.planners.base) over `decode`.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field

import numpy as np

from genplan.errors import GenplanError
from genplan.features.base import ProblemView
from genplan.pddl_io import Action, Task, atom_to_str

BEAM_KINDS = ("pooled", "reference")


@dataclass(frozen=True)
class DecodeConfig:
    """Decoder settings; the horizon is ``max(horizon_min, horizon_per_object * |objects|)``.
    The beam (`beam_kind`) and whether inference embeds static atoms (`statics`) are two
    independent switches (strategy names `beam3-pooled`, `beam3-reference-nostatics`, ...)."""

    beam: int = 3
    beam_kind: str = "pooled"
    statics: bool = True  # False: embed inference states without static atoms (statics at training only)
    horizon_min: int = 100
    horizon_per_object: int = 10
    memory: bool = True  # carry a recurrent model's memory (LSTM h, c) along each path

    def __post_init__(self):
        if self.beam_kind not in BEAM_KINDS:
            raise ValueError(f"Unknown value beam_kind={self.beam_kind!r}. Must be from {list(BEAM_KINDS)}")
        if self.beam < 1 or self.horizon_min < 0 or self.horizon_per_object < 0:
            raise ValueError(f"invalid decoder settings: {self}")

    @property
    def drop_statics(self) -> bool:
        return not self.statics

    @property
    def beam_mode(self) -> str:
        """The decoder's name in the state-centric report: `pooled`, `reference-nostatics`, ..."""
        return self.beam_kind + ("" if self.statics else "-nostatics")

    def horizon(self, num_objects: int) -> int:
        return max(self.horizon_min, self.horizon_per_object * num_objects)

    @classmethod
    def from_strategy(cls, strategy, settings: dict | None = None) -> "DecodeConfig":
        """From a `beam` strategy (genplan.planners.strategies) and the model's `decode` settings
        (horizon_min, horizon_per_object, memory)."""
        if strategy.kind != "beam":
            raise ValueError(f"the beam decoder cannot run strategy {strategy.name!r}")
        return cls(beam=strategy["width"], beam_kind=strategy["beam"], statics=strategy["statics"],
                   **(settings or {}))


@dataclass
class DecodeResult:
    plan: list[Action]
    solved: bool  # the decoder reached a goal state (VAL is the caller's check)
    steps: int  # search iterations (reference mode: idle iterations included)
    time: float  # seconds, binding the encoder included
    expansions: int  # beam entries whose successors were generated
    embedded: int  # distinct states embedded (initial state included)
    horizon: int
    reason: str  # goal | horizon | dead_end | idle
    predict_calls: int = 0
    embed_calls: int = 0


@dataclass
class _Entry:
    score: float
    state: object  # pymimir state
    fluents: frozenset
    path: set  # fluent states on this entry's path (its own visited set)
    plan: list[Action] = field(default_factory=list)
    plan_text: str = "[]"  # str() of the plan's action strings: the reference's tie-breaker
    hidden: tuple | None = None  # a recurrent model's memory after reading this path (h, c)


class _EmbeddingCache:
    """Embeddings by state in a growing matrix; `rows` embeds unseen states in one batched call."""

    def __init__(self, bound):
        self.bound = bound
        self.index: dict[frozenset, int] = {}
        self.buffer = np.zeros((0, 0))
        self.calls = 0

    @property
    def matrix(self) -> np.ndarray:
        return self.buffer[: len(self.index)]

    def rows(self, states: list[frozenset]) -> list[int]:
        new = list(dict.fromkeys(s for s in states if s not in self.index))
        if new:
            emb = np.asarray(self.bound.embed(new))
            if emb.ndim != 2 or emb.shape[0] != len(new):
                raise RuntimeError(f"embed returned shape {emb.shape} for {len(new)} states")
            n = len(self.index)
            if n + len(new) > self.buffer.shape[0]:
                grown = np.zeros((max(2 * self.buffer.shape[0], n + len(new), 64), emb.shape[1]), dtype=emb.dtype)
                if n:
                    grown[:n] = self.buffer[:n]
                self.buffer = grown
            self.buffer[n : n + len(new)] = emb
            for i, s in enumerate(new):
                self.index[s] = n + i
            self.calls += 1
        return [self.index[s] for s in states]


def child_plan_text(parent: _Entry, action: Action) -> str:
    item = repr(atom_to_str(action))
    return f"[{item}]" if not parent.plan else f"{parent.plan_text[:-1]}, {item}]"


def _bind(encoder, task: Task, cfg: DecodeConfig):
    if not cfg.drop_statics:
        return encoder.bind(task)
    if encoder.name != "wl":
        raise GenplanError(f"decoder {cfg.beam_mode} reproduces a defect of WL embeddings; "
                           f"a {encoder.name} model never embeds static atoms", task.path)
    return encoder.bind_view(dataclasses.replace(ProblemView.from_task(task), statics=frozenset()))


class _Search:
    def __init__(self, model, task: Task, mtask, cfg: DecodeConfig):
        self.model, self.mtask, self.cfg = model, mtask, cfg
        self.horizon = cfg.horizon(task.num_objects)
        self.cache = _EmbeddingCache(_bind(model.encoder, task, cfg))
        self.goal = np.asarray(self.cache.bound.embed_goal())
        self.expansions = 0
        self.predict_calls = 0
        # goal test on fluent states (fetching pymimir's goal condition costs ~1 ms); a goal atom of a
        # static predicate that is not a static atom never appears in a fluent state: never a goal
        self.goal_fluents = frozenset(task.goal - task.statics)
        self.recurrent = cfg.memory and getattr(model, "learner", "") == "lstm" and hasattr(model, "predict_next_recurrent")
        self.new_hidden = None
        self.predicted: dict[int, np.ndarray] = {}  # embedding row -> memoryless prediction

    def is_goal(self, entry: _Entry) -> bool:
        return self.goal_fluents <= entry.fluents

    def start(self) -> _Entry:
        s0 = self.mtask.initial_state()
        f0 = self.mtask.fluents(s0)
        self.cache.rows([f0])
        return _Entry(0.0, s0, f0, {f0})

    def predict(self, beam: list[_Entry]) -> np.ndarray:
        rows = self.cache.rows([e.fluents for e in beam])
        if not self.recurrent:  # a memoryless prediction depends on the state alone: kept by state
            new = [r for r in dict.fromkeys(rows) if r not in self.predicted]
            if new:
                self.predict_calls += 1
                preds = np.asarray(self.model.predict_next(self.cache.matrix[new], self.goal))
                self.predicted.update(zip(new, preds))
            return np.stack([self.predicted[r] for r in rows])
        self.predict_calls += 1
        hidden = None  # the entries of a beam are all at the same depth: all have memory or none
        if beam[0].hidden is not None:
            hidden = tuple(np.concatenate([e.hidden[i] for e in beam], axis=1) for i in range(2))
        preds, self.new_hidden = self.model.predict_next_recurrent(self.cache.matrix[rows], self.goal, hidden)
        return np.asarray(preds)

    def candidates(self, entry: _Entry, rank: int) -> list[tuple]:
        """(rank, action, state, fluents) of the entry's successors not on its own path."""
        self.expansions += 1
        out = []
        for action, state in self.mtask.successors(entry.state):
            fl = self.mtask.fluents(state)
            if fl not in entry.path:
                out.append((rank, action, state, fl))
        return out

    def score(self, beam: list[_Entry], preds: np.ndarray, cands: list[tuple]) -> list[tuple]:
        """(score, plan_text, rank, action, state, fluents), one batched embedding call."""
        rows = self.cache.rows([c[3] for c in cands])
        scored = []
        for rank, entry in enumerate(beam):
            idx = [i for i, c in enumerate(cands) if c[0] == rank]
            if not idx:
                continue
            dist = np.asarray(self.model.distance(preds[rank], self.cache.matrix[[rows[i] for i in idx]]))
            for i, d in zip(idx, dist):
                _, action, state, fl = cands[i]
                scored.append((entry.score + float(d), child_plan_text(entry, action), rank, action, state, fl))
        scored.sort(key=lambda c: (c[0], c[1]))
        return scored

    def child(self, beam: list[_Entry], c: tuple) -> _Entry:
        score, text, rank, action, state, fl = c
        parent = beam[rank]
        hidden = None
        if self.recurrent and self.new_hidden is not None:  # the parent's memory after its step
            hidden = tuple(h[:, rank : rank + 1] for h in self.new_hidden)
        return _Entry(score, state, fl, parent.path | {fl}, parent.plan + [action], text, hidden)

    def result(self, entry: _Entry, solved: bool, steps: int, reason: str, start: float) -> DecodeResult:
        return DecodeResult(
            list(entry.plan), solved, steps, time.perf_counter() - start, self.expansions,
            len(self.cache.index), self.horizon, reason, self.predict_calls, self.cache.calls,
        )


def decode(model, task: Task, mtask, cfg: DecodeConfig | None = None) -> DecodeResult:
    """Decode a plan for `task` (its pymimir twin `mtask`) with a TransitionModel-like `model`."""
    cfg = cfg or DecodeConfig()
    start = time.perf_counter()
    search = _Search(model, task, mtask, cfg)
    if cfg.beam_kind == "reference":
        return _decode_reference(search, start)
    return _decode_pooled(search, start)


def _decode_pooled(search: _Search, start: float) -> DecodeResult:
    beam = [search.start()]
    if search.is_goal(beam[0]):
        return search.result(beam[0], True, 0, "goal", start)
    for step in range(1, search.horizon + 1):
        cands = [c for rank, e in enumerate(beam) for c in search.candidates(e, rank)]
        if not cands:
            return search.result(beam[0], False, step, "dead_end", start)
        kept: dict[frozenset, tuple] = {}
        for c in search.score(beam, search.predict(beam), cands):  # sorted: the first of a state is its best
            if c[5] not in kept:
                kept[c[5]] = c
                if len(kept) == search.cfg.beam:
                    break
        beam = [search.child(beam, c) for c in kept.values()]
        for entry in beam:
            if search.is_goal(entry):
                return search.result(entry, True, step, "goal", start)
    return search.result(beam[0], False, search.horizon, "horizon", start)


def _decode_reference(search: _Search, start: float) -> DecodeResult:
    beam = [search.start()]
    for step in range(1, search.horizon + 1):
        cands: list[tuple] = []
        for rank, entry in enumerate(beam):
            if search.is_goal(entry):
                return search.result(entry, True, step - 1, "goal", start)
            cands.extend(search.candidates(entry, rank))
            if not cands:  # the reference's `break` inside the loop: the beam never changes again
                return search.result(beam[0], False, search.horizon, "idle", start)
        scored = search.score(beam, search.predict(beam), cands)
        beam = [search.child(beam, c) for c in scored[: search.cfg.beam]]
    return search.result(beam[0], False, search.horizon, "horizon", start)


class BeamPlanner:
    """The planner interface (`genplan.planners.base`) over Algorithm 1, for a transition model
    held in memory and a `beam` strategy; `decode` settings: horizon_min, horizon_per_object,
    memory. A problem the model's encoder refuses (FSF slots) comes back as `refused`."""

    def __init__(self, model, strategy, settings: dict | None = None):
        self.model, self.strategy = model, strategy.name
        self.cfg = DecodeConfig.from_strategy(strategy, settings)

    def solve(self, problem):
        """An `Attempt` (genplan.planners.base) for one `Problem`."""
        from genplan.planners.base import Attempt

        start = time.perf_counter()
        try:
            d = decode(self.model, problem.task, problem.mimir, self.cfg)
        except GenplanError as exc:  # e.g. FSF refuses a problem with more objects than slots
            return Attempt([], "refused", time.perf_counter() - start, horizon=self.cfg.horizon(problem.task.num_objects),
                           counters={"message": exc.message})
        return Attempt(d.plan, d.reason, d.time, steps=d.steps, horizon=d.horizon, model_calls=d.predict_calls,
                       states_expanded=d.expansions, counters={"embedded": d.embedded, "embed_calls": d.embed_calls})
