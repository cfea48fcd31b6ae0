"""A killed `genplan plan` / `genplan plan-files` leaves nothing behind: no Fast Downward process
(they run in sessions of their own, so the signal does not reach them by itself), no
`genplan-fd-*` run folder in the temporary directory, no output, not even a hidden temporary one;
and the command exits 128 + the signal's number."""

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time

import pytest

from genplan.stages.problems import generate_benchmark


@pytest.fixture(scope="module")
def hard_blocks(tmp_path_factory):
    """Two 30-block problems: A* + LM-cut runs far longer than the test waits."""
    bench = tmp_path_factory.mktemp("blocks30") / "bench"
    generate_benchmark("blocks", {"sizes": {"train": [30]}, "per_size": {"train": 2}}, 0, bench)
    return bench


def _ps() -> list[tuple[int, int, str, str]]:
    """(pid, session id, state, command) of every process, from `ps`."""
    out = subprocess.run(["ps", "-ww", "-eo", "pid=,sid=,stat=,args="], capture_output=True, text=True, check=True).stdout
    rows = [line.split(None, 3) for line in out.splitlines()]
    return [(int(r[0]), int(r[1]), r[2], r[3]) for r in rows if len(r) == 4]


def _ours(marker: str, sessions: set[int]) -> list[tuple[int, int, str, str]]:
    """The live processes of our Fast Downward runs: the drivers name the run folder (`marker`, in
    our private TMPDIR) and start a session of their own, which their translator and search
    processes share. A zombie (Z) is already dead (init reaps it): it does not count."""
    return [p for p in _ps() if (marker in p[3] or p[1] in sessions) and not p[2].startswith("Z")]


def _default_signals() -> None:
    """The command as a user's terminal starts it: a test run in the background of a
    non-interactive shell (CI) inherits SIGINT ignored, which the command rightly keeps ignoring."""
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_DFL)


def _start(cmd: list, private_tmp) -> tuple[subprocess.Popen, set[int]]:
    """Start the command with TMPDIR `private_tmp`; return it and the sessions of its two Fast
    Downward runs once both run (two problems, --threads 2)."""
    env = {**os.environ, "TMPDIR": str(private_tmp)}
    marker = f"{private_tmp}/genplan-fd-"
    sessions: set[int] = set()
    proc = subprocess.Popen([sys.executable, "-m", "genplan", *map(str, cmd)], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, preexec_fn=_default_signals)
    start = time.monotonic()
    while len(sessions) < 2 or time.monotonic() - start < 3:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() - start < 30, f"no two Fast Downward runs started: {_ps()}"
        sessions |= {p[1] for p in _ps() if marker in p[3] and "fast-downward.py" in p[3]}
        time.sleep(0.1)
    return proc, sessions


def _interrupt(cmd: list, tmp_path, signum: int) -> subprocess.CompletedProcess:
    private_tmp = tmp_path / "tmp"
    private_tmp.mkdir()
    marker = f"{private_tmp}/genplan-fd-"
    proc, sessions = None, set()
    try:
        proc, sessions = _start(cmd, private_tmp)
        assert all(sid != os.getsid(proc.pid) for sid in sessions), "Fast Downward runs in a session of its own"
        assert len(list(private_tmp.glob("genplan-fd-*"))) == 2
        proc.send_signal(signum)
        stdout, stderr = proc.communicate(timeout=15)
    finally:
        if proc is not None and proc.poll() is None:  # the test failed: still end it the clean way
            proc.terminate()
            proc.communicate(timeout=15)
    deadline = time.monotonic() + 5
    while _ours(marker, sessions) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = _ours(marker, sessions)
    for sid in {p[1] for p in left}:  # do not leak them into the next test
        os.killpg(sid, signal.SIGKILL)
    assert not left, f"Fast Downward processes left running: {left}"
    assert not list(private_tmp.iterdir()), "run folders left in TMPDIR"
    return subprocess.CompletedProcess(cmd, proc.returncode, stdout, stderr)


def test_sigterm_ends_plan_cleanly(hard_blocks, tmp_path):
    out_root = tmp_path / "out"
    out_root.mkdir()
    params = {"memory_limit_mb": 2048, "optimal": {"time_limit": 60}, "fallback": {"time_limit": 60},
              "lama": {"time_limit": 60}}
    res = _interrupt(["plan", "--benchmark-dir", hard_blocks, "--split", "train", "--params", json.dumps(params),
                      "--threads", "2", "--out-dir", out_root / "plans", "--out-table", out_root / "plans.csv"],
                     tmp_path, signal.SIGTERM)
    assert res.returncode == 128 + signal.SIGTERM, res.stderr
    assert "interrupted by SIGTERM" in res.stderr and "Traceback" not in res.stderr
    assert not list(out_root.iterdir()), "output (or a hidden temporary folder) left behind"


def test_sigint_ends_plan_files_cleanly(hard_blocks, tmp_path):
    out_root = tmp_path / "out"
    out_root.mkdir()
    problems = sorted((hard_blocks / "train").glob("*.pddl"))
    res = _interrupt(["plan-files", hard_blocks / "domain.pddl", *problems, "--planner", "astar_lmcut",
                      "--time-limit", "60", "--memory-limit-mb", "2048", "--threads", "2", "--out-dir", out_root / "plans"],
                     tmp_path, signal.SIGINT)
    assert res.returncode == 128 + signal.SIGINT, res.stderr
    assert "interrupted by SIGINT" in res.stderr and "Traceback" not in res.stderr
    assert not list(out_root.iterdir()), "output (or a hidden temporary folder) left behind"


def test_a_rerun_removes_what_a_sigkilled_plan_left(hard_blocks, tmp_path):
    """SIGKILL gives `plan` no chance to clean up: its Fast Downward run folders stay in
    $TMPDIR and its hidden temporary output folder and table beside the outputs. The next `plan`
    removes them (their names carry the dead process's id), and nothing of a live process."""
    out_root, private_tmp = tmp_path / "out", tmp_path / "tmp"
    out_root.mkdir()
    private_tmp.mkdir()
    plans = ["plan", "--benchmark-dir", hard_blocks, "--split", "train", "--threads", "2",
             "--out-dir", out_root / "plans", "--out-table", out_root / "plans.csv"]
    hard = {"memory_limit_mb": 2048, "optimal": {"time_limit": 60}, "fallback": {"time_limit": 60},
            "lama": {"time_limit": 60}}
    proc, sessions = _start([*plans, "--params", json.dumps(hard)], private_tmp)
    try:
        proc.kill()
        proc.communicate(timeout=15)
    finally:
        for sid in sessions:  # its Fast Downward runs outlive it (sessions of their own): end them here
            with contextlib.suppress(ProcessLookupError):
                os.killpg(sid, signal.SIGKILL)
    left = sorted(p.name for p in private_tmp.iterdir()) + sorted(p.name for p in out_root.iterdir())
    assert len(left) == 3 and all(f"-{proc.pid}-" in name for name in left), left  # 2 run folders, 1 output
    live = out_root / f".plans.csv.tmp-{os.getpid()}-{socket.gethostname()}-live"  # a live process's: kept
    live.write_text("")
    quick = {"memory_limit_mb": 2048, "optimal": {"time_limit": 1}, "fallback": {"enabled": False},
             "lama": {"enabled": False}}
    res = subprocess.run([sys.executable, "-m", "genplan", *map(str, plans), "--params", json.dumps(quick)],
                         env={**os.environ, "TMPDIR": str(private_tmp)}, capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    assert sorted(p.name for p in out_root.iterdir()) == [live.name, "plans", "plans.csv"]
    assert not list(private_tmp.iterdir()), "run folders left in TMPDIR"
    assert res.stderr.count(f"left by process {proc.pid} that ended without cleaning up") == 3, res.stderr
