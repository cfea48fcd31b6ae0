"""One checkpoint envelope for every model family.

A checkpoint is a `torch.save` of a dict of plain values and tensors, readable with
`torch.load(path, weights_only=True)` (nanoGPT's self-describing checkpoint, generalised):

    format      "genplan-model"
    version     2
    family      "transition" | ... (genplan.registry)
    identity    {name, family, domain (the workflow's key), pddl_domain, seed, ...the family's own}
    weights     a state dict, or bytes (an XGBoost model)
    config      the settings the model was trained with (the config's model entry and the job's)
    vocabulary  what maps problems to model inputs (the WL/FSF encoder; tokens for sequence families)
    training    the training state (epochs, best epoch, optimizer, ...)
    summary     the training summary (also written as summary.json)

Anything else (another format or version) is refused with one message naming the file.
"""

from __future__ import annotations

import io
import math
from pathlib import Path

from genplan import atomic
from genplan.errors import GenplanError

FORMAT = "genplan-model"
VERSION = 2
FIELDS = ("family", "identity", "weights", "config", "vocabulary", "training", "summary")
IDENTITY = ("name", "family", "domain", "seed")


def envelope(family: str, identity: dict, weights, config: dict, vocabulary, training: dict, summary: dict) -> dict:
    missing = [k for k in IDENTITY if k not in {**identity, "family": family}]
    if missing:
        raise ValueError(f"checkpoint identity lacks {missing}")
    return {"format": FORMAT, "version": VERSION, "family": family, "identity": {**identity, "family": family},
            "weights": weights, "config": config, "vocabulary": vocabulary, "training": training, "summary": summary}


def save(path: str | Path, ckpt: dict) -> None:
    """Write atomically (a killed job leaves no checkpoint behind)."""
    import torch

    buf = io.BytesIO()
    torch.save(ckpt, buf)
    atomic.write_bytes(path, buf.getvalue())


def read(path: str | Path, numpy_families: tuple[str, ...] = ()) -> dict:
    """The envelope of a checkpoint file, after checking its format, version and fields. A model of one
    of `numpy_families` is read without torch where genplan.checkpoint_numpy can (its tensors then
    numpy arrays); every other file with torch.load."""
    path = Path(path)
    if not path.is_file():
        raise GenplanError("checkpoint not found", path)
    ckpt = _without_torch(path, numpy_families) if numpy_families else None
    return _checked(ckpt if ckpt is not None else _with_torch(path), path)


CORRUPT = "corrupt or not a genplan checkpoint"


def _without_torch(path: Path, families: tuple[str, ...]):
    from genplan import checkpoint_numpy

    try:
        return checkpoint_numpy.load(path, families)
    except checkpoint_numpy.NeedsTorch:
        return None
    except checkpoint_numpy.Corrupt as exc:
        raise GenplanError(f"{CORRUPT} ({exc})", path) from None


def _with_torch(path: Path):
    import torch

    try:
        return torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # noqa: BLE001 - torch's unpickler raises KeyError, TypeError, ... on a foreign file
        raise GenplanError(f"{CORRUPT} ({type(exc).__name__})", path) from None


def _non_finite(obj, where: str = "weights", depth: int = 0) -> str | None:
    """The place of the first float (a number, an array or a tensor) in `obj` that is NaN or
    infinite: such weights give a model arbitrary outputs, never an error of their own."""
    if depth > 100:
        return None
    if isinstance(obj, float):
        return None if math.isfinite(obj) else where
    if isinstance(obj, dict):
        items = obj.items()
    elif isinstance(obj, (list, tuple)):
        items = enumerate(obj)
    else:
        return None if _finite_array(obj) else where
    for key, value in items:
        found = _non_finite(value, f"{where}.{key}", depth + 1)
        if found:
            return found
    return None


def _finite_array(obj) -> bool:
    """False for a float numpy array or torch tensor holding NaN or an infinity (True for anything else)."""
    import numpy as np

    if isinstance(obj, (np.ndarray, np.floating)):
        return obj.dtype.kind != "f" or bool(np.isfinite(obj).all())
    if type(obj).__module__.startswith("torch") and hasattr(obj, "is_floating_point"):
        import torch

        return not obj.is_floating_point() or bool(torch.isfinite(obj).all())
    return True


def _checked(ckpt, path: Path) -> dict:
    fmt = ckpt.get("format") if isinstance(ckpt, dict) else type(ckpt).__name__
    if fmt != FORMAT:
        raise GenplanError(f"unknown checkpoint format {fmt!r} (expected {FORMAT!r})", path)
    if ckpt.get("version") != VERSION:
        raise GenplanError(f"unsupported checkpoint version {ckpt.get('version')!r} (this genplan reads "
                           f"{VERSION}); retrain it with this genplan (delete it and rerun its training rule)", path)
    identity = ckpt.get("identity", {})
    if not isinstance(identity, dict):
        raise GenplanError(f"corrupt checkpoint: identity is a {type(identity).__name__}, not a mapping", path)
    missing = [k for k in FIELDS if k not in ckpt] + [f"identity.{k}" for k in IDENTITY if k not in identity]
    if missing:
        raise GenplanError(f"corrupt checkpoint: fields {missing} missing", path)
    bad = _non_finite(ckpt["weights"])
    if bad:
        raise GenplanError(f"{CORRUPT} (non-finite weights: NaN or infinite at {bad})", path)
    return ckpt


def check_domain(ckpt: dict, expect_domain: str, path) -> None:
    """GenplanError unless the envelope's model was trained on `expect_domain` (the workflow's key
    or the PDDL domain name)."""
    ident = ckpt["identity"]
    if expect_domain not in (ident["domain"], ident.get("pddl_domain")):
        raise GenplanError(f"checkpoint is a model of domain {ident['domain']!r}, not {expect_domain!r}", path)

