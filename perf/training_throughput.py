"""Training throughput of the torch families: per model entry of a config (the
paper-cpu sizes by default), optimiser steps per CPU-second, examples and real (non-pad) tokens or
atoms per CPU-second, the padded fraction of the batches, and where the CPU time of a step goes.

Each model trains through its family's own training job (`registry.family(...).impl.train`, the
code `genplan train` runs: the same data reading, sampling, encoding, renaming, batching, loss and
loop, with the job's seed, `threads` torch threads and deterministic kernels). The measurement only
replaces the shared loop's `fit` by an instrumented one that, with a real `Trainer`, runs
--warmup + --steps optimiser steps (`Trainer.train_step`: loss, backward, clipping, AdamW, schedule)
and one selection (the job's validation), then stops the job (nothing is written). CPU time
(time.process_time: this process, all its threads) is split into

- data: the epoch's batches (`make_batches`: renaming and encoding every example afresh, then
  padding and stacking; the whole epoch is built and its CPU time spread over its batches);
- forward: the family's loss function (forward pass and losses);
- backward+step: the rest of a step (backward, gradient norm and clipping, AdamW, schedule);
- twin (SymT with contrastive weights only): the share of forward+backward that the second renamed
  copy and the attention and hidden-state losses cost, measured on the same batches as one step on
  both copies against one on the first copy alone without contrastive terms;
- eval/epoch: one selection (validation loss; PlanGPT with coverage also plans the validation
  problems: its part is `cov`) against one epoch's training CPU time (steps x (data + step)).

`--variant MODEL:LABEL=JSON` (repeatable) measures an entry with settings merged in, beside the
entries themselves: a recipe trial's settings, or a throughput setting on and off.

With --profile N, N more steps per model run under torch.profiler and the report adds the
operators' shares of their CPU time (matrix products, SDPA's kernels, the largest others).

Tokens: SymT counts atoms (both copies) and decoder plan tokens; PlanGPT its sequence tokens;
diffusion the condition atoms and the plan positions (its <PAD> plan positions are targets by
design and count as real). `pad%` is the share of the batches' positions that are padding.

    nice -n 5 python perf/training_throughput.py --config workflow/configs/paper-cpu.yaml \\
        --root RESULTS_ROOT --domain blocks --models symt_e symt_ed plangpt diffusion --steps 30 \\
        --out perf/results/training-throughput-after.txt

RESULTS_ROOT holds the pipeline's outputs of the benchmark (default: the config's results_dir):
statespaces/<benchmark>/<domain>/train.csv (and its folder), trajectories/<benchmark>/<domain>/
{train,validation}.json.gz and, for PlanGPT's coverage, problems/<benchmark>/<domain>/.
"""

from __future__ import annotations

import argparse
import io
import json
import platform
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch
import yaml

REPO = Path(__file__).resolve().parents[1]


class _Measured(Exception):
    """Raised by the instrumented fit to stop the training job once it has measured."""

    def __init__(self, result: dict):
        super().__init__("measured")
        self.result = result


def batch_stats(family: str, batch) -> tuple[int, int, int]:
    """(examples, real positions, all positions) of one training batch of `family`."""
    if family == "symt":
        real = int(batch["mask"].sum())
        total = batch["mask"].numel()
        if "dec_real" in batch:
            real += int(batch["dec_real"].sum())
            total += batch["dec_real"].numel()
        return int(batch["h"].shape[0]), real, total
    if family == "plangpt":
        x, _, _, real = batch
        return x.shape[0], int(real.sum()), real.numel()
    if family == "diffusion":
        if len(batch) == 5:
            cond, cmask, plan, _, _ = batch
            copies = 1
        else:  # symmetry-aware: (cond X, cond X', mask, plan X, plan X', t, noise)
            _, _, cmask, plan, _, _, _ = batch
            copies = 2
        return plan.shape[0], copies * (int(cmask.sum()) + plan.numel()), copies * (cmask.numel() + plan.numel())
    raise ValueError(f"unknown family {family!r}")


def single_copy(batch: dict) -> dict:
    """A SymT batch of two stacked copies cut to its first copy (rows 0..B-1), copies 1."""
    B = batch["h"].shape[0]
    return {k: (1 if k == "copies" else v if k == "h" else v[:B]) for k, v in batch.items()}


class Clock:
    def __init__(self):
        self.parts: dict[str, float] = {}

    def add(self, part: str, seconds: float) -> None:
        self.parts[part] = self.parts.get(part, 0.0) + seconds


def instrumented_fit(family: str, steps: int, warmup: int, twin_batches: int, clock: Clock, profile_steps: int = 0):
    """A stand-in for genplan.training.loop.fit that measures and raises _Measured."""
    from genplan.training.loop import Trainer
    from genplan.training.state import EpochTally

    def fit(model, loss_fn, make_batches, cfg, *, seed, device="cpu", select=None, steps_per_epoch=None, desc="",
            **_):
        setup = time.process_time() - clock.parts.pop("job_start")

        def timed_loss(m, batch, **kw):
            t0 = time.process_time()
            out = loss_fn(m, batch, **kw)
            clock.add("forward", time.process_time() - t0)
            return out

        trainer = Trainer(model, timed_loss, make_batches, cfg, seed=seed, device=device, select=None,
                          steps_per_epoch=steps_per_epoch, desc=desc)
        model.train()
        tally = EpochTally(lr=trainer.optimizer.param_groups[0]["lr"])
        epochs, queue = [], []
        examples = real = total = 0
        wall_data = 0.0
        for k in range(warmup + steps):
            if not queue:
                t0, w0 = time.process_time(), time.perf_counter()
                queue = list(make_batches(trainer.gen))
                epochs.append((time.process_time() - t0, len(queue)))
                wall_data += time.perf_counter() - w0
            batch = queue.pop(0)
            if k == warmup:
                clock.parts.update(forward=0.0)
                step_cpu = wall = 0.0
            t0, w0 = time.process_time(), time.perf_counter()
            trainer.train_step(batch, tally)
            if k >= warmup:
                step_cpu += time.process_time() - t0
                wall += time.perf_counter() - w0
                e, r, t = batch_stats(family, batch)
                examples, real, total = examples + e, real + r, total + t
        data_per_batch = sum(s for s, _ in epochs) / sum(n for _, n in epochs)
        forward = clock.parts["forward"]
        result = {"steps": steps, "setup_s": setup, "params": sum(p.numel() for p in model.parameters()),
                  "epoch_batches": epochs[0][1], "data_per_step": data_per_batch, "forward_per_step": forward / steps,
                  "backward_per_step": (step_cpu - forward) / steps, "examples": examples, "real": real,
                  "total": total, "wall_per_step": wall / steps + wall_data / sum(n for _, n in epochs)}
        if family == "symt":
            result["twin"] = _twin_share(trainer, loss_fn, queue or list(make_batches(trainer.gen)), twin_batches)
        if select is not None:
            t0 = time.process_time()
            with torch.no_grad():
                select(model)
            result["eval_s"] = time.process_time() - t0
            result["cov_s"] = clock.parts.get("coverage", 0.0)
        if profile_steps:
            result["profile"] = _profile(trainer, queue or list(make_batches(trainer.gen)), profile_steps)
        raise _Measured(result)
    return fit


def _twin_share(trainer, loss_fn, batches: list, n: int) -> float | None:
    """1 - CPU(forward+backward, first copy only, no contrastive terms) / CPU(both copies, contrastive)."""
    batches = [b for b in batches if b["copies"] == 2][:n]
    if not batches:
        return None
    model = trainer.model
    cost = {}
    for name, make in (("both", lambda b: b), ("one", single_copy)):
        t0 = time.process_time()
        for b in batches:
            out = loss_fn(model, make(b))
            loss = out[0] if isinstance(out, tuple) else out
            trainer.optimizer.zero_grad(set_to_none=True)
            loss.backward()
        cost[name] = time.process_time() - t0
    trainer.optimizer.zero_grad(set_to_none=True)
    return 1.0 - cost["one"] / cost["both"]


MATMUL = ("aten::mm", "aten::addmm", "aten::bmm")


def _profile(trainer, batches: list, n: int) -> list[tuple[str, float]]:
    """(operator, share of the self CPU time) of n more optimiser steps under torch.profiler, largest first."""
    from torch.profiler import ProfilerActivity, profile

    from genplan.training.state import EpochTally

    tally = EpochTally(lr=0.0)
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for b in batches[:n]:
            trainer.train_step(b, tally)
    events = prof.key_averages()
    total = sum(e.self_cpu_time_total for e in events) or 1.0
    return sorted(((e.key, e.self_cpu_time_total / total) for e in events), key=lambda kv: -kv[1])


def _name_width(rows: list[dict]) -> int:
    """The model column's width: 10, or a variant's longer label."""
    return max([10] + [len(r["model"]) for r in rows])


def profile_lines(rows: list[dict]) -> list[str]:
    """Per model: the share of matrix products and of SDPA's kernels, then the largest other operators."""
    out, w = [], _name_width(rows)
    for r in rows:
        if not r.get("profile"):
            continue
        ops = dict(r["profile"])
        mm = sum(ops.get(k, 0.0) for k in MATMUL)
        sdpa = sum(v for k, v in ops.items() if k.startswith("aten::_scaled_dot_product"))
        rest = [(k, v) for k, v in r["profile"] if k not in MATMUL and not k.startswith("aten::_scaled_dot_product")]
        top = ", ".join(f"{k.removeprefix('aten::')} {100 * v:.1f}" for k, v in rest[:6])
        out.append(f"  {r['model']:{w}} {r['threads']}t: matrix products (mm, addmm, bmm) {100 * mm:.1f}%, "
                   f"SDPA kernels {100 * sdpa:.1f}%; then {top}")
    return out


def training_files(root: Path, benchmark: str, domain: str, entry: dict, statespace_splits) -> dict:
    """The training job's --train / --validation files, as the workflow's `training_data` lists them."""
    from genplan import registry

    fam = registry.family(entry["family"])
    sources = getattr(fam.impl, "trains_from", lambda e: fam.trains_from)(entry)
    files = {"train": [], "validation": []}
    for split in files:
        if "trajectories" in sources:
            files[split].append(root / "trajectories" / benchmark / domain / f"{split}.json.gz")
        if "statespaces" in sources and split in statespace_splits:
            files[split].append(root / "statespaces" / benchmark / domain / f"{split}.csv")
    return files


def measure(name: str, entry: dict, files: dict, domain: str, threads: int, a) -> dict:
    """Run the model's training job with the instrumented fit; its measurements."""
    import genplan.training.loop as loop
    from genplan import registry

    fam = registry.family(entry["family"])
    settings = registry.weight_settings(entry)
    clock = Clock()
    original_fit = loop.fit
    loop.fit = instrumented_fit(fam.name, a.steps, a.warmup, a.twin_batches, clock, a.profile)
    patched = _time_coverage(fam.name, clock)
    clock.add("job_start", time.process_time())
    try:
        with tempfile.TemporaryDirectory(prefix="throughput-") as tmp:
            fam.impl.train(name, settings, domain, files, entry.get("seeds", [13])[0], Path(tmp) / "model.ckpt",
                           threads=threads, device="cpu")
    except _Measured as done:
        return {"model": name, "family": fam.name, "threads": threads, **done.result}
    finally:
        loop.fit = original_fit
        for module, attr, fn in patched:
            setattr(module, attr, fn)
    raise RuntimeError(f"{name}: the training job ended without reaching the shared loop")


def _time_coverage(family: str, clock: Clock) -> list:
    """PlanGPT's coverage selection, timed apart from its validation loss (module, attr, original)."""
    if family != "plangpt":
        return []
    import genplan.models.plangpt.train as t

    original = t._coverage

    def coverage(*args, **kw):
        t0 = time.process_time()
        try:
            return original(*args, **kw)
        finally:
            clock.add("coverage", time.process_time() - t0)
    t._coverage = coverage
    return [(t, "_coverage", original)]


def table(rows: list[dict]) -> str:
    w = _name_width(rows)
    head = (f"{'model':{w}} {'thr':>3} {'params':>8} {'steps/cpu-s':>11} {'ex/cpu-s':>9} {'tok/cpu-s':>10} "
            f"{'pad%':>5} {'data%':>6} {'fwd%':>6} {'bwd+opt%':>8} {'twin%':>6} {'eval/epoch':>10} "
            f"{'(cov)':>6} {'steps/wall-s':>12}")
    out = [head, "-" * len(head)]
    for r in rows:
        step = r["data_per_step"] + r["forward_per_step"] + r["backward_per_step"]
        pct = (lambda v, step=step: f"{100 * v / step:6.1f}")
        model_part = r["forward_per_step"] + r["backward_per_step"]
        twin = "" if r.get("twin") is None else f"{100 * r['twin'] * model_part / step:6.1f}"
        epoch = r["epoch_batches"] * step
        ev = "" if "eval_s" not in r else f"{100 * r['eval_s'] / epoch:9.1f}%"
        cov = "" if not r.get("cov_s") else f"{100 * r['cov_s'] / r['eval_s']:5.0f}%"
        cpu = r["steps"] * step
        out.append(f"{r['model']:{w}} {r['threads']:>3} {r['params']:>8,} {1 / step:11.2f} {r['examples'] / cpu:9.1f} "
                   f"{r['real'] / cpu:10.0f} {100 * (1 - r['real'] / r['total']):5.1f} {pct(r['data_per_step'])} "
                   f"{pct(r['forward_per_step'])} {pct(r['backward_per_step']):>8} {twin:>6} {ev:>10} {cov:>6} "
                   f"{1 / r['wall_per_step']:12.2f}")
    out.append("")
    out.append("per step, CPU ms: model data forward backward+opt | epoch batches, one eval CPU s, job setup CPU s")
    for r in rows:
        out.append(f"  {r['model']:{w}} {1000 * r['data_per_step']:8.1f} {1000 * r['forward_per_step']:8.1f} "
                   f"{1000 * r['backward_per_step']:8.1f} | {r['epoch_batches']:4d} "
                   f"{r.get('eval_s', float('nan')):8.2f} {r['setup_s']:8.2f}")
    return "\n".join(out)


def header(a) -> str:
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True).stdout
    dirty = subprocess.run(["git", "status", "--porcelain", "--", "src"],
                           cwd=REPO, capture_output=True, text=True).stdout.strip()
    cpu = next((ln.split(":", 1)[1].strip() for ln in Path("/proc/cpuinfo").read_text().splitlines()
                if ln.startswith("model name")), platform.processor()) if Path("/proc/cpuinfo").exists() else "?"
    import os

    import genplan

    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    return "\n".join([
        f"# training throughput, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}",
        f"# commit {commit.strip()}{' + uncommitted changes in src/' if dirty else ''}; genplan imported from "
        f"{Path(genplan.__file__).parent}",
        f"# machine: {cpu}, {os.cpu_count()} cores, load average at the start {load}; torch {torch.__version__} "
        f"({torch.backends.cpu.get_cpu_capability()}), python {platform.python_version()}",
        f"# command: python {' '.join(shlex.quote(x) for x in sys.argv)}",
        f"# {a.warmup} warm-up + {a.steps} measured optimiser steps per model; CPU time = time.process_time",
    ])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", default="workflow/configs/paper-cpu.yaml")
    ap.add_argument("--root", default=None, help="the pipeline outputs' root (default: the config's results_dir)")
    ap.add_argument("--benchmark", default="paper")
    ap.add_argument("--domain", default="blocks")
    ap.add_argument("--models", "--families", nargs="*", default=["symt_e", "symt_ed", "plangpt", "diffusion"],
                    help="model entries of the config")
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--threads", type=int, nargs="+", default=[1])
    ap.add_argument("--twin-batches", type=int, default=8)
    ap.add_argument("--profile", type=int, default=0, metavar="N",
                    help="also profile N more steps per model (torch.profiler): the operators' shares of CPU time")
    ap.add_argument("--variant", action="append", default=[], metavar="MODEL:LABEL=JSON",
                    help="also measure entry MODEL with JSON merged into it (mappings key by key), reported as LABEL")
    ap.add_argument("--out", default=None, help="also write the report here")
    a = ap.parse_args()
    import logging

    logging.getLogger("genplan").setLevel(logging.WARNING)
    config = yaml.safe_load(Path(a.config).read_text())
    root = Path(a.root or config.get("results_dir", "results"))
    splits = (config.get("statespace") or {}).get("splits", ["train"])
    head = header(a)  # before measuring: the code measured
    from genplan.solve_setup import merged

    runs = [(name, config["models"][name]) for name in a.models]
    for v in a.variant:  # MODEL:LABEL=JSON
        spec, over = v.split("=", 1)
        model, label = spec.split(":", 1)
        runs.append((label, merged(config["models"][model], json.loads(over))))
    rows = []
    for threads in a.threads:
        for name, entry in runs:
            files = training_files(root, a.benchmark, a.domain, entry, splits)
            rows.append(measure(name, entry, files, a.domain, threads, a))
            print(f"measured {name} ({threads} thread(s))", file=sys.stderr, flush=True)
    buf = io.StringIO()
    print(head, file=buf)
    print(f"# data: {root}/.../{a.benchmark}/{a.domain}; entries of {a.config}", file=buf)
    print("", file=buf)
    print(table(rows), file=buf)
    lines = profile_lines(rows)
    if lines:
        print(f"\noperators' shares of the self CPU time of {a.profile} more steps (torch.profiler), in %:", file=buf)
        print("\n".join(lines), file=buf)
    text = buf.getvalue()
    print(text, end="")
    if a.out:
        Path(a.out).write_text(text)


if __name__ == "__main__":
    main()
