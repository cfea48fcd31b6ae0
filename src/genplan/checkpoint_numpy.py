"""A checkpoint read without torch, its tensors as numpy arrays, for the families whose models plan
without torch (the learned heuristic: `Family.numpy_weights`). Importing torch costs a planner 2-3 s
of CPU before its first problem (more on a loaded machine), and the IPC budget counts that loading
(genplan.report.ipc_scores).

A `torch.save` file is a zip holding `<archive>/data.pkl`, a pickle whose tensors are persistent ids
`("storage", <torch.XStorage>, key, location, numel)` rebuilt by `torch._utils._rebuild_tensor_v2`
from the raw little-endian bytes of `<archive>/data/<key>` (torch/serialization.py's zip format).
The unpickler here knows only those globals and `collections.OrderedDict`, as `torch.load`'s
`weights_only` does not let anything else run either; any other global, a big-endian file or a
storage kind not below raises `NeedsTorch`, and the caller reads the file with torch instead."""

from __future__ import annotations

import collections
import io
import pickle
import zipfile
from pathlib import Path

import numpy as np

STORAGES = {"DoubleStorage": np.float64, "FloatStorage": np.float32, "LongStorage": np.int64,
            "IntStorage": np.int32, "ShortStorage": np.int16, "CharStorage": np.int8, "ByteStorage": np.uint8,
            "BoolStorage": np.bool_}


class NeedsTorch(Exception):
    """The file holds something only torch.load reads."""


class _Storage:
    def __init__(self, dtype):
        self.dtype = dtype


class _Tensor:
    """A tensor of the pickle, read from the archive only when the envelope's family wants it."""

    def __init__(self, storage: tuple, offset: int, size, stride, *_):
        self.key, self.dtype = storage
        self.offset, self.size, self.stride = offset, tuple(size), tuple(stride)

    def array(self, archive: zipfile.ZipFile, prefix: str) -> np.ndarray:
        """torch._utils._rebuild_tensor_v2's tensor as an array (a copy: the tensor's own memory)."""
        data = np.frombuffer(archive.read(f"{prefix}data/{self.key}"), dtype=self.dtype)
        if not self.size:
            return data[self.offset].copy()
        strides = tuple(s * data.itemsize for s in self.stride)
        return np.array(np.lib.stride_tricks.as_strided(data[self.offset:], shape=self.size, strides=strides))


def _arrays(obj, archive: zipfile.ZipFile, prefix: str):
    """`obj` with every _Tensor read as an array (dicts, lists and tuples walked)."""
    if isinstance(obj, _Tensor):
        return obj.array(archive, prefix)
    if isinstance(obj, dict):
        return type(obj)((k, _arrays(v, archive, prefix)) for k, v in obj.items())
    if isinstance(obj, (list, tuple)):
        return type(obj)(_arrays(v, archive, prefix) for v in obj)
    return obj


class _Unpickler(pickle.Unpickler):
    def __init__(self, data: bytes):
        super().__init__(io.BytesIO(data))

    def find_class(self, module, name):
        if (module, name) == ("collections", "OrderedDict"):
            return collections.OrderedDict
        if (module, name) == ("torch._utils", "_rebuild_tensor_v2"):
            return _Tensor
        if module == "torch" and name in STORAGES:
            return _Storage(STORAGES[name])
        raise NeedsTorch(f"{module}.{name}")

    def persistent_load(self, pid):
        if not (isinstance(pid, tuple) and pid and pid[0] == "storage" and isinstance(pid[1], _Storage)):
            raise NeedsTorch(f"persistent id {pid!r}")
        return (pid[2], pid[1].dtype)


def load(path: str | Path, families: tuple[str, ...]):
    """What torch.load(path, weights_only=True) returns, tensors as numpy arrays, for a checkpoint
    envelope whose `family` is one of `families` (its tensors are read only then); NeedsTorch otherwise,
    and where only torch can read the file (also for a file that is no zip: the caller's torch.load then
    names the fault)."""
    try:
        with zipfile.ZipFile(path) as archive:
            names = [n for n in archive.namelist() if n.endswith("/data.pkl")]
            if len(names) != 1:
                raise NeedsTorch("no single data.pkl")
            prefix = names[0][: -len("data.pkl")]
            order = f"{prefix}byteorder"
            if order in archive.namelist() and archive.read(order).strip() != b"little":
                raise NeedsTorch("a big-endian file")
            obj = _Unpickler(archive.read(names[0])).load()
            if not (isinstance(obj, dict) and obj.get("family") in families):
                raise NeedsTorch("a model of a family that plans with torch")
            return _arrays(obj, archive, prefix)
    except (zipfile.BadZipFile, pickle.UnpicklingError, EOFError, KeyError, ValueError, TypeError, AttributeError,
            IndexError) as exc:
        raise NeedsTorch(f"{type(exc).__name__}: {exc}") from None
