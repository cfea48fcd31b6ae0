"""A checkpoint read without torch, its tensors as numpy arrays, for the families whose models plan
without torch (the learned heuristic: `Family.numpy_weights`). Importing torch costs a planner 2-3 s
of CPU before its first problem (more on a loaded machine), and the IPC budget counts that loading
(genplan.report.ipc_scores).

A `torch.save` file is a zip holding `<archive>/data.pkl`, a pickle whose tensors are persistent ids
`("storage", <torch.XStorage>, key, location, numel)` rebuilt by `torch._utils._rebuild_tensor_v2`
from the raw little-endian bytes of `<archive>/data/<key>` (torch/serialization.py's zip format).
The unpickler here knows only those globals and `collections.OrderedDict`, as `torch.load`'s
`weights_only` does not let anything else run either; any other global, a big-endian file, a file
that is no zip or a storage kind not below raises `NeedsTorch`, and the caller reads the file with
torch instead.

The file is untrusted: every tensor is checked before any array is built, as torch's own loader
does (torch/serialization.py's record-size check, c10's `setStorage` bounds check, `as_strided`'s
refusal of negative strides): a storage record must hold exactly its persistent id's `numel`
elements, and a tensor's sizes, strides (non-negative) and offset must address elements inside it.
numpy's `as_strided` trusts its arguments, so a tensor that reaches past its record would read (or
crash on) memory beyond the buffer. A float tensor holding NaN or an infinity is refused too (a
model's weights are finite numbers). Any such fault, and any other exception while reading, is
`Corrupt`."""

from __future__ import annotations

import collections
import io
import pickle
import pickletools
import zipfile
from pathlib import Path

import numpy as np

STORAGES = {"DoubleStorage": np.float64, "FloatStorage": np.float32, "LongStorage": np.int64,
            "IntStorage": np.int32, "ShortStorage": np.int16, "CharStorage": np.int8, "ByteStorage": np.uint8,
            "BoolStorage": np.bool_}
MAX_DIMS = 64  # far more than any model's tensor has; bounds the work of checking one layout


class NeedsTorch(Exception):
    """The file holds something only torch.load reads."""


class Corrupt(Exception):
    """The file is a torch zip but not a readable checkpoint: what is wrong with it."""


class _Storage:
    def __init__(self, dtype):
        self.dtype = dtype


def _count(value, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise Corrupt(f"{what} {value!r} is not a non-negative integer")
    return value


class _Tensor:
    """A tensor of the pickle, read from the archive only when the envelope's family wants it; its
    layout is checked here, against its storage's numel, before anything is read."""

    def __init__(self, storage, offset=None, size=None, stride=None, *_):
        if not (isinstance(storage, tuple) and len(storage) == 3):
            raise Corrupt("a tensor without a storage record")
        self.key, self.dtype, numel = storage
        if not isinstance(size, (tuple, list)) or not isinstance(stride, (tuple, list)):
            raise Corrupt(f"tensor sizes {size!r} / strides {stride!r} are not sequences")
        if len(size) != len(stride) or len(size) > MAX_DIMS:
            raise Corrupt(f"tensor of {len(size)} sizes and {len(stride)} strides")
        self.offset = _count(offset, "storage offset")
        self.size = tuple(_count(s, "size") for s in size)
        self.stride = tuple(_count(s, "stride") for s in stride)
        # the elements a tensor addresses, as c10's computeStorageNbytes: offset + 1 + sum((size-1)*stride),
        # none for an empty tensor (whatever its offset: torch reads such a tensor too)
        empty = 0 in self.size
        needed = 0 if empty else self.offset + 1 + sum((n - 1) * s for n, s in zip(self.size, self.stride))
        if needed > numel:
            raise Corrupt(f"tensor of sizes {list(self.size)}, strides {list(self.stride)} and offset "
                          f"{self.offset} needs {needed} elements; its storage {self.key!r} holds {numel}")

    def array(self, records) -> np.ndarray:
        """torch._utils._rebuild_tensor_v2's tensor as an array (a copy: the tensor's own memory)."""
        data = records(self.key, self.dtype)
        if not self.size:
            return data[self.offset].copy()
        if 0 in self.size:
            return np.zeros(self.size, dtype=self.dtype)
        strides = tuple(s * data.itemsize for s in self.stride)
        return np.array(np.lib.stride_tricks.as_strided(data[self.offset:], shape=self.size, strides=strides))


class _Records:
    """The storage records of one archive, each read once and checked for its exact length."""

    def __init__(self, archive: zipfile.ZipFile, prefix: str, numels: dict):
        self.archive, self.prefix, self.numels, self.read = archive, prefix, numels, {}

    def __call__(self, key, dtype) -> np.ndarray:
        if key not in self.read:
            name = f"{self.prefix}data/{key}"
            try:
                info = self.archive.getinfo(name)
            except KeyError:
                raise Corrupt(f"no storage record {name}") from None
            expected = self.numels[key] * np.dtype(dtype).itemsize
            if info.file_size != expected:  # before reading: the record's size is the zip's own word
                raise Corrupt(f"storage record {name} holds {info.file_size} bytes, its tensor's "
                              f"{self.numels[key]} elements need {expected}")
            data = self.archive.read(name)
            if len(data) != expected:
                raise Corrupt(f"storage record {name} holds {len(data)} bytes, not {expected}")
            self.read[key] = np.frombuffer(data, dtype=dtype)
        return self.read[key]


def _arrays(obj, records: _Records, where: str = "", depth: int = 0):
    """`obj` with every _Tensor read as an array (dicts, lists and tuples walked); a float array
    holding NaN or an infinity is Corrupt, naming its place."""
    if depth > 100:
        raise Corrupt("nested more than 100 levels deep")
    if isinstance(obj, _Tensor):
        arr = obj.array(records)
        if arr.dtype.kind == "f" and not np.isfinite(arr).all():
            raise Corrupt(f"non-finite weights (NaN or infinite) in tensor {where or '(top level)'}")
        return arr
    if isinstance(obj, dict):
        return type(obj)((k, _arrays(v, records, f"{where}.{k}".lstrip("."), depth + 1)) for k, v in obj.items())
    if isinstance(obj, (list, tuple)):
        return type(obj)(_arrays(v, records, f"{where}[{i}]", depth + 1) for i, v in enumerate(obj))
    return obj


def _prescan(data: bytes) -> None:
    """Corrupt unless every opcode of the pickle is whole and its memo indices are below its count of
    opcodes (a pickler numbers them from 0). CPython's C unpickler sizes its memo by the largest
    index: one LONG_BINPUT of 2^31 in a 400-byte file would allocate gigabytes (found by fuzzing;
    torch's own weights_only unpickler is pure Python and keeps a dict)."""
    ops = 0
    for op, arg, _ in pickletools.genops(data):
        ops += 1
        if op.name in ("PUT", "BINPUT", "LONG_BINPUT") and not (isinstance(arg, int) and 0 <= arg <= ops):
            raise Corrupt(f"pickle memo index {arg} past its {ops} opcodes")


class _Unpickler(pickle.Unpickler):
    def __init__(self, data: bytes):
        _prescan(data)
        super().__init__(io.BytesIO(data))
        self.numels: dict = {}

    def find_class(self, module, name):
        if (module, name) == ("collections", "OrderedDict"):
            return collections.OrderedDict
        if (module, name) == ("torch._utils", "_rebuild_tensor_v2"):
            return _Tensor
        if module == "torch" and name in STORAGES:
            return _Storage(STORAGES[name])
        raise NeedsTorch(f"{module}.{name}")

    def persistent_load(self, pid):
        if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage" and isinstance(pid[1], _Storage)):
            raise NeedsTorch(f"persistent id {pid!r}")
        key, numel = pid[2], _count(pid[4], "storage numel")
        if not isinstance(key, str):
            raise Corrupt(f"storage key {key!r} is not a string")
        if self.numels.setdefault(key, numel) != numel:
            raise Corrupt(f"storage {key!r} given {self.numels[key]} and {numel} elements")
        return (key, pid[1].dtype, numel)


def _unstored(archive: zipfile.ZipFile) -> list[str]:
    """Members not stored as they are: torch writes every record uncompressed, and a compressed one
    could expand without bound when read."""
    return [i.filename for i in archive.infolist() if i.compress_type != zipfile.ZIP_STORED]


def load(path: str | Path, families: tuple[str, ...]):
    """What torch.load(path, weights_only=True) returns, tensors as numpy arrays, for a checkpoint
    envelope whose `family` is one of `families` (its tensors are read only then); NeedsTorch otherwise,
    and where only torch can read the file (also for a file that is no zip: the caller's torch.load then
    names the fault); Corrupt for a file that is a torch zip but no readable checkpoint."""
    try:
        archive = zipfile.ZipFile(path)
    except zipfile.BadZipFile as exc:
        raise NeedsTorch(f"not a zip ({exc})") from None
    try:
        with archive:
            names = [n for n in archive.namelist() if n.endswith("/data.pkl")]
            if len(names) != 1:
                raise NeedsTorch("no single data.pkl")
            if _unstored(archive):
                raise Corrupt(f"compressed member {_unstored(archive)[0]} (torch writes none)")
            prefix = names[0][: -len("data.pkl")]
            order = f"{prefix}byteorder"
            if order in archive.namelist() and archive.read(order).strip() != b"little":
                raise NeedsTorch("a big-endian file")
            unpickler = _Unpickler(archive.read(names[0]))
            obj = unpickler.load()
            if not (isinstance(obj, dict) and obj.get("family") in families):
                raise NeedsTorch("a model of a family that plans with torch")
            return _arrays(obj, _Records(archive, prefix, unpickler.numels))
    except (NeedsTorch, Corrupt):
        raise
    except Exception as exc:  # noqa: BLE001 - an untrusted file: every fault is one message, never a traceback
        raise Corrupt(f"{type(exc).__name__}: {exc}"[:300]) from None
