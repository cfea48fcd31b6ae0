"""Parameter counts of SymT^E and SymT^ED at the paper's size (d_model 768, 12 heads, one shared
block applied 12 times; SymT paper Table 1: about 7M and 16M) beside the published numbers, and
ONE full-size training step with the contrastive losses on the CPU (or --device), through the
same loss the training job uses (genplan.models.symt.train.make_loss).

The vocabulary is a domain's atom vocabulary (genplan.tokens.atom_rows) with --pool object tokens;
the batch is --batch examples of a problem of that domain (two renamed copies each), so shapes and
the loss are those of training.

    nice python perf/symt_size.py [--domain gripper] [--pool 64] [--d-token 64] [--batch 4]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from genplan.datasets.examples import Case
from genplan.domains import domain_file
from genplan.models.symt import data
from genplan.models.symt.model import SymTNet, SymTSettings
from genplan.models.symt.train import make_loss
from genplan.nn.transformer import parameter_count
from genplan.pddl_io import parse_domain
from genplan.tokens.atom_rows import atom_vocabulary, max_arity

PUBLISHED = {"encoder": ("symt_e", 7e6), "encoder_decoder": ("symt_ed", 16e6)}


def gripper_case(balls: int) -> Case:
    names = [f"ball{i}" for i in range(1, balls + 1)]
    statics = frozenset([("room", "rooma"), ("room", "roomb"), ("gripper", "left"), ("gripper", "right")]
                        + [("ball", b) for b in names])
    state = frozenset([("at-robby", "rooma"), ("free", "left"), ("free", "right")] + [("at", b, "rooma") for b in names])
    plan = []
    for i in range(0, balls, 2):
        pair = list(zip(names[i:i + 2], ("left", "right")))
        plan += [("pick", b, "rooma", g) for b, g in pair] + [("move", "rooma", "roomb")]
        plan += [("drop", b, "roomb", g) for b, g in pair] + ([("move", "roomb", "rooma")] if i + 2 < balls else [])
    return Case("p", ("rooma", "roomb", "left", "right", *names), state, statics,
                frozenset(("at", b, "roomb") for b in names), tuple(plan))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--domain", default="gripper")
    ap.add_argument("--pool", type=int, default=64, help="object tokens")
    ap.add_argument("--d-token", type=int, default=64, help="|E[token]|")
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--balls", type=int, default=10, help="size of the Gripper problem in the batch")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    info = parse_domain(domain_file(a.domain))
    vocab = atom_vocabulary(info, a.pool)
    print(f"domain {a.domain}: vocabulary {len(vocab)} tokens ({a.pool} object tokens), max arity {max_arity(vocab)}")
    print(f"{'system':8} {'parameters':>12} {'published':>10}  by part")
    for arch, (system, published) in PUBLISHED.items():
        network = {"d_model": 768, "n_heads": 12, "n_layers": 12, "d_token": a.d_token}
        settings = SymTSettings.from_entry({"architecture": arch, "object_pool": a.pool, "network": network})
        torch.manual_seed(0)
        net = SymTNet({"architecture": arch, "network": network, "vocab_size": len(vocab),
                       "width": 1 + max_arity(vocab), "pad_id": vocab.pad_id}).to(a.device)
        parts = {k: parameter_count(getattr(net, k)) for k in ("atoms", "encoder", "readout", "decoder") if hasattr(net, k)}
        total = parameter_count(net)
        print(f"{system:8} {total:>12,} {published / 1e6:>9.0f}M  {parts}")
        if a.domain != "gripper":
            continue
        enc = data.encode([gripper_case(a.balls)] * a.batch, vocab, info, np.random.default_rng(0), "rename-both",
                          False, arch == "encoder_decoder", 500)
        batch = next(data.batches(enc, a.batch, list(range(a.batch)), vocab.pad_id))
        opt = torch.optim.AdamW(net.parameters(), lr=1e-4)
        loss_fn = make_loss(settings, a.device)
        start = time.perf_counter()
        loss, parts_loss = loss_fn(net, batch)
        opt.zero_grad()
        loss.backward()
        opt.step()
        seconds = time.perf_counter() - start
        print(f"         one training step ({a.batch} examples x 2 copies, {batch['rows'].shape[1]} atoms"
              f"{', ' + str(batch['dec_in'].shape[1]) + ' plan tokens' if 'dec_in' in batch else ''}) on {a.device}: "
              f"{seconds:.2f} s, loss {loss.item():.4f} {({k: round(v, 5) for k, v in parts_loss.items()})}")


if __name__ == "__main__":
    main()
