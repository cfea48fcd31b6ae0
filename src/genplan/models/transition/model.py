"""A trained transition model as the decoder uses it: encoder + learner + mode, loaded from one
self-describing checkpoint.

Checkpoint (``torch.save`` of a dict of plain values and tensors, readable with
``torch.load(path, weights_only=True)``): format, version, name, domain (the workflow's key,
e.g. ``blocks``), pddl_domain, encoding, learner, mode, seed, dim, config (the job's parameters),
encoder (``Encoder.to_dict()``), weights (LSTM state dict, or XGBoost's UBJ model as bytes),
training (epochs or rounds, best epoch, best validation loss, LSTM optimizer state) and summary."""

from __future__ import annotations

import io
import pickle
import zipfile
from pathlib import Path

import numpy as np
import torch

from genplan import atomic
from genplan.errors import GenplanError
from genplan.features import ENCODERS, Encoder, encoder_from_dict
from genplan.models.transition import lstm, xgb
from genplan.datasets.trajectories import MODES

FORMAT = "genplan-transition-model"
VERSION = 1
LEARNERS = ("lstm", "xgb")


def parse_model_name(name: str) -> tuple[str, str, str]:
    """``wl_xgb_delta`` -> ("wl", "xgb", "delta"); ValueError for an unknown part."""
    parts = name.split("_")
    choices = [f"{e}_{l}_{m}" for e in ENCODERS for l in LEARNERS for m in MODES]
    if len(parts) != 3 or parts[0] not in ENCODERS or parts[1] not in LEARNERS or parts[2] not in MODES:
        raise ValueError(f"Unknown value {name=}. Must be from {choices}")
    return parts[0], parts[1], parts[2]


class TransitionModel:
    """Predicts the embedding of the next state from the current state's and the goal's."""

    def __init__(self, ckpt: dict, encoder: Encoder, predictor):
        self.ckpt = ckpt
        self.name: str = ckpt["name"]
        self.domain: str = ckpt["domain"]
        self.encoding: str = ckpt["encoding"]
        self.learner: str = ckpt["learner"]
        self.mode: str = ckpt["mode"]
        self.seed: int = ckpt["seed"]
        self.dim: int = ckpt["dim"]
        self.encoder = encoder
        self._predictor = predictor  # TransitionLSTM (eval mode) or xgboost Booster

    def predict_next(self, state_emb: np.ndarray, goal_emb: np.ndarray) -> np.ndarray:
        """state_emb [B, D], goal_emb [D] -> predicted next-state embeddings [B, D], one model call."""
        pred, _ = self.predict_next_recurrent(state_emb, goal_emb, None)
        return pred

    def predict_next_recurrent(self, state_emb: np.ndarray, goal_emb: np.ndarray, hidden=None):
        """As `predict_next`, for decoders that carry the LSTM's memory along each path (as the
        reference does): returns (predictions [B, D], new hidden state). `hidden` is None at a
        path's start, else the value returned for the B paths' previous steps (rows in order);
        XGBoost has no memory and always returns None."""
        state_emb = np.asarray(state_emb, dtype=np.float32).reshape(-1, self.dim)
        goal_emb = np.asarray(goal_emb, dtype=np.float32).reshape(self.dim)
        if self.learner == "xgb":
            X = np.hstack([state_emb, np.repeat(goal_emb[None, :], len(state_emb), axis=0)])
            out, new_hidden = xgb.predict(self._predictor, X, self.dim), None
        else:
            with torch.no_grad():
                states = torch.from_numpy(state_emb)[:, None, :]
                goals = torch.from_numpy(goal_emb)[None, :].expand(len(state_emb), -1)
                if hidden is not None:
                    hidden = tuple(torch.from_numpy(h) for h in hidden)
                pred, (h, c) = self._predictor(states, goals, hidden)
            out, new_hidden = pred[:, 0, :].numpy(), (h.numpy(), c.numpy())
        return (state_emb + out if self.mode == "delta" else out), new_hidden

    def distance(self, predicted: np.ndarray, candidates: np.ndarray) -> np.ndarray:
        """predicted [D] or [B, D] vs candidates [K, D] -> [K] or [B, K]: 1 - cosine (state mode)
        or Euclidean distance (delta mode), as the reference decoder."""
        pred = np.asarray(predicted, dtype=np.float64)
        cand = np.asarray(candidates, dtype=np.float64)
        single = pred.ndim == 1
        pred = pred.reshape(-1, cand.shape[1])
        if self.mode == "delta":
            d = np.sqrt(np.maximum(((pred[:, None, :] - cand[None, :, :]) ** 2).sum(-1), 0.0))
        else:  # torch's cosine_similarity: eps 1e-8 on each norm
            pn = np.maximum(np.linalg.norm(pred, axis=1), 1e-8)
            cn = np.maximum(np.linalg.norm(cand, axis=1), 1e-8)
            d = 1.0 - (pred @ cand.T) / (pn[:, None] * cn[None, :])
        return d[0] if single else d

    def save(self, path: str | Path) -> None:
        save_checkpoint(path, self.ckpt)

    @classmethod
    def load(cls, path, expect_domain: str | None = None) -> "TransitionModel":
        """The model in a checkpoint; GenplanError for a missing, corrupt or foreign file, an
        unknown format or version, or (with expect_domain) a model of another domain."""
        ckpt = read_checkpoint(path)
        if expect_domain is not None and expect_domain not in (ckpt["domain"], ckpt.get("pddl_domain")):
            raise GenplanError(f"checkpoint is a model of domain {ckpt['domain']!r}, not {expect_domain!r}", path)
        try:
            encoder = encoder_from_dict(ckpt["encoder"])
            if ckpt["learner"] == "xgb":
                predictor = xgb.booster_from_bytes(ckpt["weights"])
            else:
                predictor = lstm.TransitionLSTM(lstm.LSTMConfig(**ckpt["config"]["network"]))
                predictor.load_state_dict(ckpt["weights"])
                predictor.eval()
        except GenplanError:
            raise
        except Exception as exc:  # wlplan, xgboost and torch raise their own errors
            raise GenplanError(f"corrupt checkpoint: {type(exc).__name__}: {str(exc)[:200]}", path) from None
        if encoder.dim != ckpt["dim"]:
            raise GenplanError(f"corrupt checkpoint: encoder dimension {encoder.dim} != model dimension {ckpt['dim']}", path)
        return cls(ckpt, encoder, predictor)


def save_checkpoint(path: str | Path, ckpt: dict) -> None:
    """Write atomically (a killed job leaves no checkpoint behind)."""
    buf = io.BytesIO()
    torch.save(ckpt, buf)
    atomic.write_bytes(path, buf.getvalue())


def read_checkpoint(path: str | Path) -> dict:
    """The checkpoint dict after checking its format, version and fields."""
    path = Path(path)
    if not path.is_file():
        raise GenplanError("checkpoint not found", path)
    try:
        ckpt = torch.load(path, map_location="cpu", weights_only=True)
    except (pickle.UnpicklingError, zipfile.BadZipFile, RuntimeError, EOFError, ValueError, OSError) as exc:
        raise GenplanError(f"corrupt or not a genplan checkpoint ({type(exc).__name__})", path) from None
    if not isinstance(ckpt, dict) or ckpt.get("format") != FORMAT:
        fmt = ckpt.get("format") if isinstance(ckpt, dict) else type(ckpt).__name__
        raise GenplanError(f"unknown checkpoint format {fmt!r} (expected {FORMAT!r})", path)
    if ckpt.get("version") != VERSION:
        raise GenplanError(f"unsupported checkpoint version {ckpt.get('version')!r} (this genplan reads {VERSION})", path)
    missing = [k for k in ("name", "domain", "encoding", "learner", "mode", "seed", "dim", "config",
                           "encoder", "weights") if k not in ckpt]
    if missing:
        raise GenplanError(f"corrupt checkpoint: fields {missing} missing", path)
    try:
        parse_model_name(ckpt["name"])
    except ValueError as exc:
        raise GenplanError(f"corrupt checkpoint: {exc}", path) from None
    return ckpt
