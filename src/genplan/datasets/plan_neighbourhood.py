"""Training examples of the learned heuristic without a state space: the states along each
training problem's plan and their bounded neighbourhoods, as WL-GOOSE trains ("Return to
Tradition", Chen, Trevizan, Thiebaux, ICAPS 2024).

For a plan s_0 -a_1-> s_1 ... -a_T-> s_T of one problem:

- the plan states s_0..s_T, each with its plan length to go T - i (the regression target: an
  upper bound of h*, exact where the plan is optimal; summaries say "target: plan_length_to_go");
- the siblings of s_i (i < T): its successors that are no state of the plan, each distinct state
  once (by pymimir's state index), with the plan steps it is a sibling of.

Ranking pairs (better, worse), indices of `states`: (s_{i+1}, s_i) for every step, and
(s_{i+1}, o) for every sibling o of s_i: along the plan h should fall, and the plan's next state
should score below the states the plan did not take. A successor that is a later (or earlier)
plan state is no sibling: a suboptimal plan would otherwise be taught to rank its own states
wrongly.

The states are pymimir states of the problem's file (the searches' own states, so that the
features at training are those at inference). A trajectories document names problems, not files:
`problem_files` finds them in the benchmark folder (its manifest) beside the trajectories, laid
out as the workflow lays them out, or in folders the caller names."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from genplan.errors import GenplanError
from genplan.pddl_io import str_to_atom


@dataclass
class PlanNeighbourhood:
    problem: str
    states: list  # pymimir states: the plan's s_0..s_T, then the siblings
    plan_length: int  # T
    sibling_steps: list = field(default_factory=list)  # (plan step i, index in `states`) per sibling relation

    @property
    def to_go(self) -> np.ndarray:
        """[T + 1] plan length to go of the plan states s_0..s_T."""
        return np.arange(self.plan_length, -1, -1, dtype=np.float64)

    @property
    def siblings(self) -> int:
        return len(self.states) - self.plan_length - 1

    def pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """(better, worse) indices of `states` (the module docstring)."""
        steps = np.arange(self.plan_length, dtype=np.int64)
        sib = np.asarray(self.sibling_steps, dtype=np.int64).reshape(-1, 2)
        return np.concatenate([steps + 1, sib[:, 0] + 1]), np.concatenate([steps, sib[:, 1]])


def neighbourhood(mimir, actions: list, siblings: bool = True, max_siblings: int | None = None,
                  rng: np.random.Generator | None = None) -> PlanNeighbourhood:
    """The plan states of `actions` (ground actions, the package's tuples) from the initial state of
    a `genplan.mimir.MimirTask`, and with `siblings` their siblings; `max_siblings` keeps that many
    sibling states at most, drawn uniformly with `rng` (their pairs with them)."""
    state = mimir.initial_state()
    plan = [state]
    for action in actions:
        state = mimir.apply(state, action)  # GenplanError naming the problem when not applicable
        plan.append(state)
    out = PlanNeighbourhood(mimir.path.stem, list(plan), len(actions))
    if not siblings:
        return out
    on_plan = {s.get_index() for s in plan}
    row: dict[int, int] = {}
    for i, parent in enumerate(plan[:-1]):
        for a in parent.generate_applicable_actions():
            succ = a.apply(parent)
            key = succ.get_index()
            if key in on_plan:
                continue
            if key not in row:
                row[key] = len(out.states)
                out.states.append(succ)
            out.sibling_steps.append((i, row[key]))
    if max_siblings is not None and out.siblings > max_siblings:
        rng = rng or np.random.default_rng(0)
        first = out.plan_length + 1
        keep = np.sort(rng.choice(out.siblings, size=max_siblings, replace=False)) + first
        renum = {int(old): first + k for k, old in enumerate(keep)}
        out.states = plan + [out.states[k] for k in keep.tolist()]
        out.sibling_steps = [(i, renum[r]) for i, r in out.sibling_steps if r in renum]
    return out


def problem_files(doc: dict, trajectories: str | Path, folders: list = ()) -> dict[str, Path]:
    """problem name -> problem file of every problem of a trajectories document with a plan: from
    the manifests of `folders` (benchmark folders) and of the benchmark folder of the workflow's
    layout (genplan.paths.problems_of_trajectories); GenplanError naming the first problem without one."""
    from genplan.formats import manifest
    from genplan.paths import problems_of_trajectories
    from genplan.resume import file_sha256

    candidates = [Path(f) for f in folders]
    beside = problems_of_trajectories(Path(trajectories).resolve())
    if beside is not None:
        candidates.append(beside)
    files: dict[str, Path] = {}
    for folder in candidates:
        if (folder / "manifest.csv").is_file():
            for row in manifest.read(folder, doc.get("split")):
                files.setdefault(row["problem"], Path(row["path"]))
    for rec in doc["problems"]:
        if rec["problem"] not in files:
            raise GenplanError(f"no problem file for problem {rec['problem']!r}: training from plans needs the "
                               "benchmark folder (with its manifest.csv) beside the trajectories "
                               "(<root>/problems/<benchmark>/<domain>) or named in --train", trajectories)
        want = rec.get("problem_sha256")  # absent in a file made before the hashes: not checked
        if want and file_sha256(files[rec["problem"]]) != want:
            raise GenplanError(f"problem {rec['problem']!r}'s plan was made for a file of SHA-256 {want[:12]}..., but "
                               f"{files[rec['problem']]} has other content (regenerated or edited since: rerun the "
                               "plans and trajectories stages)", trajectories)
    return {rec["problem"]: files[rec["problem"]] for rec in doc["problems"]}


def plan_actions(record: dict) -> list[tuple]:
    """The ground actions of a trajectories record."""
    return [str_to_atom(a) for a in record["actions"]]
