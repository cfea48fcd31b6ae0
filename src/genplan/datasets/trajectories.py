"""Training data of the transition models: embedded trajectories and their transitions.

A trajectory s_0..s_T of one problem becomes T transitions (s_t, g) -> s_{t+1} (state mode) or
s_{t+1} - s_t (delta mode). The LSTM reads them as sequences, XGBoost as single rows."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from genplan.features import Encoder

MODES = ("state", "delta")


@dataclass
class Trajectory:
    states: np.ndarray  # [T+1, D]
    goal: np.ndarray  # [D]

    def targets(self, mode: str) -> np.ndarray:
        """[T, D]: the next states, or the differences to them."""
        nxt = self.states[1:]
        return nxt if mode == "state" else nxt - self.states[:-1]


def check_mode(mode: str) -> str:
    if mode not in MODES:
        raise ValueError(f"Unknown value {mode=}. Must be from {list(MODES)}")
    return mode


def embed_trajectories(encoder: Encoder, records: list[dict]) -> list[Trajectory]:
    """The embedded trajectories of records with at least one transition."""
    records = [r for r in records if len(r["states"]) > 1]
    return [Trajectory(states, goal) for states, goal in encoder.embed_records(records)]


def as_transitions(trajectories: list[Trajectory]) -> list[Trajectory]:
    """Every transition as a trajectory of its own (two states)."""
    return [Trajectory(t.states[i:i + 2], t.goal) for t in trajectories for i in range(len(t.states) - 1)]


def transition_rows(trajectories: list[Trajectory], mode: str) -> tuple[np.ndarray, np.ndarray]:
    """X [N, 2D] = [s_t, g] and y [N, D] over all transitions, in trajectory order."""
    xs, ys = [], []
    for t in trajectories:
        steps = len(t.states) - 1
        xs.append(np.hstack([t.states[:-1], np.repeat(t.goal[None, :], steps, axis=0)]))
        ys.append(t.targets(mode))
    return np.vstack(xs).astype(np.float32), np.vstack(ys).astype(np.float32)


def count_transitions(trajectories: list[Trajectory]) -> int:
    return sum(len(t.states) - 1 for t in trajectories)
