"""The encoder protocol shared by the WL and FSF state encodings.

An `Encoder` is fitted once per domain on the training trajectories and then bound to one
problem at a time (`bind`), giving a `BoundEncoder` that embeds that problem's fluent states.
Static atoms are kept apart in the package's representation; a bound encoder adds the problem's
statics to every state itself, so that training and inference embed the very same graphs
(the reference added them at training only: its "statics at training only").
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from genplan.pddl_io import Task, str_to_atom


@dataclass(frozen=True)
class ProblemView:
    """What an encoder needs of one problem: its objects, static atoms and positive goal."""

    name: str
    objects: tuple[str, ...]
    statics: frozenset
    goal: frozenset
    path: Path | None = None

    @classmethod
    def from_task(cls, task: Task) -> "ProblemView":
        return cls(task.name, tuple(task.objects), frozenset(task.statics), frozenset(task.goal), task.path)

    @classmethod
    def from_record(cls, record: dict) -> "ProblemView":
        """A trajectory record (statics, goal, states as atom strings). Records do not list the
        objects, so they are those named by some atom; every object of the four domains is."""
        statics = frozenset(str_to_atom(s) for s in record["statics"])
        goal = frozenset(str_to_atom(s) for s in record["goal"])
        objects = {o for atom in statics | goal for o in atom[1:]}
        for state in record["states"]:
            objects.update(o for s in state for o in str_to_atom(s)[1:])
        return cls(record.get("problem", "?"), tuple(sorted(objects)), statics, goal)


def record_states(record: dict) -> list[frozenset]:
    """The fluent states of a trajectory record, in the package's representation."""
    return [frozenset(str_to_atom(s) for s in state) for state in record["states"]]


class BoundEncoder:
    """An encoder bound to one problem: embeds that problem's fluent states and its goal."""

    def __init__(self, encoder: "Encoder", problem: ProblemView):
        self.encoder = encoder
        self.problem = problem

    def embed(self, states: list[frozenset]) -> np.ndarray:
        """[n, dim] float32 embeddings of fluent-atom states (statics are added inside)."""
        raise NotImplementedError

    def embed_goal(self) -> np.ndarray:
        """[dim] float32 embedding of the state made of the positive goal atoms."""
        raise NotImplementedError


class Encoder:
    """A state encoding of one domain; subclasses set `name` and implement the methods."""

    name: str = ""
    # whether `fit` must also see the validation problems: FSF must (its slots have to hold the
    # validation problems, which select the model); WL collects colours on the training split only
    fit_on_validation: bool = False

    @property
    def dim(self) -> int:
        raise NotImplementedError

    def fit(self, problems: list[dict]) -> None:
        """Collect the vocabulary (WL) or slot sizes (FSF) from training trajectory records."""
        raise NotImplementedError

    def bind(self, task: Task) -> BoundEncoder:
        return self.bind_view(ProblemView.from_task(task))

    def bind_record(self, record: dict) -> BoundEncoder:
        """Bind to the problem of a trajectory record (training and validation data)."""
        return self.bind_view(ProblemView.from_record(record))

    def bind_view(self, problem: ProblemView) -> BoundEncoder:
        raise NotImplementedError

    def to_dict(self) -> dict:
        """The full state (JSON-serialisable), read back by `encoder_from_dict`."""
        raise NotImplementedError

    def embed_records(self, records: list[dict]) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per record: its state embeddings [T+1, dim] and its goal embedding [dim]."""
        out = []
        for record in records:
            bound = self.bind_record(record)
            out.append((bound.embed(record_states(record)), bound.embed_goal()))
        return out
