"""A trained transition model as the decoder uses it: encoder + learner + mode, loaded from the
checkpoint envelope of `genplan.checkpoint` (family "transition").

Its identity holds name, domain (the workflow's key, e.g. ``blocks``), pddl_domain, seed,
encoding, learner, mode and dim; its vocabulary is the encoder (``Encoder.to_dict()``); its
weights the LSTM state dict or XGBoost's UBJ model as bytes; its config the network and training
settings; its training the epochs or rounds, best epoch, best validation loss (and the LSTM
optimizer state)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from genplan import checkpoint
from genplan.datasets.trajectories import MODES
from genplan.errors import GenplanError
from genplan.features import ENCODERS, Encoder, encoder_from_dict
from genplan.models.boosters import booster_from_bytes
from genplan.models.transition import lstm, xgb

LEARNERS = ("lstm", "xgb")


def parse_model_name(name: str) -> tuple[str, str, str]:
    """``wl_xgb_delta`` -> ("wl", "xgb", "delta"): the eight configurations of the paper named as
    it names them; ValueError for an unknown part."""
    parts = name.split("_")
    choices = [f"{e}_{l}_{m}" for e in ENCODERS for l in LEARNERS for m in MODES]
    if len(parts) != 3 or parts[0] not in ENCODERS or parts[1] not in LEARNERS or parts[2] not in MODES:
        raise ValueError(f"Unknown value {name=}. Must be from {choices}")
    return parts[0], parts[1], parts[2]


class TransitionModel:
    """Predicts the embedding of the next state from the current state's and the goal's."""

    family = "transition"

    def __init__(self, ckpt: dict, encoder: Encoder, predictor):
        self.ckpt = ckpt  # the envelope
        ident = ckpt["identity"]
        self.name: str = ident["name"]
        self.domain: str = ident["domain"]
        self.encoding: str = ident["encoding"]
        self.learner: str = ident["learner"]
        self.mode: str = ident["mode"]
        self.seed: int = ident["seed"]
        self.dim: int = ident["dim"]
        self.encoder = encoder
        self._predictor = predictor  # TransitionLSTM (eval mode) or xgboost Booster
        # XGBoost: the booster's trees in the exact NumPy evaluator (forest.py); None: XGBoost predicts
        # (vector leaves of multi_output_tree, on which it is as fast)
        self.forest = xgb.compile_forest(predictor) if self.learner == "xgb" else None

    @property
    def system(self) -> str:
        """As published_results.csv names it: `wl_lstm`, `fsf_xgb`, ..."""
        return f"{self.encoding}_{self.learner}"

    @property
    def variant(self) -> str:
        return self.mode

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
            out = self.forest.predict(X) if self.forest is not None else xgb.predict(self._predictor, X, self.dim)
            new_hidden = None
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
        checkpoint.save(path, self.ckpt)

    @classmethod
    def load(cls, path, expect_domain: str | None = None) -> "TransitionModel":
        """The model in a checkpoint file; GenplanError for a missing, corrupt or foreign file, an
        unknown format or version, or (with expect_domain) a model of another domain."""
        ckpt = checkpoint.read(path)
        if expect_domain is not None:
            checkpoint.check_domain(ckpt, expect_domain, path)
        return cls.from_envelope(ckpt, path)

    @classmethod
    def from_envelope(cls, ckpt: dict, path) -> "TransitionModel":
        ident = ckpt["identity"]
        missing = [k for k in ("encoding", "learner", "mode", "dim") if k not in ident]
        if ckpt["family"] != "transition" or missing:
            raise GenplanError(f"not a transition model (family {ckpt['family']!r}, identity lacks {missing})", path)
        try:
            parse_model_name("_".join((ident["encoding"], ident["learner"], ident["mode"])))
            encoder = encoder_from_dict(ckpt["vocabulary"])
            if ident["learner"] == "xgb":
                predictor = booster_from_bytes(ckpt["weights"])
            else:
                predictor = lstm.TransitionLSTM(lstm.LSTMConfig(**ckpt["config"]["network"]))
                predictor.load_state_dict(ckpt["weights"])
                predictor.eval()
        except GenplanError:
            raise
        except Exception as exc:  # wlplan, xgboost and torch raise their own errors
            raise GenplanError(f"corrupt checkpoint: {type(exc).__name__}: {str(exc)[:200]}", path) from None
        if encoder.dim != ident["dim"]:
            raise GenplanError(f"corrupt checkpoint: encoder dimension {encoder.dim} != model dimension "
                               f"{ident['dim']}", path)
        return cls(ckpt, encoder, predictor)

