"""The LSTM transition model (state-centric paper, appendix G.2) and its training loop.

Input at step t: [phi(s_t), phi(g)] (2D); a 2-layer LSTM (256 hidden); head Linear(256, D) in
delta mode, Linear-LayerNorm-ReLU-Linear in state mode. Loss 1 - cosine (state) or MSE on the
delta; Adam; the epoch with the lowest validation loss is kept (its weights copied).

Training is resumable: every `checkpoint_every` epochs the full training state (weights,
optimizer, best weights, shuffling generator, history) is written atomically to `partial`."""

from __future__ import annotations

import copy
import io
import logging
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from genplan import atomic
from genplan.datasets.trajectories import Trajectory, as_transitions, check_mode

log = logging.getLogger("genplan")


@dataclass
class LSTMConfig:
    dim: int
    mode: str
    hidden: int = 256
    layers: int = 2


@dataclass
class LSTMTraining:
    epochs: int = 500
    batch_size: int = 32
    lr: float = 1e-2
    checkpoint_every: int = 10
    context: str = "trajectory"  # "trajectory": whole plans as sequences (paper); "transition": one step each


class TransitionLSTM(nn.Module):
    def __init__(self, cfg: LSTMConfig):
        super().__init__()
        check_mode(cfg.mode)
        self.cfg = cfg
        self.lstm = nn.LSTM(2 * cfg.dim, cfg.hidden, cfg.layers, batch_first=True)
        if cfg.mode == "delta":
            self.head = nn.Linear(cfg.hidden, cfg.dim)
        else:
            self.head = nn.Sequential(nn.Linear(cfg.hidden, cfg.hidden), nn.LayerNorm(cfg.hidden),
                                      nn.ReLU(), nn.Linear(cfg.hidden, cfg.dim))

    def forward(self, states: torch.Tensor, goals: torch.Tensor, hidden=None):
        """states [B, T, D], goals [B, D] -> (predictions [B, T, D], (h, c))."""
        x = torch.cat([states, goals[:, None, :].expand(-1, states.shape[1], -1)], dim=2)
        out, hidden = self.lstm(x, hidden)
        return self.head(out), hidden


def parameter_count(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())


def _batch(trajs: list[Trajectory], mode: str, device) -> tuple[torch.Tensor, ...]:
    """Padded inputs [B, T, D], goals [B, D], targets [B, T, D] and the mask [B, T] of real steps."""
    steps = max(len(t.states) - 1 for t in trajs)
    dim = trajs[0].goal.shape[0]
    inputs = torch.zeros(len(trajs), steps, dim)
    targets = torch.zeros(len(trajs), steps, dim)
    mask = torch.zeros(len(trajs), steps, dtype=torch.bool)
    for i, t in enumerate(trajs):
        n = len(t.states) - 1
        inputs[i, :n] = torch.from_numpy(t.states[:-1])
        targets[i, :n] = torch.from_numpy(t.targets(mode))
        mask[i, :n] = True
    goals = torch.from_numpy(np.stack([t.goal for t in trajs]))
    return inputs.to(device), goals.to(device), targets.to(device), mask.to(device)


def step_losses(pred: torch.Tensor, target: torch.Tensor, mode: str) -> torch.Tensor:
    """Per-step losses [N] of the real steps: 1 - cosine (state) or mean squared error (delta)."""
    if mode == "state":
        return 1.0 - F.cosine_similarity(pred, target, dim=-1)
    return ((pred - target) ** 2).mean(dim=-1)


def evaluate(model: TransitionLSTM, trajs: list[Trajectory], batch_size: int, device) -> float:
    """Mean loss over every real step of the trajectories."""
    model.eval()
    total, count = 0.0, 0
    with torch.no_grad():
        for i in range(0, len(trajs), batch_size):
            inputs, goals, targets, mask = _batch(trajs[i:i + batch_size], model.cfg.mode, device)
            pred, _ = model(inputs, goals)
            losses = step_losses(pred[mask], targets[mask], model.cfg.mode)
            total += losses.sum().item()
            count += losses.numel()
    return total / max(count, 1)


def _save_partial(path: Path, state: dict) -> None:
    buf = io.BytesIO()
    torch.save(state, buf)
    atomic.write_bytes(path, buf.getvalue())


def train_lstm(model: TransitionLSTM, train: list[Trajectory], val: list[Trajectory], opts: LSTMTraining,
               seed: int, device, partial: Path, job: dict, resume: dict | None = None, on_epoch=None) -> dict:
    """Train, resuming from `resume` (a partial state) if given; returns the final training state:
    best_weights, optimizer, epoch, best_epoch, best_val_loss, history, resumed_from, train_time_s.
    `job` (what identifies the job) is stored in every partial state; `on_epoch(epoch)` is called
    after each epoch."""
    if opts.context == "transition":
        train, val = as_transitions(train), as_transitions(val)
    elif opts.context != "trajectory":
        raise ValueError(f"Unknown value {opts.context=}. Must be from ['trajectory', 'transition']")
    model.to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=opts.lr)
    gen = torch.Generator().manual_seed(seed)
    state = {"epoch": 0, "best_epoch": 0, "best_val_loss": float("inf"), "history": [],
             "best_weights": copy.deepcopy(model.state_dict()), "resumed_from": 0, "train_time_s": 0.0}
    if resume is not None:
        model.load_state_dict(resume["weights"])
        optimizer.load_state_dict(resume["optimizer"])
        gen.set_state(resume["generator"])
        state.update({k: resume[k] for k in ("epoch", "best_epoch", "best_val_loss", "history",
                                              "best_weights", "train_time_s")})
        state["resumed_from"] = resume["epoch"]
        log.info("resuming LSTM training after epoch %d", resume["epoch"])
    while state["epoch"] < opts.epochs:
        start = time.perf_counter()
        model.train()
        order = torch.randperm(len(train), generator=gen).tolist()
        batch_losses = []
        for i in range(0, len(order), opts.batch_size):
            inputs, goals, targets, mask = _batch([train[j] for j in order[i:i + opts.batch_size]],
                                                  model.cfg.mode, device)
            pred, _ = model(inputs, goals)
            loss = step_losses(pred[mask], targets[mask], model.cfg.mode).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            batch_losses.append(loss.item())
        val_loss = evaluate(model, val, opts.batch_size, device)
        state["epoch"] += 1
        train_loss = sum(batch_losses) / len(batch_losses)
        state["history"].append([state["epoch"], train_loss, val_loss])
        if val_loss < state["best_val_loss"]:
            state.update(best_val_loss=val_loss, best_epoch=state["epoch"],
                         best_weights={k: v.detach().clone() for k, v in model.state_dict().items()})
        state["train_time_s"] += time.perf_counter() - start
        log.info("epoch %d/%d: train loss %.6f, validation loss %.6f", state["epoch"], opts.epochs, train_loss, val_loss)
        if state["epoch"] % opts.checkpoint_every == 0 and state["epoch"] < opts.epochs:
            _save_partial(partial, {**state, "job": job, "weights": model.state_dict(),
                                    "optimizer": optimizer.state_dict(), "generator": gen.get_state(),
                                    "config": asdict(model.cfg), "training": asdict(opts)})
        if on_epoch is not None:
            on_epoch(state["epoch"])
    state["optimizer"] = optimizer.state_dict()
    return state
