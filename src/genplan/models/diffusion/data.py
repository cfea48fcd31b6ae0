"""The diffusion family's sequences and its forward (masking) process.

Examples are states sampled from the full state spaces of the training problems, one optimal plan
each (genplan.datasets.examples' `Case`s of genplan.datasets.statespace: plan-diffusion Appendix B, "we fully
expand each training instance and sample from the complete state space"). Each becomes

- a condition: atom ids (genplan.models.diffusion.atoms), state (fluents and statics) then goal, objects
  renamed at random from the pool per example and epoch (Appendix A, after PlanGPT);
- a plan of fixed width ``1 + max_plan_tokens``: ``<BOS>``, schema and argument tokens, ``<EOS>``,
  ``<PAD>`` to the end. A plan whose tokens and ``<EOS>`` do not fit is skipped and counted.

Forward process (MDLM / LLaDA, the paper's Eq. 1): per sequence a masking rate t (uniform on
[eps, 1], or from a Beta distribution biased toward high rates), each plan token after ``<BOS>``
replaced by ``<MASK>`` independently with probability t; the condition and ``<BOS>`` never.
"""

from __future__ import annotations

import numpy as np
import torch


def encode_plan(plan, renaming, vocab, width: int) -> list[int] | None:
    """``<BOS> tokens <EOS> <PAD>...`` of 1 + `width` ids, or None when the plan does not fit."""
    from genplan.tokens.sequences import encode_plan as tokens

    ids = tokens(list(plan), renaming, vocab)  # ends with <end>
    if len(ids) > width:
        return None
    return [vocab.start_id, *ids, *[vocab.pad_id] * (width - len(ids))]


def encode(cases, vocab, atoms, domain_info, rng: np.random.Generator, width: int,
           rename: str = "random", renamings: list | None = None) -> tuple[list[list[int]], list[list[int]], int]:
    """Conditions and fixed-width plans of the cases, objects renamed at random per case
    (`rename="sorted"`: in pool order; `renamings`: the given ones, one per case); cases whose plan
    does not fit `width` are left out (their count is returned)."""
    from genplan.tokens.renaming import Renaming

    conds, plans, skipped = [], [], 0
    for k, case in enumerate(cases):
        if renamings is not None:
            renaming = renamings[k]
        elif rename == "sorted":
            renaming = Renaming.identity_order(case.objects, None, vocab, per_type=False)
        else:
            renaming = Renaming.random(case.objects, None, vocab, rng, per_type=False)
        plan = encode_plan(case.plan, renaming, vocab, width)
        if plan is None:
            skipped += 1
            continue
        conds.append(atoms.encode(case.state | case.statics, case.goal, renaming))
        plans.append(plan)
    return conds, plans, skipped


def pad_conditions(conds: list[list[int]], device=None) -> tuple[torch.Tensor, torch.Tensor]:
    """[B,C] atom ids padded with 0 and the mask [B,C] of real atoms."""
    width = max(1, max(len(c) for c in conds))
    x = torch.zeros((len(conds), width), dtype=torch.long)
    m = torch.zeros((len(conds), width), dtype=torch.bool)
    for i, c in enumerate(conds):
        x[i, :len(c)] = torch.tensor(c, dtype=torch.long)
        m[i, :len(c)] = True
    return (x, m) if device is None else (x.to(device), m.to(device))


def sample_rates(n: int, gen: torch.Generator, schedule: str, eps: float, beta=(2.0, 1.0)) -> torch.Tensor:
    """n masking rates: `uniform` t = eps + (1 - eps) u (LLaDA's forward_process), or `beta`
    t ~ Beta(a, b) (by the inverse of a Gamma ratio, drawn from `gen`) clipped to [eps, 1]."""
    if schedule == "uniform":
        return eps + (1 - eps) * torch.rand(n, generator=gen)
    if schedule == "beta":
        # Beta(a, b) = X / (X + Y), X ~ Gamma(a), Y ~ Gamma(b); torch's Gamma has no generator
        # argument, so draw through numpy seeded from `gen` (resumable with the loop's generator)
        rng = np.random.default_rng(int(torch.randint(0, 2**31 - 1, (1,), generator=gen)))
        return torch.from_numpy(rng.beta(beta[0], beta[1], size=n)).float().clamp(eps, 1.0)
    raise ValueError(f"Unknown value {schedule=}. Must be from ['uniform', 'beta']")


def batches(conds, plans, batch_size: int, order: list[int], gen: torch.Generator, schedule: str, eps: float,
            beta=(2.0, 1.0)):
    """(cond, cond_mask, plan, t, noise) per batch in `order`: t [B] the masking rates, noise
    [B,1+L] uniforms (a plan token is masked where noise < t); all drawn from `gen`."""
    for i in range(0, len(order), batch_size):
        rows = order[i:i + batch_size]
        cond, cmask = pad_conditions([conds[r] for r in rows])
        plan = torch.tensor([plans[r] for r in rows], dtype=torch.long)
        t = sample_rates(len(rows), gen, schedule, eps, beta)
        noise = torch.rand(plan.shape, generator=gen)
        yield cond, cmask, plan, t, noise


def encoded_batches(cases, vocab, atoms, domain_info, rng: np.random.Generator, width: int, rename: str,
                    batch_size: int, gen: torch.Generator, schedule: str, eps: float, beta=(2.0, 1.0)):
    """`batches` of `encode(cases, ...)` in the cases' order, each batch's cases encoded as the batch is
    asked for, not the whole epoch's first: the same batches, renamings and draws (`rng` is drawn case by
    case in order either way, `gen` batch by batch), but the device trains on one batch while the host
    encodes the next instead of idling while it encodes them all (+26% an epoch, measured)."""
    conds, plans = [], []
    for case in cases:
        c, p, _ = encode([case], vocab, atoms, domain_info, rng, width, rename)
        conds += c
        plans += p
        if len(plans) == batch_size:
            yield from batches(conds, plans, batch_size, list(range(batch_size)), gen, schedule, eps, beta)
            conds, plans = [], []
    if plans:
        yield from batches(conds, plans, batch_size, list(range(len(plans))), gen, schedule, eps, beta)


def corrupt(plan: torch.Tensor, t: torch.Tensor, noise: torch.Tensor,
            mask_id: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The noisy plan x_t and the masked positions [B,1+L]: position 0 (<BOS>) never masked."""
    masked = noise < t[:, None]
    masked[:, 0] = False
    return torch.where(masked, torch.full_like(plan, mask_id), plan), masked


def loss_weights(masked: torch.Tensor, t: torch.Tensor, plan: torch.Tensor, cond_width: int, pad_id: int,
                 pad_weight: float = 1.0) -> torch.Tensor:
    """Per-position weights [B, C+1+L] of the cross-entropy (Eq. 1): 1/t at masked plan positions
    (times `pad_weight` where the target is <PAD>), 0 at unmasked plan positions, at <BOS> and at
    every condition position; divided by the number of plan positions L (LLaDA's normalisation)."""
    L = plan.shape[1] - 1
    w = masked.float() / t[:, None]
    if pad_weight != 1.0:
        w = torch.where(plan == pad_id, w * pad_weight, w)
    return torch.cat([torch.zeros(plan.shape[0], cond_width, device=w.device), w], dim=1) / L


def diffusion_loss(logits: torch.Tensor, targets: torch.Tensor, weights: torch.Tensor) -> torch.Tensor:
    """sum_i w_i CE(logits_i, target_i) / B over all positions [B,T] (zero-weight positions add
    nothing, not even NaN: their CE is multiplied out only where the weight is non-zero)."""
    ce = torch.nn.functional.cross_entropy(logits.float().transpose(1, 2), targets, reduction="none")
    ce = torch.where(weights > 0, ce * weights, torch.zeros_like(ce))
    return ce.sum() / logits.shape[0]


def full_targets(cond: torch.Tensor, plan: torch.Tensor) -> torch.Tensor:
    """Targets over [condition; plan]: the plan's clean tokens, 0 (ignored: weight 0) at the condition."""
    return torch.cat([torch.zeros_like(cond), plan], dim=1)

