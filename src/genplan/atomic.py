"""Atomic outputs: write to a temporary sibling, then rename, so a killed job leaves nothing
that a rerun could mistake for finished work."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from pathlib import Path


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _publish(tmp: Path, path: Path, directory: bool) -> None:
    """Give the temporary output the usual permissions (mkstemp/mkdtemp make it private), then
    rename it into place."""
    tmp.chmod((0o777 if directory else 0o666) & ~_umask())
    os.replace(tmp, path)


def _tmp_sibling(path: Path, directory: bool) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    prefix = f".{path.name}.tmp-"
    if directory:
        return Path(tempfile.mkdtemp(prefix=prefix, dir=path.parent))
    fd, name = tempfile.mkstemp(prefix=prefix, dir=path.parent)
    os.close(fd)
    return Path(name)


def write_text(path: str | Path, text: str) -> None:
    write_bytes(path, text.encode())


def write_bytes(path: str | Path, data: bytes) -> None:
    with output_file(path) as tmp:
        tmp.write_bytes(data)


@contextlib.contextmanager
def output_file(path: str | Path):
    """Yield a temporary path; it becomes `path` only if the block finishes without error."""
    path = Path(path)
    tmp = _tmp_sibling(path, directory=False)
    try:
        yield tmp
        _publish(tmp, path, directory=False)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


@contextlib.contextmanager
def output_dir(path: str | Path):
    """Yield a temporary directory; it replaces `path` only if the block finishes without error."""
    path = Path(path)
    tmp = _tmp_sibling(path, directory=True)
    try:
        yield tmp
        if path.exists():
            shutil.rmtree(path)
        _publish(tmp, path, directory=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
