"""Sizes of the shared transformer core (genplan.nn) at GPT-2 small, beside the papers' numbers,
and the time of one full-size training step on this machine.

GPT-2 small (12 layers x 12 heads, d_model 768, tied LM head) is built with the GPT-2 vocabulary
(50257 tokens, 1024 positions), with a planning vocabulary (--plan-vocab, 1024 positions) and as
PlanGPT's context (planning vocabulary, 2048 positions). The papers state three different counts
for PlanGPT; each is printed with where it is stated (and whether that sentence is in the paper
text beside the checkout). Then ONE AdamW training step (batch 2, length 256, next-token loss)
at full size is timed on the CPU (or --device), with each of the first two vocabularies; --decode N
also times greedy decoding with and without the key/value cache.

    nice python perf/transformer_size.py [--plan-vocab 200] [--decode 64]
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import torch
import torch.nn.functional as F

from genplan.nn import GPT2_SMALL, Transformer, TransformerConfig, parameter_count

PAPERS = Path(__file__).resolve().parents[2] / "shared" / "papers"
# (paper file, what it says, the phrase to find in it, the count)
STATED = [
    ("plangpt.md", "PlanGPT paper: GPT-2 Small, 12 blocks x 12 heads", "for a total of about 83M parameters", 83e6),
    ("symt-symmetry-aware-transformers.md", "SymT paper, Table 1: PlanGPT", "# Parameters\t117M", 117e6),
    ("state-centric-transition-models.md", "state-centric paper, appendix Table 4: PlanGPT", "PlanGPT\t~125M", 125e6),
]


def millions(n: float) -> str:
    return f"{n / 1e6:8.2f}M"


def found(paper: str, phrase: str) -> str:
    path = PAPERS / paper
    if not path.is_file():
        return "(paper text not beside the checkout)"
    return "(stated in papers/" + paper + ")" if phrase in path.read_text() else "(phrase NOT found in " + paper + ")"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--plan-vocab", type=int, default=200, help="a planning vocabulary's size (default 200)")
    ap.add_argument("--batch", type=int, default=2, help="training step batch size (default 2)")
    ap.add_argument("--length", type=int, default=256, help="training step sequence length (default 256)")
    ap.add_argument("--device", default="cpu", help="where the step runs (default cpu)")
    ap.add_argument("--decode", type=int, default=0,
                    help="also time greedy decoding of this many tokens with and without the cache (default 0: skip)")
    args = ap.parse_args()
    torch.manual_seed(0)

    shapes = [("GPT-2 small, GPT-2 vocabulary", 50257, 1024),
              (f"GPT-2 small, planning vocabulary {args.plan_vocab}", args.plan_vocab, 1024),
              (f"PlanGPT shape: vocabulary {args.plan_vocab}, context 2048", args.plan_vocab, 2048)]
    print(f"{'model':<48} {'total':>9} {'no embeddings':>14} {'embeddings':>11}")
    models = {}
    for name, vocab, max_len in shapes:
        model = Transformer(TransformerConfig(vocab_size=vocab, **{**GPT2_SMALL, "max_len": max_len}))
        total, body = parameter_count(model), parameter_count(model, embeddings=False)
        print(f"{name:<48} {millions(total)} {millions(body):>14} {millions(total - body):>11}")
        models[name] = model
    print("\nPlanGPT's size as the papers state it:")
    for paper, what, phrase, count in STATED:
        print(f"  {what:<50} {millions(count)}  {found(paper, phrase)}")
    gpt2, plan, plangpt = (parameter_count(m) for m in models.values())
    print(f"  ours: GPT-2 small is {gpt2 / 1e6:.1f}M with the GPT-2 vocabulary (the SymT and state-centric\n"
          f"  numbers are this model: OpenAI's GPT-2 paper called it 117M, its released weights hold 124M);\n"
          f"  {body / 1e6:.1f}M without embedding tables; with a planning vocabulary of {args.plan_vocab} it is "
          f"{plan / 1e6:.1f}M\n  ({plangpt / 1e6:.1f}M with PlanGPT's 2048 positions), which is still above the PlanGPT "
          f"paper's\n  own 'about 83M' (the paper does not say how it counted).")

    for name, *_ in shapes[:2]:
        model = models[name].to(args.device).train()
        opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
        ids = torch.randint(0, model.config.vocab_size, (args.batch, args.length + 1), device=args.device)
        start = time.perf_counter()
        logits = model(ids[:, :-1]).logits
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), ids[:, 1:].reshape(-1))
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        if args.device.startswith("cuda"):
            torch.cuda.synchronize()
        seconds = time.perf_counter() - start
        print(f"\none training step (AdamW), {name}, batch {args.batch} x length {args.length} on {args.device} "
              f"({torch.get_num_threads()} threads): {seconds:.2f} s\n  loss {loss.item():.3f} "
              f"(ln V = {math.log(model.config.vocab_size):.3f} expected at initialisation)")
        del opt

    if args.decode:
        print()
        model = models[shapes[1][0]].to(args.device).eval()
        prompt = torch.randint(0, model.config.vocab_size, (1, 64), device=args.device)
        with torch.no_grad():
            for cached in (True, False):
                start, seq, past = time.perf_counter(), prompt, None
                step = prompt
                for _ in range(args.decode):
                    out = model(step, past=past, use_cache=cached) if cached else model(seq)
                    nxt = out.logits[:, -1:].argmax(-1)
                    seq, past = torch.cat([seq, nxt], 1), out.past
                    step = nxt if cached else seq
                print(f"greedy decoding of {args.decode} tokens after a 64-token prompt, {shapes[1][0]}, "
                      f"{'with' if cached else 'without'} the cache: {time.perf_counter() - start:.2f} s")
                if cached:
                    first = seq
            assert torch.equal(first, seq), "cached and uncached greedy decoding disagree"
            print("cached and uncached greedy decoding give the same tokens")


if __name__ == "__main__":
    main()
