"""TEST HELPER ONLY (never used by the pipeline): checkpoint files written byte by byte in torch.save's
zip format (`<archive>/data.pkl`, `<archive>/data/<key>`, `byteorder`, `version`), with each tensor's
storage record, size, stride and offset chosen freely, so that a test can hand the readers what a
crafted file holds: a tensor reaching past its record, a negative stride, a record shorter than its
numel. The pickle is the one torch writes: `torch._utils._rebuild_tensor_v2(storage, offset, size,
stride, requires_grad, backward_hooks)` with the storage a persistent id `("storage",
torch.<X>Storage, key, "cpu", numel)`."""

from __future__ import annotations

import collections
import io
import pickle
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np


@dataclass
class Tensor:
    """One tensor of a crafted file: `key` names its storage record, whose `numel` the persistent id
    states; size, stride and offset are the tensor's view of it."""

    key: str
    offset: int
    size: tuple
    stride: tuple
    numel: int
    storage: str = "DoubleStorage"

    def __reduce__(self):
        import torch

        return torch._utils._rebuild_tensor_v2, (_Ref(self), self.offset, tuple(self.size), tuple(self.stride), False,
                                                 collections.OrderedDict())


class _Ref:
    def __init__(self, tensor: Tensor):
        self.tensor = tensor


class _Pickler(pickle.Pickler):
    def persistent_id(self, obj):
        if isinstance(obj, _Ref):
            import torch

            t = obj.tensor
            return ("storage", getattr(torch, t.storage), t.key, "cpu", t.numel)
        return None


def pickle_bytes(obj) -> bytes:
    buf = io.BytesIO()
    _Pickler(buf, protocol=2).dump(obj)
    return buf.getvalue()


def write(path: Path, obj, records: dict[str, bytes]) -> Path:
    """A torch.save-format zip of `obj` (Tensor objects in it become tensors) and the raw `records`."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("archive/data.pkl", pickle_bytes(obj))
        archive.writestr("archive/byteorder", "little")
        for key, data in records.items():
            archive.writestr(f"archive/data/{key}", data)
        archive.writestr("archive/version", "3\n")
    return Path(path)


def envelope(w, b=0.5, family: str = "heuristic") -> dict:
    """A checkpoint envelope (genplan.checkpoint) of a linear learned heuristic with weights `w`."""
    return {"format": "genplan-model", "version": 2, "family": family,
            "identity": {"name": "h_ridge", "family": family, "domain": "blocks", "pddl_domain": "blocks",
                         "seed": 0, "learner": "ridge", "dim": 4},
            "weights": {"w": w, "b": b}, "config": {}, "vocabulary": {}, "training": {}, "summary": {}}


WEIGHTS = np.arange(4, dtype=np.float64) + 0.25


def heuristic_file(path: Path, tensor: Tensor | None = None, data: bytes | None = None) -> Path:
    """A learned-heuristic checkpoint whose weight vector is `tensor` over record "0" holding `data`
    (by default a sound 4-vector over the 4 doubles of WEIGHTS)."""
    tensor = tensor or Tensor("0", 0, (4,), (1,), 4)
    return write(path, envelope(tensor), {"0": WEIGHTS.tobytes() if data is None else data})
