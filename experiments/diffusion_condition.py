"""Does a masked-diffusion checkpoint read its condition? On the states along a trajectories file
(each with the rest of its plan), objects named in pool order and at random (seeded), the plan is
masked at rate t (1: every position; 0.5: half) and the denoiser's predictions are compared with
those it makes when given another state's condition (the next example's): the mean KL divergence
over the masked positions (0: the prediction does not depend on the condition) and how often the
argmax is the plan's token at masked positions that are not `<PAD>`. A diagnosis of issue 25's
diffusion trials (experiments/sequence-recipe.md), as experiments/symted_fit.py is for SymT^ED.

    python experiments/diffusion_condition.py TRAJECTORIES.json.gz CHECKPOINT [...]
"""

from __future__ import annotations

import sys

import numpy as np
import torch


def condition_lines(checkpoint: str, trajectories: str, seed: int = 0) -> list[str]:
    from genplan.checkpoint import read
    from genplan.datasets.examples import trajectory_cases
    from genplan.formats.trajectories import load
    from genplan.models.diffusion import data
    from genplan.models.diffusion.model import DiffusionModel

    model = DiffusionModel.from_envelope(read(checkpoint), checkpoint)
    net, vocab = model.net.eval(), model.vocab
    cases = trajectory_cases(load(trajectories), suffixes=True)
    lines = []
    for names in ("sorted", "random"):
        conds, plans, _ = data.encode(cases, vocab, model.atoms, model.domain_info, np.random.default_rng(seed),
                                      model.settings.max_plan_tokens, rename=names)
        cond, cmask = data.pad_conditions(conds)
        plan = torch.tensor(plans)
        other = torch.roll(torch.arange(len(plans)), 1)
        gen = torch.Generator().manual_seed(seed)
        parts = []
        for t in (1.0, 0.5):
            noisy, masked = data.corrupt(plan, torch.full((len(plans),), t), torch.rand(plan.shape, generator=gen),
                                         vocab.mask_id)
            with torch.no_grad():
                own = net.plan_logits(cond, cmask, noisy).log_softmax(-1)
                swapped = net.plan_logits(cond[other], cmask[other], noisy).log_softmax(-1)
            kl = float((own.exp() * (own - swapped)).sum(-1)[masked].mean())
            right = float((own.argmax(-1) == plan)[masked & (plan != vocab.pad_id)].float().mean())
            parts.append(f"t={t}: KL(own condition || another's) {kl:.4f}, argmax right (masked, not <PAD>) {right:.3f}")
        lines.append(f"{trajectories} ({names} names, {len(plans)} states): " + "; ".join(parts))
    return lines


def main(argv: list[str]) -> int:
    torch.set_num_threads(1)
    if len(argv) < 2:
        print(__doc__)
        return 2
    for checkpoint in argv[1:]:
        print(f"## {checkpoint}")
        print("\n".join(condition_lines(checkpoint, argv[0])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
