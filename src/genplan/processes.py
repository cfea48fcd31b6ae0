"""Process and signal handling for the commands that run planners: every planner run starts in a
session of its own (its own process group: Fast Downward's driver, translator and search), so that a
terminal's Ctrl-C does not reach it unasked and the whole group can be ended at once. The groups that
are running are registered here: `stop_all` ends them (killpg) and refuses new runs until
`allow_runs`; a command plans through `run_pool` (worker threads: an exception or a signal in the
main thread ends every group, cancels the queued runs and joins the workers) inside `interruptible`
(SIGTERM, SIGINT and SIGHUP raise `Interrupted` in the main thread)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
from concurrent.futures import ThreadPoolExecutor


class Interrupted(BaseException):
    """A termination signal reached a command that plans (raised in the main thread by
    `interruptible`); a BaseException, like KeyboardInterrupt, so that no `except Exception`
    swallows it."""

    def __init__(self, signum: int):
        self.signum = signum
        super().__init__(f"interrupted by {signal.Signals(signum).name}")

    @property
    def exit_status(self) -> int:
        return 128 + self.signum  # the shells' convention for a command ended by a signal


class Stopped(Exception):
    """A run asked to start after `stop_all` (its command is being interrupted)."""


# The planner process groups running now (by leader pid, which is also the group id).
_lock = threading.Lock()
_running: dict[int, subprocess.Popen] = {}
_stopped = False


def kill_group(proc: subprocess.Popen) -> None:
    if proc.returncode is not None:  # already reaped: its group id may belong to someone else now
        return
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def stop_all() -> int:
    """End every running planner process group and refuse new runs until `allow_runs`;
    the number of groups ended. Safe to call twice."""
    global _stopped
    with _lock:
        _stopped = True
        procs = list(_running.values())
        for proc in procs:
            kill_group(proc)
    return len(procs)


def allow_runs() -> None:
    global _stopped
    with _lock:
        _stopped = False


def register(proc: subprocess.Popen) -> None:
    # Registered under the lock that `stop_all` takes: a run started after it is ended at once.
    with _lock:
        if _stopped:
            kill_group(proc)
        _running[proc.pid] = proc


def forget(proc: subprocess.Popen) -> None:
    with _lock:
        _running.pop(proc.pid, None)


@contextlib.contextmanager
def run_pool(threads: int):
    """A thread pool for planning runs (`threads` at once). If the block ends with any exception
    (Interrupted, KeyboardInterrupt, an error), every running planner group is ended, the
    queued runs are cancelled and the workers are joined (each removes its run directory) before
    the exception goes on. Runs are allowed again once the workers are joined. The registry is
    the process's: one planning command per process."""
    allow_runs()
    pool = ThreadPoolExecutor(max(1, int(threads)), thread_name_prefix="genplan-fd")
    failed = False
    try:
        yield pool
    except BaseException:
        failed = True
        stop_all()
        raise
    finally:
        if failed:
            stop_all()  # again: a second signal may have cut the first call short
        pool.shutdown(wait=True, cancel_futures=True)
        allow_runs()


@contextlib.contextmanager
def interruptible(signums=(signal.SIGTERM, signal.SIGINT, signal.SIGHUP)):
    """Within the block (main thread only), the first of these signals raises `Interrupted` in the
    main thread; later ones are ignored while it unwinds, so that the clean-up finishes. A signal
    the process ignores (under nohup, SIGINT of a background job) stays ignored. The previous
    handlers are restored afterwards."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    raised = False

    def handler(signum, frame):
        nonlocal raised
        if not raised:
            raised = True
            raise Interrupted(signum)

    previous = {}
    for signum in signums:
        old = signal.getsignal(signum)
        if old is signal.SIG_IGN:
            continue
        previous[signum] = signal.SIG_DFL if old is None else old
        signal.signal(signum, handler)
    try:
        yield
    finally:
        for signum, old in previous.items():
            signal.signal(signum, old)




def check_allowed() -> None:
    """Raise `Stopped` once `stop_all` was called: no new run may start while a command is stopping."""
    with _lock:
        if _stopped:
            raise Stopped("the command is stopping: no new planner run")


def stopping() -> bool:
    """Whether `stop_all` was called and runs are not allowed again yet (a run killed then was ended by the command)."""
    with _lock:
        return _stopped
