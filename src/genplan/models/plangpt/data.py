"""PlanGPT's training data, from the pipeline's own stages, in two protocols:

- `symt`: states sampled from the full state spaces of the training problems, each with one
  optimal plan from that state (genplan.datasets.statespace), as the SymT paper (Table 2) and the
  plan-diffusion paper retrain PlanGPT;
- `plangpt`: the training problems' own plans (VAL trajectories of Fast Downward's plans, A* +
  LM-cut where it finished) from the initial state, and, as more examples from the same plans,
  every suffix from every state along them. PlanGPT used several LPG plans per problem on ~70k
  generated problems (PlanGPT paper, Section 4); ours has one Fast Downward plan per problem.

Either way an example is a `Case` (genplan.datasets.examples: objects, state, statics, goal,
plan); `encode` turns it into token ids and a loss mask (genplan.tokens), renaming objects at
random per example (seeded), as both papers do.
"""

from __future__ import annotations

import numpy as np

from genplan.datasets.examples import Case

PROTOCOLS = ("symt", "plangpt")
# random: fresh names per example and epoch (ours); once: random names drawn once per example, the same
# every epoch (PlanGPT's dataset: "the objects names of the problem and of the corresponding plans are
# randomised" when the dataset is made, Figure 2); sorted: objects in pool order, as evaluation names them
RENAMINGS = ("random", "once", "sorted")


def encode(cases: list[Case], vocab, domain_info, rng: np.random.Generator, per_type: bool, order: str,
           max_len: int, rename: str = "random") -> tuple[list[list[int]], list[list[bool]], int]:
    """Token ids and loss masks of the cases, objects renamed at random per case from `rng` (`random`
    and `once`: the caller gives `once` the same generator state every epoch; `sorted`: in pool order,
    as evaluation does); cases longer than `max_len` tokens are dropped (their count
    is returned)."""
    from genplan.tokens.renaming import Renaming
    from genplan.tokens.sequences import encode_plan, encode_problem, make_example
    from genplan.tokens.types import object_types

    ids, masks, dropped = [], [], 0
    for case in cases:
        # one global pool: no types (a case of a typed domain has no problem file to read them from)
        types = object_types(domain_info, case.task(domain_info.name)) if per_type else None
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


def length_grouped(order: list[int], lengths: list[int], batch_size: int, window: int, shuffle) -> list[int]:
    """`order` regrouped so that each batch holds sequences of similar length (less padding): every run
    of `window` batches of `order` sorted by length and cut into batches, then the batches of all runs put
    in the order `shuffle(n)` (a permutation of range(n)) gives. The epoch's examples are unchanged."""
    size = batch_size * window
    groups = []
    for i in range(0, len(order), size):
        run = sorted(order[i:i + size], key=lambda r: lengths[r])
        groups += [run[j:j + batch_size] for j in range(0, len(run), batch_size)]
    return [r for g in shuffle(len(groups)) for r in groups[g]]


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
