"""The LSTM transition model (state-centric paper, appendix G.2) and its training.

Input at step t: [phi(s_t), phi(g)] (2D); a 2-layer LSTM (256 hidden); head Linear(256, D) in
delta mode, Linear-LayerNorm-ReLU-Linear in state mode. Loss 1 - cosine (state) or MSE on the
delta; Adam; the epoch with the lowest validation loss is kept (its weights copied).

Training runs in the shared job and loop (genplan.training), which makes it resumable: every
`checkpoint_every` epochs the full training state is written atomically to `<out>.partial`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from genplan.datasets.trajectories import Trajectory, as_transitions, check_mode
from genplan.training import LoopConfig


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


def loop_config(opts: LSTMTraining) -> LoopConfig:
    """The paper's optimisation in the shared loop: Adam (AdamW without weight decay), betas
    (0.9, 0.999), eps 1e-8, constant learning rate, no clipping, float32 also on CUDA (the
    reference's precision; WL counts lose digits in bfloat16), the lowest validation loss kept."""
    return LoopConfig(epochs=opts.epochs, lr=opts.lr, schedule="constant", betas=(0.9, 0.999), eps=1e-8,
                      weight_decay=0.0, grad_clip=None, bf16=False, higher_is_better=False,
                      checkpoint_every=opts.checkpoint_every)


def training_parts(model: TransitionLSTM, train: list[Trajectory], val: list[Trajectory], opts: LSTMTraining,
                   device) -> tuple:
    """What the shared loop needs of the LSTM: (loss_fn, make_batches, select), select the mean
    validation loss; with `context: transition` every step is a sequence of its own."""
    if opts.context == "transition":
        train, val = as_transitions(train), as_transitions(val)
    elif opts.context != "trajectory":
        raise ValueError(f"Unknown value {opts.context=}. Must be from ['trajectory', 'transition']")
    mode = model.cfg.mode

    def make_batches(gen: torch.Generator):
        order = torch.randperm(len(train), generator=gen).tolist()
        return (_batch([train[j] for j in order[i:i + opts.batch_size]], mode, device)
                for i in range(0, len(order), opts.batch_size))

    def loss_fn(net: TransitionLSTM, batch) -> torch.Tensor:
        inputs, goals, targets, mask = batch
        pred, _ = net(inputs, goals)
        return step_losses(pred[mask], targets[mask], mode).mean()

    return loss_fn, make_batches, lambda net: evaluate(net, val, opts.batch_size, device)
