"""Stage 3: every plan through real VAL (`Validate -v`), whose effects give the state sequence
s0..sT; each step cross-checked against pymimir's successor function.

Output (gzip JSON, format 2): the domain (its PDDL text, name and the path it was read from), and
per problem its statics (once), goal, actions and fluent states, in the package's one
representation; problems without a plan are listed with their planner status. With `all_plans`
(the config's `trajectories.all_plans`), a problem's other distinct VAL-valid plans follow under
`alternatives` (config, actions, states), for PlanGPT's several plans per problem. The file stands
alone: readers that need a domain FILE get the stored text written out (`domain_file`), so it
can be read from any working directory. Each record carries its problem file's `problem_sha256`:
a reader that joins a record with a problem file again (training from plans,
genplan.datasets.plan_neighbourhood) refuses a file of other content under the same name."""

from __future__ import annotations

import gzip
import json
import logging
from pathlib import Path

from genplan import atomic, val
from genplan.errors import GenplanError
from genplan.formats import manifest
from genplan.formats.plans_table import check_problem_hashes, check_split_problems
from genplan.formats.tables import read_csv
from genplan.formats.trajectories import document
from genplan.mimir import MimirTask
from genplan.pddl_io import atom_to_str, parse_domain, parse_problem, read_plan
from genplan.progress import progress
from genplan.resume import file_sha256

log = logging.getLogger("genplan")


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


def alternatives(domain: Path, problem_path: Path, plans_dir: Path, problem: str, main: dict) -> list[dict]:
    """The problem's other VAL-valid plans (`<problem>.<config>.plan` of the plans stage: LAMA-first
    beside A* or GBFS, the papers' `reference`), each distinct plan once, in file-name order, with
    its VAL state sequence: the several plans per problem of PlanGPT's training data."""
    seen, out = {tuple(main["actions"])}, []
    for path in sorted(plans_dir.glob(f"{problem}.*.plan")):
        config = path.name[len(problem) + 1:-len(".plan")]
        if "." in config:  # <problem>.<config>.rejected.plan, or another problem's name with a dot
            continue
        rec = trajectory(domain, problem_path, path)
        if tuple(rec["actions"]) not in seen:
            seen.add(tuple(rec["actions"]))
            out.append({"config": config, "actions": rec["actions"], "states": rec["states"]})
    return out


def trajectories_split(benchmark_dir: str | Path, split: str, plans_dir: str | Path, plans_table: str | Path,
                       out: str | Path, all_plans: bool = False) -> dict:
    """One split's trajectories file; with `all_plans` each record also carries `alternatives`."""
    benchmark_dir, plans_dir = Path(benchmark_dir), Path(plans_dir)
    domain = benchmark_dir / "domain.pddl"
    parse_domain(domain)  # a bad domain is named before any plan is read
    rows = manifest.read(benchmark_dir, split)
    table = read_csv(plans_table, "plans table")
    check_split_problems(table, {r["problem"] for r in rows}, split, plans_table)  # another domain's: 0 written
    check_problem_hashes(table, rows, plans_table)  # the same names, other problems: regenerated with another seed
    records, missing = [], []
    for row in progress(rows, total=len(rows), desc=f"trajectories {split}"):
        plan = plans_dir / f"{row['problem']}.plan"
        if not plan.is_file():
            valid = [r.get("plan_file") or r.get("config") for r in table
                     if r.get("problem") == row["problem"] and r.get("valid") == "yes"]
            if valid:  # the table vouches for a plan the folder lacks: an incomplete copy, not an unsolved problem
                raise GenplanError(f"the plans table gives {row['problem']} a VAL-valid plan ({valid[0]}) but "
                                   f"{plan} is missing: the plans folder is incomplete (rerun the plans stage "
                                   "for this split)", plans_table)
            statuses = {r.get("config"): r.get("status") for r in table if r.get("problem") == row["problem"]}
            missing.append({"problem": row["problem"], "statuses": statuses})
            continue
        rec = {**trajectory(domain, row["path"], plan), "problem_sha256": file_sha256(row["path"])}
        if all_plans:
            rec["alternatives"] = alternatives(domain, Path(row["path"]), plans_dir, row["problem"], rec)
        records.append(rec)
    doc = document(split, domain, records, missing)
    with atomic.output_file(out) as tmp:
        with gzip.open(tmp, "wt", encoding="utf-8") as fh:
            json.dump(doc, fh)
    log.info("%s: %d trajectories, %d problems without a plan", split, len(records), len(missing))
    return doc


