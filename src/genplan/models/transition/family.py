"""The transition family in the registry (genplan.registry): the state-centric paper's WL/FSF
encodings with an LSTM or XGBoost learner, in state or delta mode, trained on VAL trajectories
and planned with Algorithm 1's beam (`beam<W>-pooled`, `beam<W>-reference`, `-nostatics`).

A model entry of the config:

    wl_lstm_state:
      family: transition
      encoding: wl            # wl | fsf
      learner: lstm           # lstm | xgb
      mode: state             # state | delta
      encoder: {iterations: 2, multiset_hash: true}   # the encoding's options (FSF: layout, slots:
                                                      #   train_validation | all_splits)
      train: {epochs: 500, ...}                       # the learner's options
      decode: {horizon_min: 100, horizon_per_object: 10}
      seeds: [13]
      strategies: [beam3-pooled, beam3-reference]
"""

from __future__ import annotations

from pathlib import Path

from genplan.models.transition import PLANNING_KEYS  # noqa: F401 (the registry reads it here)
from genplan.planners import strategies


def identity(settings: dict) -> tuple[str, str]:
    """(system, variant) as the published results name them: (`wl_lstm`, `state`)."""
    return f"{settings['encoding']}_{settings['learner']}", settings["mode"]


ARCHITECTURE = {"lstm": "2-layer LSTM", "xgb": "gradient boosting"}  # per learner


def size_entry(summary: dict) -> tuple[str, str, str]:
    """(system, variant, architecture) of a training summary in the model-sizes table: one row per
    encoding and learner, state and delta mode together."""
    return summary["system"], summary["learner"], ARCHITECTURE[summary["learner"]]


def check(name: str, settings: dict) -> list[str]:
    problems = []
    if settings.get("encoding") == "fsf":
        for s in settings.get("strategies", []):
            try:
                if strategies.parse(s).kind == "beam" and not strategies.parse(s)["statics"]:
                    problems.append(f"strategy {s!r} drops static atoms from WL embeddings; an FSF model never "
                                    "embeds them")
            except ValueError:
                pass  # reported by the registry
        if (settings.get("encoder") or {}).get("statics") is not None:
            problems.append("encoder.statics is a WL option")
    elif (settings.get("encoder") or {}).get("slots") is not None:
        problems.append("encoder.slots is an FSF option")
    return problems


def train(name: str, settings: dict, domain: str, data: dict, seed: int, out, log_csv=None, summary_json=None,
          threads: int = 1, device: str = "auto", on_epoch=None) -> dict:
    """One training job. data: {"train": [trajectories.json.gz], "validation": [...]}."""
    from genplan.models.transition.train import train_model

    params = {"encoder": settings.get("encoder") or {}, "learner": settings.get("train") or {},
              "device": device, "threads": threads}
    spec = (settings["encoding"], settings["learner"], settings["mode"])
    return train_model(name, domain, _one(data, "train"), _one(data, "validation"), params, seed, out, log_csv,
                       summary_json, on_epoch=on_epoch, spec=spec)


def _one(data: dict, split: str) -> Path:
    files = data.get(split) or []
    if len(files) != 1 or not str(files[0]).endswith(".json.gz"):
        raise ValueError(f"the transition family trains on one trajectories file per split; {split}: {files}")
    return Path(files[0])


def load(envelope: dict, path):
    from genplan.models.transition.model import TransitionModel

    return TransitionModel.from_envelope(envelope, path)


def planner(model, strategy, settings: dict):
    from genplan.planners.beam import BeamPlanner

    return BeamPlanner(model, strategy, (settings or {}).get("decode"))
