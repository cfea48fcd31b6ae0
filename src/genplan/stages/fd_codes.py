"""Fast Downward's exit codes by name, as its driver defines them (driver/returncodes.py of the
`up-fast-downward` wheel's Fast Downward), and what each means for a run's status: the one place
`genplan.stages.fast_downward` reads a code from."""

from __future__ import annotations

import enum
import signal


class ExitCode(enum.IntEnum):
    SUCCESS = 0
    SEARCH_PLAN_FOUND_AND_OUT_OF_MEMORY = 1
    SEARCH_PLAN_FOUND_AND_OUT_OF_TIME = 2
    SEARCH_PLAN_FOUND_AND_OUT_OF_MEMORY_AND_TIME = 3
    TRANSLATE_UNSOLVABLE = 10
    SEARCH_UNSOLVABLE = 11
    SEARCH_UNSOLVED_INCOMPLETE = 12
    SEARCH_UNSOLVABLE_WITHIN_BOUND = 13
    TRANSLATE_OUT_OF_MEMORY = 20
    TRANSLATE_OUT_OF_TIME = 21
    SEARCH_OUT_OF_MEMORY = 22
    SEARCH_OUT_OF_TIME = 23
    SEARCH_OUT_OF_MEMORY_AND_TIME = 24
    TRANSLATE_CRITICAL_ERROR = 30
    TRANSLATE_INPUT_ERROR = 31
    SEARCH_CRITICAL_ERROR = 32
    SEARCH_INPUT_ERROR = 33
    SEARCH_UNSUPPORTED = 34
    DRIVER_CRITICAL_ERROR = 35
    DRIVER_INPUT_ERROR = 36
    DRIVER_UNSUPPORTED = 37


# a plan was written before the search ran out of a resource (portfolios and anytime searches)
PLAN_FOUND_OUT_OF = {
    ExitCode.SEARCH_PLAN_FOUND_AND_OUT_OF_MEMORY: "out of memory",
    ExitCode.SEARCH_PLAN_FOUND_AND_OUT_OF_TIME: "out of time",
    ExitCode.SEARCH_PLAN_FOUND_AND_OUT_OF_MEMORY_AND_TIME: "out of time and memory",
}
# proofs that no plan exists (within the bound: for a bounded search, no plan that cheap)
UNSOLVABLE = {ExitCode.TRANSLATE_UNSOLVABLE, ExitCode.SEARCH_UNSOLVABLE, ExitCode.SEARCH_UNSOLVABLE_WITHIN_BOUND}
# an incomplete search that ended without a plan: it proves nothing
UNSOLVED_INCOMPLETE = ExitCode.SEARCH_UNSOLVED_INCOMPLETE
# the limits: the driver's own, and the kernel's RLIMIT_CPU (SIGXCPU, seen as -24 or as the driver's 256 - 24)
RESOURCE = {
    ExitCode.TRANSLATE_OUT_OF_MEMORY: "translator out of memory",
    ExitCode.TRANSLATE_OUT_OF_TIME: "translator out of time",
    ExitCode.SEARCH_OUT_OF_MEMORY: "out of memory",
    ExitCode.SEARCH_OUT_OF_TIME: "out of time",
    ExitCode.SEARCH_OUT_OF_MEMORY_AND_TIME: "out of time and memory",
    -signal.SIGXCPU: "killed by the CPU time limit (SIGXCPU)",
    256 - signal.SIGXCPU: "killed by the CPU time limit (SIGXCPU)",
}
# a component killed by SIGKILL: the driver exits with 256 - 9 (the translator past its hard CPU limit,
# "Driver aborting after translate"); at or past the time limit it is a time-out, else an error (the OOM killer)
KILLED = {-signal.SIGKILL, 256 - signal.SIGKILL}


def name(code: int | None) -> str:
    """A code as the driver names it (`SEARCH_INPUT_ERROR (33)`), a signal by its name, else the number."""
    if code is None:
        return "no exit code"
    try:
        return f"{ExitCode(code).name} ({code})"
    except ValueError:
        pass
    for sig in (-code, 256 - code):
        try:
            return f"{signal.Signals(sig).name} ({code})"
        except ValueError:
            continue
    return f"exit {code}"
