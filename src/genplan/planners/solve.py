"""`genplan solve`: decode one problem with a trained transition model and check the plan with VAL.

Also the pieces `genplan evaluate` shares: loading a checkpoint for the domain of a PDDL file,
and decoding + validating one problem.
"""

from __future__ import annotations

import functools
import tempfile
from dataclasses import dataclass
from pathlib import Path

from genplan import atomic, val
from genplan.planners.beam import DecodeConfig, DecodeResult, decode
from genplan.domains import DOMAINS, domain_file
from genplan.errors import GenplanError
from genplan.mimir import MimirTask
from genplan.pddl_io import parse_domain, parse_problem, plan_to_text


@functools.cache
def _shipped_domain_names() -> dict[str, str]:
    return {parse_domain(domain_file(key)).name: key for key in DOMAINS}


def domain_key(domain: str | Path) -> str:
    """The project's name of a PDDL domain (`blocks`, `gripper`, ...), from the file's domain name;
    a domain the project does not ship keeps its PDDL name."""
    name = parse_domain(domain).name
    return _shipped_domain_names().get(name, name)


def load_model(checkpoint: str | Path, domain: str | Path, threads: int = 1):
    """The transition model of `checkpoint`; GenplanError unless it was trained on `domain`.
    Decoding makes one small model call per step: one torch thread is fastest (measured 18x faster
    than two on a loaded 2-core machine); XGBoost boosters load with one thread too."""
    import torch

    from genplan.models.transition.model import TransitionModel

    torch.set_num_threads(threads)

    if not Path(checkpoint).is_file():
        raise GenplanError("model checkpoint not found", checkpoint)
    return TransitionModel.load(checkpoint, expect_domain=domain_key(domain))


@dataclass
class Outcome:
    """A decoded plan and VAL's verdict on it (`verdict` is None when there was nothing to check)."""

    decoded: DecodeResult
    verdict: val.ValResult | None

    @property
    def solved(self) -> bool:
        return self.decoded.solved and self.verdict is not None and self.verdict.valid


def decode_and_validate(model, domain: str | Path, problem: str | Path, cfg: DecodeConfig,
                        plan_path: str | Path | None = None) -> Outcome:
    """Decode `problem`, write the plan (to `plan_path` or a temporary file) and run VAL on it.
    Every plan is VAL-checked, unsolved attempts too (VAL then says why it is no plan)."""
    task = parse_problem(problem, parse_domain(domain))
    decoded = decode(model, task, MimirTask(domain, problem), cfg)
    with tempfile.TemporaryDirectory(prefix="genplan-solve-") as tmp:
        path = Path(plan_path) if plan_path is not None else Path(tmp) / "plan"
        path.write_text(plan_to_text(decoded.plan))
        verdict = val.validate(domain, problem, path)
    return Outcome(decoded, verdict)


def solve(checkpoint: str | Path, domain: str | Path, problem: str | Path, cfg: DecodeConfig,
          out: str | Path | None = None, model=None) -> tuple[Outcome, str]:
    """Decode and validate; write `out` only for a VAL-valid plan. Returns the outcome and the
    plan's text (printed by the CLI when no `out` is given)."""
    model = model if model is not None else load_model(checkpoint, domain)
    outcome = decode_and_validate(model, domain, problem, cfg)
    text = plan_to_text(outcome.decoded.plan)
    if out is not None and outcome.solved:
        atomic.write_text(out, text)
    return outcome, text


def summary_line(outcome: Outcome, problem: str | Path) -> str:
    d = outcome.decoded
    stats = (f"{d.steps} steps, {d.expansions} expansions, {d.embedded} states embedded, "
             f"{d.time:.2f} s, horizon {d.horizon}")
    if outcome.solved:
        return f"Plan valid (VAL): {len(d.plan)} actions ({problem}; {stats})"
    if d.solved:
        return f"Plan INVALID (VAL): {outcome.verdict.message} ({problem}; {stats})"
    return f"No plan: decoding stopped ({d.reason}) without reaching the goal ({problem}; {stats})"
