"""Parameter count of the diffusion denoiser at the paper's settings, and ONE full-size training
step on the CPU (or --device) through the training job's own loss (genplan.models.diffusion.data).

The paper gives no size; it compares with PlanGPT "with comparable trainable parameters" (SymT
Table 1: 117M), so the paper configuration takes GPT-2 small's shape (12 layers, d_model 768, 12
heads) and the 220 plan positions of its Table 2 (209 <MASK> + 11 <PAD> after step 1). The atom
table grows with the pool (K^2 tokens per binary predicate, twice: state and goal), so its size
is printed apart.

The batch holds --batch copies of one generated problem of --domain (--size), its plan a random
walk of --actions applicable actions (pymimir): real tokens, full-width sequences.

    nice python perf/diffusion_size.py [--domain blocks] [--size 8] [--pool 48] [--batch 8]
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

from genplan.datasets.examples import Case
from genplan.domains import domain_file
from genplan.mimir import MimirTask
from genplan.models.diffusion import data
from genplan.models.diffusion.atoms import AtomVocabulary
from genplan.models.diffusion.model import Denoiser, DiffusionSettings, network_config
from genplan.nn.transformer import TransformerConfig, parameter_count
from genplan.pddl_io import parse_domain, parse_problem, problem_to_pddl
from genplan.stages.generators import generate_size
from genplan.tokens.vocab import Vocabulary

PAPER = {"object_pool": 48, "max_plan_tokens": 220,
         "network": {"d_model": 768, "n_heads": 12, "n_layers": 12, "dropout": 0.1}}


def example(domain: str, size: int, actions: int, seed: int) -> Case:
    rng = random.Random(seed)
    p = generate_size(domain, size, rng)
    info = parse_domain(domain_file(domain))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "p.pddl"
        path.write_text(problem_to_pddl("p", info.name, p.objects, p.init, p.goal))
        task = parse_problem(path, info)
        mimir = MimirTask(domain_file(domain), path)
        state, plan = mimir.initial_state(), []
        for _ in range(actions):
            succ = mimir.successors(state)
            if not succ:
                break
            action, state = rng.choice(succ)
            plan.append(action)
    return Case("p", task.objects, task.init, task.statics, task.goal, tuple(plan))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--domain", default="blocks")
    ap.add_argument("--size", type=int, default=8)
    ap.add_argument("--actions", type=int, default=40, help="length of the random-walk plan")
    ap.add_argument("--pool", type=int, default=PAPER["object_pool"])
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    settings = DiffusionSettings.from_entry({**PAPER, "object_pool": a.pool})
    info = parse_domain(domain_file(a.domain))
    vocab = Vocabulary.for_domain(info, a.pool)
    atoms = AtomVocabulary(vocab)
    net = Denoiser(TransformerConfig(**network_config(vocab, settings)), len(atoms)).to(a.device)
    total, atom_table = parameter_count(net), net.atoms.weight.numel()
    print(f"domain {a.domain}: plan vocabulary {len(vocab)} tokens, {len(atoms):,} atom tokens ({a.pool} objects)")
    print(f"parameters: {total:,} in all; {total - atom_table:,} without the atom table ({atom_table:,}); "
          f"the paper's PlanGPT comparison: ~117M (SymT Table 1)")
    case = example(a.domain, a.size, a.actions, 0)
    conds, plans, skipped = data.encode([case] * a.batch, vocab, atoms, info, np.random.default_rng(0),
                                        settings.max_plan_tokens)
    if skipped:
        raise SystemExit(f"the {len(case.plan)}-action plan does not fit {settings.max_plan_tokens} positions")
    gen = torch.Generator().manual_seed(0)
    cond, cmask, plan, t, noise = (x.to(a.device) for x in
                                   next(data.batches(conds, plans, a.batch, list(range(a.batch)), gen, "uniform", 1e-3)))
    opt = torch.optim.AdamW(net.parameters(), lr=1e-4)
    start = time.perf_counter()
    noisy, masked = data.corrupt(plan, t, noise, vocab.mask_id)
    out = net(cond, cmask, noisy)
    loss = data.diffusion_loss(out.logits, data.full_targets(cond, plan),
                               data.loss_weights(masked, t, plan, cond.shape[1], vocab.pad_id))
    loss.backward()
    opt.step()
    print(f"one training step: batch {a.batch} x ({cond.shape[1]} atoms + 1 + {settings.max_plan_tokens} plan "
          f"positions), plan {len(case.plan)} actions; loss {loss.item():.3f}; {time.perf_counter() - start:.1f} s "
          f"on {a.device} ({a.threads} threads)")


if __name__ == "__main__":
    main()
