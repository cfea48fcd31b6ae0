"""WL features (wlplan): ILG graphs of state and goal, `iterations` rounds of colour refinement,
raw colour counts over the colours collected on every state of every training trajectory.

Colours first seen after `fit` are dropped by wlplan (they count in its unseen statistics), so
the dimension is fixed by the training data. The fitted generator is stored in `to_dict` as
the text of wlplan's own save file.

Every graph holds the problem's static atoms besides the state's fluents, at training and at
inference alike; `statics=False` leaves them out of both (the other consistent choice; the
reference had them at training only, its "statics at training only")."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from wlplan.data import DomainDataset, ProblemDataset

from genplan.errors import GenplanError
from genplan.features import wlplan_edge as edge
from genplan.features.base import BoundEncoder, Encoder, ProblemView, record_states


class WLEncoder(Encoder):
    name = "wl"

    def __init__(self, domain_file: str | Path, iterations: int = 2, multiset_hash: bool = True,
                 statics: bool = True, pruning: str = "none"):
        self.domain_file = Path(domain_file)
        self.iterations = int(iterations)
        self.multiset_hash = bool(multiset_hash)
        self.statics = bool(statics)  # False: static atoms left out of every graph, training and inference
        if pruning not in edge.PRUNING:
            raise GenplanError(f"unknown WL pruning {pruning!r} (wlplan's: {list(edge.PRUNING)})")
        self.pruning = pruning  # wlplan's feature pruning, applied when the colours are collected
        self.domain = edge.load_domain(domain_file)
        self._fg = None
        self._active: WLBound | None = None

    @property
    def dim(self) -> int:
        return self._generator().get_n_features()

    def _generator(self):
        if self._fg is None:
            raise RuntimeError("WL encoder used before fit")
        return self._fg

    def fit(self, problems: list[dict]) -> None:
        if not problems:
            raise GenplanError("no training trajectories to collect WL colours from")
        fg = self.new_generator()
        data = []
        for record in problems:
            conv = self._converter(ProblemView.from_record(record))
            data.append(ProblemDataset(conv.problem, [conv.state(s) for s in record_states(record)]))
        edge.collect(fg, DomainDataset(self.domain, data))
        self._fg, self._active = fg, None

    def new_generator(self):
        """An unfitted wlplan generator with this encoder's options."""
        return edge.new_generator(self.domain, self.iterations, self.multiset_hash, self.pruning)

    def collected(self, dataset, domain_file: str) -> tuple["WLEncoder", object]:
        """(a new encoder with these options and the colours of `dataset`, a wlplan DomainDataset, naming
        `domain_file` as its domain; the wlplan generator that collected them)."""
        fg = self.new_generator()
        edge.collect(fg, dataset)
        return WLEncoder.from_dict({**self.to_dict(generator=False), "domain_file": str(domain_file),
                                    "generator": edge.generator_to_text(fg)}), fg

    def _converter(self, view: ProblemView) -> edge.ProblemConverter:
        statics = view.statics if self.statics else frozenset()
        return edge.ProblemConverter(self.domain, view.objects, statics, view.goal, view.path)

    def bind_view(self, problem: ProblemView) -> "WLBound":
        self._generator()
        return WLBound(self, problem, self._converter(problem))

    def activate(self, bound: "WLBound"):
        """The generator with `bound`'s problem set (wlplan holds one problem at a time)."""
        fg = self._generator()
        if self._active is not bound:
            fg.set_problem(bound.converter.problem)
            self._active = bound
        return fg

    def to_dict(self, generator: bool = True) -> dict:
        d = {"name": self.name, "domain_file": str(self.domain_file), "iterations": self.iterations,
             "multiset_hash": self.multiset_hash, "statics": self.statics, "pruning": self.pruning}
        if generator:
            d["generator"] = edge.generator_to_text(self._generator())
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "WLEncoder":
        enc = cls.__new__(cls)
        enc.domain_file = Path(d["domain_file"])
        enc.iterations = int(d["iterations"])
        enc.multiset_hash = bool(d["multiset_hash"])
        enc.statics = bool(d.get("statics", True))  # checkpoints written before the option embedded statics
        enc.pruning = d.get("pruning", "none")  # checkpoints written before the option did not prune
        enc.domain = edge.domain_from_saved(d["generator"])
        enc._fg = edge.generator_from_text(d["generator"])
        enc._active = None
        return enc


class WLBound(BoundEncoder):
    def __init__(self, encoder: WLEncoder, problem: ProblemView, converter: edge.ProblemConverter):
        super().__init__(encoder, problem)
        self.converter = converter

    def _embed_wl(self, wl_states) -> np.ndarray:
        fg = self.encoder.activate(self)
        try:
            rows = [fg.embed(s) for s in wl_states]
        except (RuntimeError, ValueError) as exc:
            raise GenplanError(f"wlplan cannot embed a state of {self.problem.name}: {exc}", self.problem.path) from None
        return np.asarray(rows, dtype=np.float32).reshape(len(rows), self.encoder.dim)

    def embed(self, states: list[frozenset]) -> np.ndarray:
        return self._embed_wl([self.converter.state(s) for s in states])

    def embed_goal(self) -> np.ndarray:
        return self._embed_wl([self.converter.goal_state()])[0]
