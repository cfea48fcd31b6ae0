"""Stage 4: full expansion of training problems with pymimir: every reachable state, its optimal
goal distance h* (-1 for dead ends), and every transition, stored compactly as one `.npz` a problem
in the format `genplan-statespace/2`, which stands alone: training data needs no other file
(DESIGN.md, data stage 4).

- `atoms` (str): the fluent atoms, `(pred a b)`; `actions` (str): the ground actions;
- `state_ptr` (int64, n+1) and `state_atoms` (int32): state i is atoms[state_atoms[ptr[i]:ptr[i+1]]];
- `h_star` (int32), `is_goal` (bool), `initial` (int);
- `src`, `dst`, `action` (int32): the transitions;
- `objects` (str): the problem's objects; `statics` (str): its static atoms, `(pred a b)`;
  `goal` (str): its goal atoms (all three as `genplan.pddl_io.parse_problem` reads them);
- `meta` (str): JSON with the format name, the problem (file stem, as in the manifest), its PDDL
  name, the PDDL domain name, the domain key (`blocks`, ... or null for a domain the package does
  not ship), the problem and domain file names without directories, and the sizes.

Format 1 (no objects, statics or goal) is refused by `load`: state spaces are not committed, so
the statespace rule is rerun instead of converting old files.
"""

from __future__ import annotations

import functools
import json
import logging
import time
from pathlib import Path

import numpy as np
import pymimir as pm

from genplan import atomic
from genplan.domains import DOMAINS, domain_file
from genplan.errors import GenplanError
from genplan.formats import manifest
from genplan.formats.statespace import FORMAT, SUMMARY_COLUMNS
from genplan.formats.tables import csv_text
from genplan.mimir import MimirTask
from genplan.pddl_io import atom_to_str, parse_domain, parse_problem
from genplan.progress import progress

log = logging.getLogger("genplan")


class StateSpaceTooLarge(GenplanError):
    pass


@functools.cache
def _shipped_domain_keys() -> dict[str, str]:
    return {parse_domain(domain_file(key)).name: key for key in DOMAINS}


def domain_key(pddl_domain_name: str) -> str | None:
    """The package's key of a shipped domain (`blocks`, ...) from its PDDL name; None otherwise."""
    return _shipped_domain_keys().get(pddl_domain_name)


def expand(domain: Path, problem: Path, max_states: int) -> dict[str, np.ndarray]:
    parsed = parse_problem(problem, parse_domain(domain))  # names the file when it is malformed
    task = MimirTask(domain, problem)
    space = pm.StateSpaceSampler.new(task.problem, max_states=int(max_states))
    if space is None:
        raise StateSpaceTooLarge(
            f"the state space has more than {max_states} states (statespace.max_states in the "
            "configuration): raise the limit or leave this problem out of the training split", problem)
    states = space.get_states()
    position = {s.get_index(): i for i, s in enumerate(states)}
    atom_ids: dict[tuple, int] = {}
    action_ids: dict[tuple, int] = {}
    ptr = [0]
    flat: list[int] = []
    h_star = np.empty(len(states), dtype=np.int32)
    is_goal = np.zeros(len(states), dtype=bool)
    src: list[int] = []
    dst: list[int] = []
    act: list[int] = []
    initial = -1
    by_mimir_index: dict[int, int] = {}  # pymimir atom index -> our atom id (converted once)
    for i, s in enumerate(states):
        ids = []
        for a in s.get_atoms(ignore_static=True, ignore_derived=True):
            idx = by_mimir_index.get(a.get_index())
            if idx is None:
                idx = by_mimir_index[a.get_index()] = atom_ids.setdefault(task.atom(a), len(atom_ids))
            ids.append(idx)
        ids.sort()
        flat.extend(ids)
        ptr.append(len(flat))
        label = space.get_state_label(s)
        h_star[i] = -1 if label.is_dead_end else label.steps_to_goal
        is_goal[i] = label.is_goal
        if label.is_initial:
            initial = i
        for ground_action, succ in space.get_forward_transitions(s):
            src.append(i)
            dst.append(position[succ.get_index()])
            act.append(action_ids.setdefault(task.action(ground_action), len(action_ids)))
    atom_list = list(atom_ids)
    init_atoms = {atom_list[j] for j in flat[ptr[initial]:ptr[initial + 1]]} if initial >= 0 else None
    if init_atoms != set(parsed.init):  # pymimir and pddl_io must agree on what is static
        raise GenplanError("pymimir's initial state differs from the parsed fluent atoms of the problem", problem)
    meta = {"format": FORMAT, "problem": Path(problem).stem, "problem_name": parsed.name,
            "domain_name": parsed.domain_name, "domain": domain_key(parsed.domain_name),
            "problem_file": Path(problem).name, "domain_file": Path(domain).name,
            "states": len(states), "transitions": len(src)}
    return {
        "atoms": np.array([atom_to_str(a) for a in atom_ids], dtype=str),
        "actions": np.array(["(" + " ".join(a) + ")" for a in action_ids], dtype=str),
        "state_ptr": np.array(ptr, dtype=np.int64),
        "state_atoms": np.array(flat, dtype=np.int32),
        "h_star": h_star, "is_goal": is_goal, "initial": np.array(initial),
        "src": np.array(src, dtype=np.int32), "dst": np.array(dst, dtype=np.int32),
        "action": np.array(act, dtype=np.int32),
        "objects": np.array(parsed.objects, dtype=str),
        "statics": np.array(sorted(atom_to_str(a) for a in parsed.statics), dtype=str),
        "goal": np.array(sorted(atom_to_str(a) for a in parsed.goal), dtype=str),
        "meta": np.array(json.dumps(meta)),
    }


def summary(space: dict[str, np.ndarray]) -> dict:
    h = space["h_star"]
    alive = h[h >= 0]
    return {
        "states": len(h), "transitions": len(space["src"]), "goal_states": int(space["is_goal"].sum()),
        "dead_ends": int((h < 0).sum()), "max_h_star": int(alive.max()) if len(alive) else -1,
        "h_star_init": int(h[int(space["initial"])]),
    }


def statespaces_split(benchmark_dir: str | Path, split: str, max_states: int, out_dir: str | Path, out_table: str | Path) -> list[dict]:
    benchmark_dir = Path(benchmark_dir)
    domain = benchmark_dir / "domain.pddl"
    rows = manifest.read(benchmark_dir, split)
    table = []
    with atomic.output_dir(out_dir, owner="statespace") as tmp:
        for row in progress(rows, total=len(rows), desc=f"state spaces {split}"):
            start = time.perf_counter()
            space = expand(domain, row["path"], max_states)
            np.savez_compressed(Path(tmp) / f"{row['problem']}.npz", **space)
            table.append({"problem": row["problem"], **summary(space), "seconds": f"{time.perf_counter() - start:.2f}"})
    atomic.write_text(out_table, csv_text(table, SUMMARY_COLUMNS))  # after the folder
    log.info("%s: %d state spaces, %d states in all", split, len(table), sum(r["states"] for r in table))
    return table


