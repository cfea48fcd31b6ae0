"""Why `train.cpu_bf16` runs attention in float32 (genplan.nn.transformer.Attention): CPU seconds of
one forward and backward of torch's scaled_dot_product_attention, and of the linear layers of one
PlanGPT block, in float32 and in bfloat16, at the shapes of PlanGPT's Blocksworld batches of 256
(experiments/sequence-recipe.md, trial p5: 4 heads of 32, about 100 positions, a padding mask).

    OMP_NUM_THREADS=1 python perf/cpu_bf16.py [--repeat 5] [--out FILE]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time

import torch
import torch.nn.functional as F


def cpu_seconds(fn, repeat: int) -> float:
    fn()  # warm-up: oneDNN builds its kernels for the shape
    start = time.process_time()
    for _ in range(repeat):
        fn()
    return (time.process_time() - start) / repeat


def attention(dtype, batch: int, heads: int, length: int, width: int):
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(batch, heads, length, width, generator=g).to(dtype).requires_grad_() for _ in range(3))
    mask = torch.ones(batch, 1, length, length, dtype=torch.bool).tril()
    mask[..., length * 4 // 5:] = False  # a fifth of the positions padding
    mask[..., 0] = True

    def run():
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        y.float().sum().backward()
    return run


def linears(dtype, batch: int, length: int, d: int):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(batch * length, d, generator=g).requires_grad_()
    layers = [torch.nn.Linear(d, 3 * d), torch.nn.Linear(d, d), torch.nn.Linear(d, 4 * d), torch.nn.Linear(4 * d, d)]

    def run():
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=dtype == torch.bfloat16):
            h = x
            out = layers[0](h).sum() + layers[1](h).sum()
            out = out + layers[3](F.gelu(layers[2](h))).sum()
        out.float().backward()
    return run


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--length", type=int, default=100)
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    torch.set_num_threads(1)
    lines = [f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; torch {torch.__version__} "
             f"({torch.backends.cpu.get_cpu_capability()}), python {platform.python_version()}, "
             f"{torch.get_num_threads()} thread; batch {a.batch}, {a.length} positions, d_model 128 (4 heads of 32); "
             f"CPU s per forward+backward, mean of {a.repeat}",
             f"# command: OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', '')} python {' '.join(sys.argv)}",
             f"{'operation':<34} {'float32':>8} {'bfloat16':>9} {'bf16/f32':>9}"]
    for name, make in (("scaled_dot_product_attention", lambda t: attention(t, a.batch, 4, a.length, 32)),
                       ("a block's linear layers (autocast)", lambda t: linears(t, a.batch, a.length, 128))):
        f32, b16 = (cpu_seconds(make(t), a.repeat) for t in (torch.float32, torch.bfloat16))
        lines.append(f"{name:<34} {f32:8.3f} {b16:9.3f} {b16 / f32:9.2f}")
    text = "\n".join(lines)
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
