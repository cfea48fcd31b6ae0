"""Atomic outputs: write to a temporary sibling, then rename, so a killed job leaves nothing
that a rerun could mistake for finished work.

A temporary name carries its writer's process id and host (`owned_prefix`): a process killed with
SIGKILL cannot remove its temporaries, so the next writer of the same output (or, for run folders
in $TMPDIR, the next process making one) removes those whose process is gone (`sweep_dead`). A
temporary of a live process, or of another host, is never touched."""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import socket
import tempfile
import threading
from pathlib import Path

from genplan import outputs

log = logging.getLogger("genplan")


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _publish(tmp: Path, path: Path, directory: bool) -> None:
    """Give the temporary output the usual permissions (mkstemp/mkdtemp make it private), then
    rename it into place."""
    tmp.chmod((0o777 if directory else 0o666) & ~_umask())
    os.replace(tmp, path)


def _host() -> str:
    return socket.gethostname().replace("/", "_") or "localhost"


def owned_prefix(prefix: str) -> str:
    """`prefix` followed by this process's id and host: `<prefix><pid>-<host>-` (tempfile adds a
    random tail of letters, digits and underscores, never a dash)."""
    return f"{prefix}{os.getpid()}-{_host()}-"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's live process
        return True
    return True


def sweep_dead(directory: str | Path, prefix: str) -> list[Path]:
    """Remove the entries of `directory` named `owned_prefix(prefix)` by a process of this host
    that is gone (killed before it could clean up); returns what was removed (a log line each)."""
    directory, host, removed = Path(directory), _host(), []
    try:
        names = [n for n in os.listdir(directory) if n.startswith(prefix)]
    except OSError:
        return removed
    for name in names:
        pid, _, rest = name[len(prefix):].partition("-")
        if not pid.isdigit() or rest.rpartition("-")[0] != host or int(pid) == os.getpid() or _alive(int(pid)):
            continue
        path = directory / name
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
        log.info("removed %s, left by process %s that ended without cleaning up", path, pid)
        removed.append(path)
    return removed


_swept: set[tuple[str, str]] = set()
_sweeping = threading.Lock()


def run_dir(prefix: str) -> Path:
    """A new private folder `<prefix><pid>-<host>-<random>` in the temporary directory ($TMPDIR),
    for a run's scratch files (the caller removes it); the first call for `prefix` in a process
    removes the folders that killed processes left there."""
    tmp = tempfile.gettempdir()
    with _sweeping:  # the planning threads of one command: one of them sweeps
        if (tmp, prefix) not in _swept:
            sweep_dead(tmp, prefix)
            _swept.add((tmp, prefix))
    return Path(tempfile.mkdtemp(prefix=owned_prefix(prefix)))


def _tmp_sibling(path: Path, directory: bool) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    sweep_dead(path.parent, f".{path.name}.tmp-")
    prefix = owned_prefix(f".{path.name}.tmp-")
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
def output_dir(path: str | Path, owner: str | None = None):
    """Yield a temporary directory; it replaces `path` only if the block finishes without error.
    With `owner` (the command's name), `path` must be new, empty or an earlier output of that
    command (genplan.outputs), and the published folder carries that command's marker."""
    path = Path(path)
    if owner is not None:
        outputs.check_out_dir(path, owner)
    tmp = _tmp_sibling(path, directory=True)
    try:
        yield tmp
        if owner is not None:
            outputs.claim(tmp, owner)
        if path.exists():
            shutil.rmtree(path)
        _publish(tmp, path, directory=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
