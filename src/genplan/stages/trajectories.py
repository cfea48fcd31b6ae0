"""Stage 3: every plan through real VAL (`Validate -v`), whose effects give the state sequence
s0..sT; each step cross-checked against pymimir's successor function.

Output (gzip JSON): per problem its statics (once), goal, actions and fluent states, in the
package's one representation; problems without a plan are listed with their planner status."""

from __future__ import annotations

import gzip
import json
import logging
from pathlib import Path

from genplan import atomic, manifest, val
from genplan.errors import GenplanError
from genplan.mimir import MimirTask
from genplan.pddl_io import atom_to_str, parse_domain, parse_problem, read_plan
from genplan.stages.plans import read_table
from genplan.progress import progress

log = logging.getLogger("genplan")
FORMAT = "genplan-trajectories/1"


def trajectory(domain_path: Path, problem_path: Path, plan_path: Path) -> dict:
    """The VAL state sequence of one plan, checked step by step against pymimir."""
    dom = parse_domain(domain_path)
    task = parse_problem(problem_path, dom)
    actions = read_plan(plan_path)
    verdict = val.validate(domain_path, problem_path, plan_path)
    if not verdict.valid:
        raise GenplanError(f"VAL rejects the plan: {verdict.message} (step {verdict.failed_step})", plan_path)
    if len(verdict.effects) != len(actions):
        raise GenplanError(f"VAL reported {len(verdict.effects)} steps for {len(actions)} actions", plan_path)
    mimir = MimirTask(domain_path, problem_path)
    m_state = mimir.initial_state()
    state = task.init
    if mimir.fluents(m_state) != state:
        raise GenplanError("initial state differs between the PDDL parser and pymimir", problem_path)
    states = [state]
    for step, (action, (dels, adds)) in enumerate(zip(actions, verdict.effects), 1):
        state = (state - frozenset(dels)) | frozenset(adds)
        m_state = mimir.apply(m_state, action)
        m_fluents = mimir.fluents(m_state)
        if m_fluents != state:
            only_val = sorted(state - m_fluents)[:3]
            only_mimir = sorted(m_fluents - state)[:3]
            raise GenplanError(
                f"step {step} ({' '.join(action)}): VAL and pymimir disagree "
                f"(only VAL: {only_val}, only pymimir: {only_mimir})", plan_path)
        states.append(state)
    if not task.goal <= state:
        raise GenplanError("the final state of VAL's sequence does not satisfy the goal", plan_path)
    return {
        "problem": problem_path.stem,
        "plan_length": len(actions),
        "statics": sorted(atom_to_str(a) for a in task.statics),
        "goal": sorted(atom_to_str(a) for a in task.goal),
        "actions": [atom_to_str(a) for a in actions],
        "states": [sorted(atom_to_str(a) for a in s) for s in states],
    }


def trajectories_split(benchmark_dir: str | Path, split: str, plans_dir: str | Path, plans_table: str | Path, out: str | Path) -> dict:
    benchmark_dir, plans_dir = Path(benchmark_dir), Path(plans_dir)
    domain = benchmark_dir / "domain.pddl"
    rows = manifest.read(benchmark_dir, split)
    table = read_table(plans_table)
    records, missing = [], []
    for row in progress(rows, total=len(rows), desc=f"trajectories {split}"):
        plan = plans_dir / f"{row['problem']}.plan"
        if not plan.is_file():
            statuses = {r["config"]: r["status"] for r in table if r["problem"] == row["problem"]}
            missing.append({"problem": row["problem"], "statuses": statuses})
            continue
        records.append(trajectory(domain, row["path"], plan))
    doc = {"format": FORMAT, "split": split, "domain_file": str(domain), "problems": records, "without_plan": missing}
    with atomic.output_file(out) as tmp:
        with gzip.open(tmp, "wt") as fh:
            json.dump(doc, fh)
    log.info("%s: %d trajectories, %d problems without a plan", split, len(records), len(missing))
    return doc


def load(path: str | Path) -> dict:
    path = Path(path)
    try:
        with gzip.open(path, "rt") as fh:
            doc = json.load(fh)
    except (OSError, json.JSONDecodeError) as exc:
        raise GenplanError(f"not a trajectories file: {exc}", path) from None
    if doc.get("format") != FORMAT:
        raise GenplanError(f"unknown trajectories format {doc.get('format')!r}", path)
    return doc
