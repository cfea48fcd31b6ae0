"""PlanGPT's training data, from the pipeline's own stages, in two protocols (issue 12, item 3):

- `symt`: states sampled from the full state spaces of the training problems, each with one
  optimal plan from that state (genplan.datasets.statespace), as the SymT paper (Table 2) and the
  plan-diffusion paper retrain PlanGPT;
- `plangpt`: the training problems' own plans (VAL trajectories of Fast Downward's plans, A* +
  LM-cut where it finished) from the initial state, and, as more examples from the same plans,
  every suffix from every state along them. PlanGPT used several LPG plans per problem on ~70k
  generated problems (PlanGPT paper, Section 4); ours has one Fast Downward plan per problem.

Either way an example is a `Case` (objects, state, statics, goal, plan) in the package's one
representation; `encode` turns it into token ids and a loss mask (genplan.tokens), renaming
objects at random per example (seeded), as both papers do.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from genplan.errors import GenplanError
from genplan.pddl_io import Action, Task, str_to_atom

PROTOCOLS = ("symt", "plangpt")
RENAMINGS = ("random", "sorted")


@dataclass(frozen=True)
class Case:
    problem: str
    objects: tuple[str, ...]
    state: frozenset
    statics: frozenset
    goal: frozenset
    plan: tuple[Action, ...]

    def task(self, domain_name: str = "") -> Task:
        return Task(self.problem, domain_name, None, self.objects, self.state, self.statics, self.goal)


def _objects(*atom_sets, actions=()) -> tuple[str, ...]:
    names = {o for atoms in atom_sets for a in atoms for o in a[1:]} | {o for a in actions for o in a[1:]}
    return tuple(sorted(names))


def trajectory_cases(doc: dict, suffixes: bool = True) -> list[Case]:
    """Cases of a loaded trajectories document (genplan.stages.trajectories.load): each plan (the
    problem's plan and its `alternatives`, when the file has them) from its initial state, and with
    `suffixes` from every later state too."""
    cases = []
    for rec in doc["problems"]:
        statics = frozenset(map(str_to_atom, rec["statics"]))
        goal = frozenset(map(str_to_atom, rec["goal"]))
        plan = tuple(str_to_atom(a) for a in rec["actions"])
        states = [frozenset(map(str_to_atom, s)) for s in rec["states"]]
        objects = _objects(statics, goal, *states, actions=plan)
        for alt in [{"actions": rec["actions"], "states": rec["states"]}] + rec.get("alternatives", []):
            plan = tuple(str_to_atom(a) for a in alt["actions"])
            states = [frozenset(map(str_to_atom, s)) for s in alt["states"]]
            starts = range(len(plan)) if suffixes else range(min(1, len(plan)))
            cases += [Case(rec["problem"], objects, states[i], statics, goal, plan[i:]) for i in starts]
    return cases


def statespace_cases(folder: str | Path, n: int, seed: int, by: str = "state") -> list[Case]:
    """n cases sampled from the state spaces of a split folder (the SymT protocol); goal states
    (empty plans) are left out: they teach only `<end>`."""
    from genplan.datasets.statespace import load_split, sample_split

    spaces = load_split(folder)
    out = []
    for ex in sample_split(spaces, n, seed, by=by):
        if ex.plan:
            out.append(Case(ex.problem, tuple(ex.objects), ex.state, ex.statics, ex.goal, tuple(ex.plan)))
    if not out:
        raise GenplanError("every sampled state is a goal state: nothing to learn", folder)
    return out


def encode(cases: list[Case], vocab, domain_info, rng: np.random.Generator, per_type: bool, order: str,
           max_len: int, rename: str = "random") -> tuple[list[list[int]], list[list[bool]], int]:
    """Token ids and loss masks of the cases, objects renamed at random per case (`rename="sorted"`:
    in pool order, as evaluation does); cases longer than `max_len` tokens are dropped (their count
    is returned)."""
    from genplan.tokens.renaming import Renaming
    from genplan.tokens.sequences import encode_plan, encode_problem, make_example
    from genplan.tokens.types import object_types

    ids, masks, dropped = [], [], 0
    for case in cases:
        task = case.task(domain_info.name)
        types = object_types(domain_info, task)
        if rename == "sorted":
            renaming = Renaming.identity_order(case.objects, types, vocab, per_type=per_type)
        else:
            renaming = Renaming.random(case.objects, types, vocab, rng, per_type=per_type)
        prob = encode_problem(case.state, case.goal, renaming, vocab, order=order, rng=rng, statics=case.statics)
        seq, mask = make_example(prob, encode_plan(list(case.plan), renaming, vocab))
        if len(seq) > max_len:
            dropped += 1
            continue
        ids.append(seq)
        masks.append(mask)
    return ids, masks, dropped


def batches(ids: list[list[int]], masks: list[list[bool]], batch_size: int, pad_id: int, order: list[int]):
    """Padded (input, target, loss-mask, attention-mask) tensors, next-token shifted, in `order`."""
    import torch

    for i in range(0, len(order), batch_size):
        rows = order[i:i + batch_size]
        width = max(len(ids[r]) for r in rows)
        x = torch.full((len(rows), width), pad_id, dtype=torch.long)
        m = torch.zeros((len(rows), width), dtype=torch.bool)
        real = torch.zeros((len(rows), width), dtype=torch.bool)
        for j, r in enumerate(rows):
            n = len(ids[r])
            x[j, :n] = torch.tensor(ids[r])
            m[j, :n] = torch.tensor(masks[r])
            real[j, :n] = True
        # predict token t+1 from tokens <= t: the loss sits on the targets that are plan tokens
        yield x[:, :-1], x[:, 1:], m[:, 1:], real[:, :-1]
