"""SymT's training data (SymT paper, Section 6, "Experimental Setup"; issue 13, items 2-4):

- training: states sampled uniformly from the full state spaces of the training problems
  (genplan.datasets.examples.statespace_cases: states with finite h* only; dead ends are never drawn and their
  number is counted), each with h* (SymT^E's target) and one optimal plan (SymT^ED's target);
  SymT^ED leaves goal states out (their plan is empty), SymT^E keeps them (h* = 0);
- validation: the states along the validation problems' plans (the trajectories stage), each with
  the rest of its plan (h = its length: h* where the plan is optimal), at most `val_examples`.

With `train: {data: plans}` the training states are those along the training plans instead
(genplan.models.symt.plan_data), drawn as the validation states are.

`encode` renames objects per example: rename-both / rename-one give two copies (X, X') whose atom
rows and plan tokens correspond position by position (genplan.nn.contrastive); `random` one copy;
`sorted` one copy in pool order (validation, as evaluation names objects). `batches` pads them:
the two copies of a batch are stacked, copy A in rows 0..B-1 and copy B in rows B..2B-1.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from genplan.datasets.examples import Case, trajectory_cases


@dataclass
class Encoded:
    rows: list  # per example: one or two copies of atom rows
    plans: list  # per example: one or two copies of plan token ids (`<action>` ... `<end>`); [] for SymT^E
    h: list  # per example: the target h (len of its plan)
    dropped: int = 0  # plans longer than the decoder's context


def validation_cases(doc: dict, limit: int, seed: int, keep_goal_states: bool) -> list[Case]:
    cases = trajectory_cases(doc, suffixes=True)
    if keep_goal_states:  # the goal state at each plan's end, h = 0
        objects = {c.problem: c for c in cases}
        cases += [Case(c.problem, c.objects, _final(rec), c.statics, c.goal, ())
                  for rec in doc["problems"] if (c := objects.get(rec["problem"])) is not None]
    if len(cases) > limit:
        keep = np.random.default_rng(seed).choice(len(cases), size=limit, replace=False)
        cases = [cases[i] for i in sorted(keep.tolist())]
    return cases


def _final(rec: dict) -> frozenset:
    from genplan.pddl_io import str_to_atom

    return frozenset(map(str_to_atom, rec["states"][-1]))


def encode(cases: list[Case], vocab, domain_info, rng: np.random.Generator, rename: str, per_type: bool,
           decoder: bool, max_len: int) -> Encoded:
    from genplan.nn.contrastive import renaming_pair
    from genplan.tokens.atom_rows import encode_atom_set
    from genplan.tokens.renaming import Renaming
    from genplan.tokens.sequences import encode_plan
    from genplan.tokens.types import object_types

    out = Encoded([], [], [])
    for case in cases:
        types = object_types(domain_info, case.task(domain_info.name)) if per_type else None
        if rename == "sorted":
            names = (Renaming.identity_order(case.objects, types, vocab, per_type=per_type),)
        elif rename == "random":
            names = (Renaming.random(case.objects, types, vocab, rng, per_type=per_type),)
        else:
            names = renaming_pair(case.objects, types, vocab, rng, rename, per_type=per_type)
        plans = [[vocab.action_id] + encode_plan(list(case.plan), r, vocab) for r in names] if decoder else []
        if decoder and len(plans[0]) - 1 > max_len:
            out.dropped += 1
            continue
        out.rows.append([encode_atom_set(case.state, case.goal, r, vocab, case.statics) for r in names])
        out.plans.append(plans)
        out.h.append(float(len(case.plan)))
    return out


def batches(enc: Encoded, batch_size: int, order: list[int], pad_id: int = 0):
    """Dicts of tensors: rows [C*B, N, W], mask [C*B, N], h [B], copies C; with plans also
    dec_in / dec_out [C*B, T] (next-token shifted) and dec_mask [C*B, T] (real target tokens)."""
    for i in range(0, len(order), batch_size):
        idx = order[i:i + batch_size]
        copies = len(enc.rows[idx[0]])
        rows = [enc.rows[j][c] for c in range(copies) for j in idx]
        n, width = max(len(r) for r in rows), len(rows[0][0])
        x = torch.full((len(rows), n, width), pad_id, dtype=torch.long)
        mask = torch.zeros((len(rows), n), dtype=torch.bool)
        for k, r in enumerate(rows):
            x[k, :len(r)] = torch.tensor(r)
            mask[k, :len(r)] = True
        batch = {"rows": x, "mask": mask, "h": torch.tensor([enc.h[j] for j in idx]), "copies": copies}
        if enc.plans and enc.plans[idx[0]]:
            plans = [enc.plans[j][c] for c in range(copies) for j in idx]
            t = max(len(p) for p in plans)
            y = torch.full((len(plans), t), pad_id, dtype=torch.long)
            real = torch.zeros((len(plans), t), dtype=torch.bool)
            for k, p in enumerate(plans):
                y[k, :len(p)] = torch.tensor(p)
                real[k, :len(p)] = True
            batch.update(dec_in=y[:, :-1], dec_out=y[:, 1:], dec_mask=real[:, 1:], dec_real=real[:, :-1])
        yield batch
