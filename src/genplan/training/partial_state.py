"""Partial training states: what a killed training job resumes from.

A partial state is a dict of plain values and tensors (``torch.save``, written atomically,
readable with ``torch.load(path, weights_only=True)``) carrying FORMAT, VERSION and the caller's
``job`` identity. A file that cannot be read, has another format or belongs to another job is
not an error: it is set aside as ``<name>.stale-<UTC timestamp>`` (a warning says where) and the
job starts afresh, so no person has to delete it before the job can run again. Only the KEEP_STALE
newest set-aside states of a file are kept (a warning names each one removed).

The best weights so far live beside it, in ``<partial>.best`` (format BEST_FORMAT, the job and the
optimiser step of the selection that chose them), written only when they change: a partial state
written every few minutes does not carry a second copy of the network each time."""

from __future__ import annotations

import glob
import io
import logging
from datetime import datetime, timezone
from pathlib import Path

import torch

from genplan import atomic

log = logging.getLogger("genplan")

FORMAT = "genplan-training-partial"
VERSION = 1
KEEP_STALE = 3  # set-aside states kept per partial state file, the newest
BEST_FORMAT = "genplan-training-best"


def save_partial(path: str | Path, state: dict, job: dict) -> None:
    """Write `state` with the format, version and `job` atomically (a kill leaves the old file)."""
    buf = io.BytesIO()
    torch.save({**state, "format": FORMAT, "version": VERSION, "job": job}, buf)
    atomic.write_bytes(path, buf.getvalue())


def set_aside(path: Path, why: str) -> Path:
    """Rename `path` to `<name>.stale-<UTC timestamp>` (never over an existing file); log a warning."""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    target = path.with_name(f"{path.name}.stale-{stamp}")
    n = 1
    while target.exists():
        n += 1
        target = path.with_name(f"{path.name}.stale-{stamp}-{n}")
    path.rename(target)
    log.warning("partial training state %s %s; set aside as %s, training starts afresh", path, why, target)
    _keep_newest(path, KEEP_STALE)
    return target


def _keep_newest(path: Path, keep: int) -> None:
    """Remove all but the `keep` newest states set aside from `path` (their names sort by time)."""
    stale = sorted(path.parent.glob(f"{glob.escape(path.name)}.stale-*"), key=_stale_order)
    for old in stale[:-keep]:
        old.unlink(missing_ok=True)
        log.warning("removed %s: only the %d newest set-aside states of %s are kept", old, keep, path.name)


def _stale_order(path: Path) -> tuple[str, int]:
    """`<name>.stale-<stamp>[-<n>]` in the order they were set aside."""
    stamp, _, n = path.name.rpartition(".stale-")[2].partition("-")
    return stamp, int(n) if n.isdigit() else 1


def load_partial(path: str | Path | None, job: dict) -> dict | None:
    """The partial state at `path` if it exists and belongs to `job`; None otherwise (a file
    that is corrupt, of another format or of another job is set aside first)."""
    if path is None:
        return None
    path = Path(path)
    if not path.is_file():
        return None
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # torch raises several kinds for damaged files
        set_aside(path, f"is corrupt ({type(exc).__name__})")
        return None
    if not isinstance(state, dict) or state.get("format") != FORMAT or state.get("version") != VERSION:
        set_aside(path, "has another format or version")
        return None
    if state.get("job") != job:
        set_aside(path, "belongs to another job (model, domain, seed, parameters or data differ)")
        return None
    return state


def best_path(partial: str | Path) -> Path:
    return Path(f"{partial}.best")


def save_best(partial: str | Path, weights: dict, step: int, job: dict) -> None:
    """Write the best weights so far (chosen at optimiser step `step`) beside the partial state."""
    buf = io.BytesIO()
    torch.save({"format": BEST_FORMAT, "version": VERSION, "job": job, "best_step": step, "weights": weights}, buf)
    atomic.write_bytes(best_path(partial), buf.getvalue())


def load_best(partial: str | Path, step: int, job: dict) -> dict | None:
    """The best weights of `job` chosen at `step`, from beside the partial state; None (with a warning,
    the partial state set aside: training starts afresh) where they are missing, corrupt or another's."""
    path = best_path(partial)
    try:
        saved = torch.load(path, map_location="cpu", weights_only=True)
    except FileNotFoundError:
        saved, why = None, f"has no best weights beside it ({path.name} is missing)"
    except Exception as exc:  # torch raises several kinds for damaged files
        saved, why = None, f"has corrupt best weights beside it ({path.name}: {type(exc).__name__})"
    else:
        ok = (isinstance(saved, dict) and saved.get("format") == BEST_FORMAT and saved.get("job") == job
              and saved.get("best_step") == step)
        why = f"does not match the best weights beside it ({path.name})"
        saved = saved if ok else None
    if saved is None:
        set_aside(Path(partial), why)
        return None
    return saved["weights"]


def remove(partial: str | Path) -> None:
    """Remove a finished job's partial state and its best weights."""
    Path(partial).unlink(missing_ok=True)
    best_path(partial).unlink(missing_ok=True)
