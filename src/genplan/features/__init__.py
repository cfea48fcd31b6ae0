"""State encodings: WL colour counts (wlplan; the transition family and the heuristic family) and
FSF (fixed-size factored; the transition family). `wlplan_edge` converts our atoms and states to
wlplan's objects (the one module that does), `fsf_sizing` sizes FSF slots on every split of a
benchmark, `wlplan_saved` checks a saved wlplan feature generator before wlplan reads it, `base` holds the encoder
interface and the view of one problem.

    enc = make_encoder("wl", domain_file)      # or "fsf"
    enc.fit(train_records)                     # trajectory records of the training split only
    bound = enc.bind(task)                     # one problem (genplan.pddl_io.Task)
    bound.embed(states), bound.embed_goal()    # float32 arrays of width enc.dim
    encoder_from_dict(enc.to_dict())           # the same encoder, e.g. from a checkpoint
"""

from __future__ import annotations

from pathlib import Path

from genplan.features.base import BoundEncoder, Encoder, ProblemView
from genplan.features.fsf import FSFEncoder
from genplan.features.wl import WLEncoder

ENCODERS = {"wl": WLEncoder, "fsf": FSFEncoder}

__all__ = ["BoundEncoder", "Encoder", "ProblemView", "make_encoder", "encoder_from_dict", "ENCODERS"]


def _choose(name: str) -> type[Encoder]:
    if name not in ENCODERS:
        raise ValueError(f"Unknown value {name=}. Must be from {list(ENCODERS)}")
    return ENCODERS[name]


def make_encoder(name: str, domain_file: Path, **params) -> Encoder:
    """A new, unfitted encoder of the domain; params are the encoder's options (WL: iterations,
    multiset_hash, statics; FSF: layout)."""
    return _choose(name)(domain_file, **params)


def encoder_from_dict(d: dict) -> Encoder:
    """The encoder that `Encoder.to_dict` described."""
    return _choose(d.get("name", "?")).from_dict(d)
