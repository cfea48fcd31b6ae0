"""SymT's training data (SymT paper, Section 6, "Experimental Setup"):

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
`sorted` one copy in pool order (validation, as evaluation names objects). What renaming does
not change is encoded once per case (`prepare`: the ids in pool order); each epoch's names then
map those ids through a lookup table (the same ids as encoding each renamed copy afresh, at a fraction of the CPU).
`batches` pads them to the batch's longest example: the two copies of a batch are stacked, copy A
in rows 0..B-1 and copy B in rows B..2B-1.
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


class Prepared(list):
    """The cases' `Template`s, made once (`prepare`) and renamed every epoch by `encode`."""

    def __init__(self, templates, vocab, per_type: bool, decoder: bool):
        super().__init__(templates)
        self.vocab, self.per_type, self.decoder = vocab, per_type, decoder


@dataclass
class Template:
    """One case's token ids with its objects in pool order (`Renaming.identity_order`): atom rows
    [N, 1 + m], the plan (`<action>` ... `<end>`, or None) and the ids its objects take there. Any
    other renaming r gives the ids of `lut[rows]` with lut mapping each object's pool-order id to
    its id under r: predicates, schemas and pads are no object tokens and stay."""
    case: Case
    types: dict | None
    rows: np.ndarray
    plan: np.ndarray | None
    objects: tuple  # the renaming's objects (in the order of `ids`)
    ids: np.ndarray  # their ids in pool order


def prepare(cases: list[Case], vocab, domain_info, per_type: bool, decoder: bool) -> Prepared:
    """The `Template` of each case: what does not change when objects are renamed, encoded once."""
    from genplan.tokens.atom_rows import encode_atom_set, max_arity
    from genplan.tokens.renaming import Renaming
    from genplan.tokens.sequences import encode_plan
    from genplan.tokens.types import object_types

    out, width = [], 1 + max_arity(vocab)
    for case in cases:
        types = object_types(domain_info, case.task(domain_info.name)) if per_type else None
        ident = Renaming.identity_order(case.objects, types, vocab, per_type=per_type)
        rows = np.asarray(encode_atom_set(case.state, case.goal, ident, vocab, case.statics),
                          dtype=np.int64).reshape(-1, width)
        plan = np.asarray([vocab.action_id] + encode_plan(list(case.plan), ident, vocab), dtype=np.int64) \
            if decoder else None
        objects = tuple(ident.forward)
        out.append(Template(case, types, rows, plan, objects,
                            np.asarray([vocab.id(ident.forward[o]) for o in objects], dtype=np.int64)))
    return Prepared(out, vocab, per_type, decoder)


def encode(cases, vocab, domain_info, rng: np.random.Generator, rename: str, per_type: bool,
           decoder: bool, max_len: int) -> Encoded:
    """The cases (or their `prepare`d templates, made with the same vocabulary, per_type and
    decoder) with objects renamed per `rename`: each copy's atom rows (an array [N, 1 + m]) and
    plan (an array, `<action>` first); plans longer than `max_len` tokens are dropped, counted."""
    from genplan.nn.contrastive import renaming_pair
    from genplan.tokens.renaming import Renaming

    if not isinstance(cases, Prepared):
        cases = prepare(cases, vocab, domain_info, per_type, decoder)
    elif (cases.vocab is not vocab or cases.per_type != per_type or cases.decoder != decoder):
        raise ValueError("the prepared cases were made with another vocabulary, per_type or decoder")
    lut = np.arange(len(vocab), dtype=np.int64)
    out = Encoded([], [], [])
    for t in cases:
        case = t.case
        if rename == "sorted":
            names = (Renaming.identity_order(case.objects, t.types, vocab, per_type=per_type),)
        elif rename == "random":
            names = (Renaming.random(case.objects, t.types, vocab, rng, per_type=per_type),)
        else:
            names = renaming_pair(case.objects, t.types, vocab, rng, rename, per_type=per_type)
        if decoder and len(t.plan) - 1 > max_len:  # plan tokens and <end>, after <action>
            out.dropped += 1
            continue
        rows, plans = [], []
        for r in names:
            forward = r.forward
            lut[t.ids] = [vocab.id(forward[o]) for o in t.objects]
            rows.append(lut[t.rows])
            if decoder:
                plans.append(lut[t.plan])
            lut[t.ids] = t.ids
        out.rows.append(rows)
        out.plans.append(plans)
        out.h.append(float(len(case.plan)))
    return out


def _pad(arrays: list[np.ndarray], pad_id: int) -> tuple[torch.Tensor, torch.Tensor]:
    """[K, L, ...] of the arrays (each [l_k, ...]) padded with pad_id to the longest, and the mask
    [K, L] of their real positions."""
    lengths = np.fromiter((len(a) for a in arrays), dtype=np.int64, count=len(arrays))
    n = int(lengths.max())
    x = np.full((len(arrays), n, *arrays[0].shape[1:]), pad_id, dtype=np.int64)
    mask = np.arange(n)[None, :] < lengths[:, None]
    x[mask] = np.concatenate(arrays)
    return torch.from_numpy(x), torch.from_numpy(mask)


def batches(enc: Encoded, batch_size: int, order: list[int], pad_id: int = 0):
    """Dicts of tensors: rows [C*B, N, W], mask [C*B, N], h [B], copies C; with plans also
    dec_in / dec_out [C*B, T] (next-token shifted) and dec_mask [C*B, T] (real target tokens).
    Each batch is padded to its own longest example."""
    for i in range(0, len(order), batch_size):
        idx = order[i:i + batch_size]
        copies = len(enc.rows[idx[0]])
        x, mask = _pad([np.asarray(enc.rows[j][c]) for c in range(copies) for j in idx], pad_id)
        batch = {"rows": x, "mask": mask, "h": torch.tensor([enc.h[j] for j in idx]), "copies": copies}
        if enc.plans and len(enc.plans[idx[0]]):
            y, real = _pad([np.asarray(enc.plans[j][c]) for c in range(copies) for j in idx], pad_id)
            batch.update(dec_in=y[:, :-1], dec_out=y[:, 1:], dec_mask=real[:, 1:], dec_real=real[:, :-1])
        yield batch
