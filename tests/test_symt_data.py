"""SymT's training data (genplan.models.symt.data): the prepared templates renamed through a lookup
table give the ids of encoding each renamed copy afresh (the same draws from the same generator),
and batches are padded to their own longest example."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from genplan.datasets.examples import Case
from genplan.domains import domain_file
from genplan.models.symt import data
from genplan.nn.contrastive import renaming_pair
from genplan.pddl_io import parse_domain
from genplan.tokens.atom_rows import atom_vocabulary, encode_atom_set
from genplan.tokens.renaming import Renaming
from genplan.tokens.sequences import encode_plan


def _case(balls: int) -> Case:
    names = [f"ball{i}" for i in range(1, balls + 1)]
    statics = frozenset([("room", "rooma"), ("room", "roomb"), ("gripper", "left"), ("gripper", "right")]
                        + [("ball", b) for b in names])
    state = frozenset([("at-robby", "rooma"), ("free", "left"), ("free", "right")]
                      + [("at", b, "rooma") for b in names])
    plan = []
    for b in names:
        plan += [("pick", b, "rooma", "left"), ("move", "rooma", "roomb"), ("drop", b, "roomb", "left"),
                 ("move", "roomb", "rooma")]
    return Case(f"p{balls}", ("rooma", "roomb", "left", "right", *names), state, statics,
                frozenset(("at", b, "roomb") for b in names), tuple(plan))


@pytest.fixture(scope="module")
def setting():
    info = parse_domain(domain_file("gripper"))
    return info, atom_vocabulary(info, 12), [_case(n) for n in (1, 3, 2, 5, 4)]


def _reference(cases, vocab, rng, rename, max_len):
    """Each renamed copy encoded afresh (encode_atom_set, encode_plan), as before templates."""
    rows, plans, dropped = [], [], 0
    for c in cases:
        if rename == "sorted":
            names = (Renaming.identity_order(c.objects, None, vocab),)
        elif rename == "random":
            names = (Renaming.random(c.objects, None, vocab, rng),)
        else:
            names = renaming_pair(c.objects, None, vocab, rng, rename)
        ps = [[vocab.action_id] + encode_plan(list(c.plan), r, vocab) for r in names]
        if len(ps[0]) - 1 > max_len:
            dropped += 1
            continue
        rows.append([encode_atom_set(c.state, c.goal, r, vocab, c.statics) for r in names])
        plans.append(ps)
    return rows, plans, dropped


@pytest.mark.parametrize("rename", ["rename-both", "rename-one", "random", "sorted"])
def test_prepared_cases_renamed_equal_encoding_afresh(setting, rename):
    info, vocab, cases = setting
    prepared = data.prepare(cases, vocab, info, False, True)
    for seed, max_len in ((0, 500), (1, 30)):  # 30: the plans of 3 or more balls (43+ tokens) are dropped
        enc = data.encode(prepared, vocab, info, np.random.default_rng(seed), rename, False, True, max_len)
        rows, plans, dropped = _reference(cases, vocab, np.random.default_rng(seed), rename, max_len)
        assert enc.dropped == dropped and [[r.tolist() for r in ex] for ex in enc.rows] == rows
        assert [[p.tolist() for p in ex] for ex in enc.plans] == plans
    assert dropped == 3 and len(rows[0]) == (2 if rename.startswith("rename") else 1)
    unprepared = data.encode(cases, vocab, info, np.random.default_rng(1), rename, False, True, 30)
    assert [[r.tolist() for r in ex] for ex in unprepared.rows] == rows  # a list of cases: prepared inside
    with pytest.raises(ValueError, match="prepared"):
        data.encode(prepared, vocab, info, np.random.default_rng(0), rename, False, False, 500)


def test_batches_pad_to_their_own_longest_example(setting):
    info, vocab, cases = setting
    enc = data.encode(cases, vocab, info, np.random.default_rng(0), "rename-both", False, True, 500)
    order = [3, 0, 1, 4, 2]
    batches = list(data.batches(enc, 2, order, vocab.pad_id))
    assert [b["h"].tolist() for b in batches] == [[20.0, 4.0], [12.0, 16.0], [8.0]]
    for b, idx in zip(batches, (order[:2], order[2:4], order[4:])):
        copies = [(j, c) for c in range(2) for j in idx]  # copy A of every example, then copy B
        assert b["copies"] == 2 and b["rows"].dtype == torch.long and b["mask"].dtype == torch.bool
        assert b["rows"].shape[:2] == (2 * len(idx), max(len(enc.rows[j][0]) for j in idx))
        for k, (j, c) in enumerate(copies):
            n, t = len(enc.rows[j][c]), len(enc.plans[j][c])
            assert b["rows"][k, :n].tolist() == enc.rows[j][c].tolist() and b["mask"][k].sum() == n
            assert (b["rows"][k, n:] == vocab.pad_id).all()
            assert b["dec_in"][k, :t - 1].tolist() == enc.plans[j][c][:-1].tolist()
            assert b["dec_out"][k, :t - 1].tolist() == enc.plans[j][c][1:].tolist()
            assert b["dec_mask"][k].sum() == t - 1 and (b["dec_out"][k, t - 1:] == vocab.pad_id).all()
        assert b["dec_in"].shape[1] == max(len(enc.plans[j][c]) for j, c in copies) - 1
