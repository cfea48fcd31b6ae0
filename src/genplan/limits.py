"""The resource protocol every planner run is measured under, Fast Downward's and the learned
planners' alike: a limit on CPU seconds (as the IPC and Downward Lab set it, RLIMIT_CPU), a cap on
wall-clock seconds, a limit on address space (RLIMIT_AS, as Fast Downward's driver sets it), one
process (group) per run, loading counted because the run is a fresh process.

`run(cmd, limits)` starts `cmd` in a session of its own under those limits, ends its whole process
group at the wall cap, and measures it: CPU seconds (user + system of the process and every
descendant it waited for, from wait4), wall seconds, peak resident memory. `Measurement.outcome`
names what ended it: `exited`, `cpu_limit` (SIGXCPU or SIGKILL past the CPU limit), `wall_limit`,
`memory_limit` (the exit status the run gives for a failed allocation, `MEMORY_EXIT`, or Fast
Downward's own), or `signal` (any other signal).

A run whose CPU seconds are well below its wall seconds shared its core: `starved` names those
(`STARVED_RATIO`), so that a report can flag them and a rerun on a quiet machine redo them.

The command line `genplan limit` runs any planner command under the protocol and writes the
measurement as JSON: the same limits and the same measurement for a planner the pipeline does not
know (an outside system run beside ours)."""

from __future__ import annotations

import json
import math
import os
import resource
import signal
import subprocess
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from genplan.errors import GenplanError

# The default budget of a planner run: the IPC's 8 GiB; a wall cap of 1.5 x the CPU limit + 10 s,
# so that a run sharing its core is ended, and flagged, rather than left to run for ever.
DEFAULT_MEMORY_MB = 8192
WALL_FACTOR, WALL_EXTRA_S = 1.5, 10.0
# CPU seconds per wall second below which an unsolved run is said to have been starved of CPU: a
# single-threaded planner alone on its core runs at 0.97-1.0 (its I/O the rest)
STARVED_RATIO = 0.9
# the exit status of a genplan planner process that ran out of memory (MemoryError, std::bad_alloc);
# 22 is Fast Downward's "search out of memory", so that both read alike
MEMORY_EXIT = 22
# a hard CPU limit this far above the soft one: the process gets SIGXCPU at the soft limit (it dies of
# it unless it handles it) and SIGKILL at the hard one
_HARD_MARGIN_S = 2
_POLL_S = 0.25  # how often the group's CPU seconds and the wall clock are read


def group_cpu_time(pgid: int) -> float:
    """CPU seconds of the live processes of process group `pgid` (Linux /proc), each with the
    descendants it has reaped: the group's CPU so far, but for processes reaped outside it."""
    tick, total = os.sysconf("SC_CLK_TCK"), 0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid:  # field 5: the process group
            total += sum(int(x) for x in fields[11:15])  # utime, stime, cutime, cstime
    return total / tick


@dataclass(frozen=True)
class Limits:
    """CPU seconds (the budget), wall seconds (the cap), MiB of address space."""

    cpu_s: float
    wall_s: float | None = None
    memory_mb: int | None = DEFAULT_MEMORY_MB

    def __post_init__(self):
        for name in ("cpu_s", "wall_s", "memory_mb"):
            value = getattr(self, name)
            if value is not None and not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
                raise GenplanError(f"resource limit {name}={value!r}: a positive finite number expected")

    @property
    def wall(self) -> float:
        return self.wall_s if self.wall_s is not None else WALL_FACTOR * self.cpu_s + WALL_EXTRA_S

    def describe(self) -> str:
        memory = "no memory limit" if self.memory_mb is None else f"{self.memory_mb} MiB"
        return f"{self.cpu_s:g} CPU-s, {self.wall:g} wall-s cap, {memory}"

    def as_dict(self) -> dict:
        return {"cpu_s": self.cpu_s, "wall_s": self.wall, "memory_mb": self.memory_mb}


@dataclass
class Measurement:
    returncode: int  # the exit status, or minus the signal that ended it
    outcome: str  # exited | cpu_limit | wall_limit | memory_limit | signal
    cpu_time: float  # seconds, user + system, the process and its descendants
    wall_time: float
    peak_memory_mb: float  # the largest resident set of the process or a descendant
    started: float  # time.time() at the start, for the record of what ran when
    ended: float

    def as_dict(self) -> dict:
        return {k: round(v, 4) if isinstance(v, float) else v for k, v in asdict(self).items()}

    @property
    def starved(self) -> bool:
        return starved(self.cpu_time, self.wall_time)


def starved(cpu_time: float | None, wall_time: float | None, minimum_wall: float = 1.0) -> bool:
    """Whether a run of `cpu_time` CPU seconds in `wall_time` seconds shared its core (runs under
    `minimum_wall` are too short to say)."""
    if cpu_time is None or wall_time is None or wall_time < minimum_wall:
        return False
    return cpu_time / wall_time < STARVED_RATIO


def _preexec(limits: Limits):
    def apply() -> None:
        soft = int(math.ceil(limits.cpu_s))
        resource.setrlimit(resource.RLIMIT_CPU, (soft, soft + _HARD_MARGIN_S))
        if limits.memory_mb is not None:
            size = int(limits.memory_mb) * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (size, size))
        # no core files of planners killed at their limits
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        # a session of its own is a scheduling group of its own where Linux groups by session
        # (sched_autogroup): give the group the nice value the run was started with, so that `nice`
        # on the command that plans still reaches its planners
        try:
            with open("/proc/self/autogroup", "w") as f:
                f.write(str(os.getpriority(os.PRIO_PROCESS, 0)))
        except OSError:
            pass
    return apply


def _store(box: list, value: float) -> float:
    box[0] = value
    return value


def kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def run(cmd: list[str], limits: Limits, cwd: str | Path | None = None, stdout=None, stderr=None,
        env: dict | None = None, register=None) -> Measurement:
    """Run `cmd` under `limits` (see the module's docstring) and measure it. `stdout`/`stderr`: open
    files (default: discarded). `register(proc)`, if given, is called with the started Popen (a
    command that plans keeps a registry of its runs, to end them all on a signal); the process group
    is ended here at the wall cap and when this function is interrupted."""
    started, start = time.time(), time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=stdout if stdout is not None else subprocess.DEVNULL,
                            stderr=stderr if stderr is not None else subprocess.DEVNULL, env=env,
                            start_new_session=True, preexec_fn=_preexec(limits))
    if register is not None:
        register(proc)
    ended_by: list[str] = []  # what the monitor ended the group for: "wall" or "cpu"
    polled = [0.0]  # the group's CPU seconds when last read: its killed members are never waited for
    done = threading.Event()

    def monitor() -> None:
        # RLIMIT_CPU holds each process; the group as a whole (a driver and the components it starts,
        # as Fast Downward's, or an outside planner's) is held to the same CPU seconds here
        while not done.wait(_POLL_S):
            if time.perf_counter() - start >= limits.wall:
                ended_by.append("wall")
            elif max(polled[0], _store(polled, group_cpu_time(proc.pid))) >= limits.cpu_s + _HARD_MARGIN_S:
                ended_by.append("cpu")
            else:
                continue
            kill_group(proc.pid)
            return

    watcher = threading.Thread(target=monitor, daemon=True)
    watcher.start()
    try:
        _, status, usage = os.wait4(proc.pid, 0)
    except BaseException:
        kill_group(proc.pid)
        proc.wait()
        raise
    finally:
        done.set()
        watcher.join()
    wall = time.perf_counter() - start
    kill_group(proc.pid)  # whatever the run left behind in its group
    code = os.waitstatus_to_exitcode(status)
    proc.returncode = code  # reaped here: Popen must not wait for it again
    cpu = max(usage.ru_utime + usage.ru_stime, polled[0])
    return Measurement(code, _outcome(code, cpu, ended_by[0] if ended_by else None, limits), cpu, wall, usage.ru_maxrss / 1024.0,
                       started, time.time())


def _outcome(code: int, cpu: float, ended_by: str | None, limits: Limits) -> str:
    # past the budget: killed for it, or done after it (its children killed one by one by RLIMIT_CPU)
    if ended_by == "cpu" or code == -signal.SIGXCPU or (code != 0 and cpu >= limits.cpu_s) or cpu > limits.cpu_s + 0.5:
        return "cpu_limit"
    if ended_by == "wall":
        return "wall_limit"
    if code == MEMORY_EXIT:
        return "memory_limit"
    if code < 0:
        return "signal"
    return "exited"


# what a process that failed to allocate prints (Python, C++, Fast Downward's search, glibc)
_MEMORY_MARKERS = ("MemoryError", "std::bad_alloc", "Memory limit has been reached", "out of memory",
                   "Cannot allocate memory", "failed to map segment from shared object")


def names_out_of_memory(text: str) -> bool:
    """Whether a run's output names a failed allocation (an outside planner has no exit status of its
    own for it; ours exit with MEMORY_EXIT, but a library that fails to load under the limit does not)."""
    return any(marker in text[-65536:] for marker in _MEMORY_MARKERS)


def _says_out_of_memory(log: str | Path) -> bool:
    with open(log, "rb") as f:
        f.seek(max(0, os.path.getsize(log) - 65536))
        return names_out_of_memory(f.read().decode("utf-8", "replace"))


def limit_command(cmd: list[str], limits: Limits, out: str | Path, cwd: str | Path | None = None,
                  log: str | Path | None = None) -> Measurement:
    """`genplan limit`: run `cmd` under `limits`, its output to `log` (default: discarded), and write the
    measurement with the limits and the command line to `out` as JSON (atomically)."""
    from genplan import atomic

    if not cmd:
        raise GenplanError("no command to run after --")
    handle = open(log, "w") if log is not None else None
    try:
        try:
            measured = run(cmd, limits, cwd=cwd, stdout=handle, stderr=subprocess.STDOUT if handle else None)
        except FileNotFoundError:
            raise GenplanError(f"command not found: {cmd[0]}") from None
    finally:
        if handle is not None:
            handle.close()
    if measured.outcome == "exited" and measured.returncode != 0 and log is not None and _says_out_of_memory(log):
        measured.outcome = "memory_limit"
    atomic.write_text(out, json.dumps({"command": cmd, "limits": limits.as_dict(), **measured.as_dict()},
                                      indent=1, sort_keys=True) + "\n")
    return measured
