"""`genplan evaluate --jobs N`: the problems of one split planned N at once, each in a worker
process of its own (the planners are Python: threads would share one core through the GIL).

Each worker loads the checkpoint once, makes its planner once, and then plans one problem at a
time, sent to it over its own pipe, so that the parent always knows which problem each worker is
planning. Each worker runs with one torch thread and one BLAS/OpenMP thread, so that a problem
keeps one core and its time limit means what it means at --jobs 1. The records come back in the
given order whatever the order of completion.

A problem whose planning raises, or a worker that dies (killed, out of memory, a crash in native
code), ends the evaluation with one GenplanError naming the problem and its file; every worker is
then ended (as on any exception, Interrupted included) and the caller writes no output (the
problems finished before stay in its sidecar, genplan.resume). Workers
ignore SIGINT: a terminal's Ctrl-C reaches the parent, which ends them."""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys
import traceback
from multiprocessing import connection, get_context
from pathlib import Path

from genplan.errors import GenplanError

log = logging.getLogger("genplan")

# the thread pools of the native libraries (OpenMP, OpenBLAS, MKL, ...): one thread per worker,
# set in the environment that the workers start with (read when those libraries load)
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS",
                    "VECLIB_MAXIMUM_THREADS")


def _worker(conn, checkpoint: str, domain: str, strategy, settings: dict, log_level: int,
            count_loading: bool = False) -> None:
    """A worker's life: load the model, make the planner, then plan each task the parent sends (a
    tuple of evaluate_problem's arguments after the planner and domain) until it sends None; answer
    ("ok", record) or ("error", text) per task, ("load_error", text) if the model does not load."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent ends the workers
    logging.basicConfig(level=log_level, format="%(asctime)s %(levelname)s [%(processName)s] %(message)s",
                        stream=sys.stderr)
    try:
        from genplan.evaluation.problem import evaluate_problem, process_age
        from genplan.registry import planner as make_planner
        from genplan.solve_setup import load_model

        planner = make_planner(load_model(checkpoint, domain, threads=1), strategy, settings)
        load_time = process_age() if count_loading else None  # a worker pays its own start and load
    except Exception as exc:  # noqa: BLE001 (sent to the parent, which names it)
        conn.send(("load_error", f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}"))
        return
    while (task := conn.recv()) is not None:
        try:
            conn.send(("ok", evaluate_problem(planner, Path(domain), *task, load_time=load_time)))
        except Exception as exc:  # noqa: BLE001
            conn.send(("error", f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}"))
            return


@contextlib.contextmanager
def _single_threaded_environment():
    """os.environ with every native thread pool at one thread, restored afterwards (the
    workers started inside the block keep it)."""
    saved = {name: os.environ.get(name) for name in THREAD_VARIABLES}
    os.environ.update({name: "1" for name in THREAD_VARIABLES})
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


class _Workers:
    """The started worker processes, each with its pipe and the index of the task it plans."""

    def __init__(self, n: int, checkpoint: str, domain: str, strategy, settings: dict,
                 count_loading: bool = False):
        ctx = get_context("spawn")  # the parent holds torch and threads: no fork
        self.procs, self.conns, self.task = [], [], [None] * n
        with _single_threaded_environment():
            for w in range(n):
                parent_end, child_end = ctx.Pipe()
                proc = ctx.Process(target=_worker, name=f"worker{w}", daemon=True,
                                   args=(child_end, checkpoint, domain, strategy, settings, log.getEffectiveLevel(),
                                         count_loading))
                self.procs.append(proc)
                self.conns.append(parent_end)
                proc.start()
                child_end.close()

    def stop(self) -> None:
        """End every worker still running (SIGTERM, then SIGKILL after 5 s) and join it."""
        for proc in self.procs:
            if proc.is_alive():
                proc.terminate()
        for proc in self.procs:
            proc.join(5)
            if proc.is_alive():
                proc.kill()
                proc.join()
        for conn in self.conns:
            conn.close()


def evaluate_rows(checkpoint: str | Path, domain: Path, strategy, settings: dict, tasks: list[tuple],
                  jobs: int, count_loading: bool = False):
    """Yield (index, record) as the workers finish `tasks` (each (row, best, reference), as
    genplan.evaluation.problem.evaluate_problem takes them after the planner and domain), `jobs` at once; GenplanError
    naming the problem when one fails or its worker dies. The workers are ended when the generator
    ends, is closed, or raises. `count_loading`: each record's `load_time` counter is its worker's
    (genplan.evaluation.split.evaluate_split's)."""
    if not tasks:
        return
    workers = _Workers(min(jobs, len(tasks)), str(checkpoint), str(domain), strategy, settings, count_loading)
    queue = iter(range(len(tasks)))

    def assign(w: int) -> None:
        workers.task[w] = next(queue, None)
        try:
            workers.conns[w].send(None if workers.task[w] is None else tasks[workers.task[w]])
        except OSError:  # the worker is gone: its sentinel says so below
            pass

    try:
        for w in range(len(workers.procs)):
            assign(w)
        finished = 0
        while finished < len(tasks):
            busy = [w for w, i in enumerate(workers.task) if i is not None]
            ready = connection.wait([workers.conns[w] for w in busy] + [workers.procs[w].sentinel for w in busy])
            for w in busy:
                answer = _answer(workers.conns[w], workers.procs[w].sentinel, ready)
                if answer is None:
                    continue
                status, payload = answer
                if status == "ok":
                    yield workers.task[w], payload
                    finished += 1
                    assign(w)
                    continue
                workers.procs[w].join(1)
                raise _failure(status, payload, tasks[workers.task[w]][0], workers.procs[w].exitcode, checkpoint)
    finally:
        workers.stop()


def _answer(conn, sentinel, ready: list) -> tuple | None:
    """A worker's answer, ("died", None) if it is gone without one, None while it plans. An answer
    sent before the worker ended is read first; a pipe whose worker died may also raise
    ConnectionResetError (an OSError) rather than end in EOF."""
    try:
        if conn in ready or conn.poll():
            return conn.recv()
    except (EOFError, OSError):
        return "died", None
    return ("died", None) if sentinel in ready else None


def _failure(status: str, payload: str | None, row: dict, exitcode: int | None, checkpoint) -> GenplanError:
    """The one error of a failed evaluation: the problem (and its file), and why; the worker's
    traceback goes to the log."""
    if payload:
        log.error("worker traceback:\n%s", payload.rstrip())
    if status == "load_error":
        return GenplanError(f"a worker process could not load the model: {payload.splitlines()[0]}", checkpoint)
    if status == "error":
        return GenplanError(f"planning problem {row['problem']!r} failed: {payload.splitlines()[0]}", row["path"])
    how = (f"ended by {signal.Signals(-exitcode).name}" if exitcode is not None and exitcode < 0
           else f"exit status {exitcode}")
    return GenplanError(f"the worker process planning problem {row['problem']!r} died ({how}; out of memory?)",
                        row["path"])
