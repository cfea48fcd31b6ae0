"""The CPU time of one training step at near-zero width: what the shared loop and a
family's loss and network cost a step besides the arithmetic, the part a GPU cannot hide.

For each model entry (default: symt_e, symt_ed, plangpt, diffusion of workflow/configs/paper.yaml: the
paper's depth, 12 layers) the network is shrunk to near-zero width with --set (default d_model 24 and
12 heads: head size 2, the least rotary positions accept; SymT's d_token 2 too; the MLP 4 x d_model; a
batch of 2 examples) and the diffusion plan to 48 positions (from 220: at 220, with the paper's dropout
on the attention probabilities, drawing the dropout masks took 40% of the step), so that what remains
is the cost of dispatching the operators, and
trained through its family's own training job (`registry.family(...).impl.train`, the code `genplan
train` runs: data, renaming, batching, loss, the shared loop), on the small data of
perf/gpu_check.py (`--prepare`: its `prepare`, generated Blocksworld; its `check_entry` merges
--set and sizes the examples). As perf/training_throughput.py does, the loop's `fit` is replaced
by a stand-in that builds a real `Trainer` and drives its `train_step` itself: the epoch's batches are
built beforehand (their CPU time is not a step's), then --warmup + --steps optimiser steps run, and the
CPU time (time.process_time: this process, every thread; torch threads 1) of each measured
`train_step`, plus what the trainer still owes at the end (`Trainer.flush`, where it exists: values
kept on the device and read at log intervals), is divided by --steps. Then one more step runs under a
TorchDispatchMode that counts the ATen operators dispatched (forward, backward, clipping, AdamW):
the kernels a step launches on a GPU, roughly.

    ./genplan-env python perf/step_overhead.py --prepare --out perf/results/step-overhead-before.txt

`--compile` measures with `train.compile` on (torch.compile; off otherwise, whatever the config says): its
compile time falls in the warm-up steps, recompilations for padded lengths not seen before may not.
"""

from __future__ import annotations

import argparse
import importlib.util
import io
import json
import os
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
MODELS = ["symt_e", "symt_ed", "plangpt", "diffusion"]
NEAR_ZERO = {"network": {"d_model": 24, "n_heads": 12}, "train": {"batch_size": 2}}
# merged into a family's entries besides --set: SymT's atom embedding as narrow; the diffusion plan's width
# (positions, each attended by every other) cut from 220 to 48, the data's plans fitting in 25
FAMILY_NEAR_ZERO = {"symt": {"network": {"d_token": 2}}, "diffusion": {"max_plan_tokens": 48}}
DATA = {"sizes": {"train": [3, 4], "validation": [3], "interpolation": [3]},
        "per_size": {"train": 3, "validation": 1, "interpolation": 1}}


def _sibling(name: str):
    """A measurement script beside this one (perf/), imported as a module (its helpers reused)."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, REPO / "perf" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


class _Measured(Exception):
    def __init__(self, result: dict):
        super().__init__("measured")
        self.result = result


class OpCounter(torch.utils._python_dispatch.TorchDispatchMode):
    """Counts the ATen operators dispatched while it is active."""

    def __init__(self):
        super().__init__()
        self.count = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.count += 1
        return func(*args, **(kwargs or {}))


def measuring_fit(steps: int, warmup: int, profile: int = 0):
    """A stand-in for genplan.training.loop.fit: a real Trainer, its train_step timed (see the docstring)."""
    from genplan.training.loop import Trainer
    from genplan.training.state import EpochTally

    def fit(model, loss_fn, make_batches, cfg, *, seed, device="cpu", steps_per_epoch=None, desc="",
            before_step=None, **_):
        trainer = Trainer(model, loss_fn, make_batches, cfg, seed=seed, device=device, select=None,
                          steps_per_epoch=steps_per_epoch, desc=desc, before_step=before_step)
        model.train()
        tally = EpochTally(lr=trainer.optimizer.param_groups[0]["lr"])
        queue: list = []
        per_step = []
        flush = getattr(trainer, "flush", None)
        for k in range(warmup + steps + 1):
            if not queue:
                queue = list(make_batches(trainer.gen))
            batch = queue.pop(0)
            if k == warmup + steps:  # one more step, its operators counted (and one profiled before it)
                if profile:
                    from torch.profiler import ProfilerActivity
                    from torch.profiler import profile as profiler

                    with profiler(activities=[ProfilerActivity.CPU]) as prof:
                        trainer.train_step(batch, tally)
                    print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=profile),
                          file=sys.stderr)
                counter = OpCounter()  # under a dispatch mode torch.compile'd code runs eagerly: counted so
                with counter:
                    trainer.train_step(batch, tally)
                    if flush is not None:
                        flush(tally)
                break
            if k == warmup and flush is not None:
                flush(tally)
            t0 = time.process_time()
            trainer.train_step(batch, tally)
            if k >= warmup:
                per_step.append(time.process_time() - t0)
        t0 = time.process_time()
        if flush is not None:
            flush(tally)
        owed = time.process_time() - t0
        per_step.sort()
        raise _Measured({"params": sum(p.numel() for p in model.parameters()), "steps": steps,
                         "cpu_ms": 1000 * (sum(per_step) + owed) / steps,
                         "median_ms": 1000 * per_step[len(per_step) // 2], "ops": counter.count,
                         "batch": _batch_size(batch)})
    return fit


def _batch_size(batch) -> int:
    if isinstance(batch, dict):
        return int(batch["h"].shape[0])
    return int(batch[0].shape[0])


def with_compile(entry: dict, on: bool) -> dict:
    """The entry with `train.compile` as --compile says (paper.yaml turns it on); without the key where the
    genplan measured predates it (the code before the deferred, fused step), which --compile then refuses."""
    from dataclasses import fields

    from genplan.models.settings import TrainSettings

    train = dict(entry.get("train") or {})
    train.pop("compile", None)
    if "compile" in {f.name for f in fields(TrainSettings)}:
        train["compile"] = on
    elif on:
        raise SystemExit("--compile: this genplan has no train.compile setting")
    return {**entry, "train": train}


def measure(name: str, entry: dict, files: dict, a) -> dict:
    import genplan.training.loop as loop
    from genplan import registry

    fam = registry.family(entry["family"])
    original = loop.fit
    loop.fit = measuring_fit(a.steps, a.warmup, a.profile)
    try:
        with tempfile.TemporaryDirectory(prefix="step-overhead-") as tmp:
            fam.impl.train(name, registry.weight_settings(entry), a.domain, files, a.seed, Path(tmp) / "model.ckpt",
                           threads=a.threads, device=a.device)
    except _Measured as done:
        return {"model": name, **done.result}
    finally:
        loop.fit = original
    raise RuntimeError(f"{name}: the training job ended without reaching the shared loop")


def header(a) -> list[str]:
    def git(*args) -> str:
        return subprocess.run(["git", *args], check=False, cwd=REPO, capture_output=True, text=True).stdout.strip()
    dirty = " + uncommitted changes in src/" if git("status", "--porcelain", "--", "src") else ""
    cpu = next((ln.split(":", 1)[1].strip() for ln in Path("/proc/cpuinfo").read_text().splitlines()
                if ln.startswith("model name")), platform.processor()) if Path("/proc/cpuinfo").exists() else "?"
    load = " ".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "?"
    import genplan

    return [f"# training step overhead, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}",
            f"# checkout at commit {git('rev-parse', '--short', 'HEAD')}{dirty}; genplan imported from "
            f"{Path(genplan.__file__).parent}{a.note and ' (' + a.note + ')'}",
            f"# torch {torch.__version__}; python "
            f"{platform.python_version()}; {cpu}, {os.cpu_count()} cores, load average at the start {load}",
            f"# command: python {' '.join(shlex.quote(x) for x in sys.argv)}",
            f"# entries of {a.config} with --set {a.set}; device {a.device}, torch threads {a.threads}; data "
            f"{a.data}/.../{a.benchmark}/{a.domain}; {a.warmup} warm-up + {a.steps} measured steps, seed {a.seed}; "
            f"train.compile {'on' if a.compile else 'off'}",
            "# cpu ms/step: CPU time (time.process_time) of the measured train_step calls plus the trainer's flush, "
            "per step, of the least of --repeat runs (all listed); median: of that run's steps alone; ops/step: ATen "
            "operators dispatched in one more step"]


def table(rows: list[dict]) -> list[str]:
    head = (f"{'model':10} {'params':>8} {'batch':>5} {'cpu ms/step':>11} {'median ms':>9} {'ops/step':>8}  "
            f"every run's cpu ms/step")
    out = [head, "-" * len(head)]
    for r in rows:
        out.append(f"{r['model']:10} {r['params']:8,} {r['batch']:5d} {r['cpu_ms']:11.2f} {r['median_ms']:9.2f} "
                   f"{r['ops']:8d}  {' '.join(f'{x:.2f}' for x in r['runs'])}")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", default="workflow/configs/paper.yaml")
    ap.add_argument("--models", nargs="+", default=MODELS)
    ap.add_argument("--set", default=json.dumps(NEAR_ZERO), help="JSON merged into every entry (default: near-zero "
                    "width at the paper's depth)")
    ap.add_argument("--compile", action="store_true", help="train.compile on (torch.compile; default: off, whatever "
                    "the config says)")
    ap.add_argument("--as-set", action="store_true", help="the entries with --set alone (no family's own shrinking)")
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=3, help="runs per model (a fresh job each); the table gives the "
                    "run of the least CPU time per step (the least disturbed on a shared machine) and lists them all")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--data", default="runs/step-overhead/data")
    ap.add_argument("--prepare", action="store_true", help="build --data first when it is missing (gpu_check's "
                    "prepare: Fast Downward, VAL, pymimir)")
    ap.add_argument("--benchmark", default="generated")
    ap.add_argument("--domain", default="blocks")
    ap.add_argument("--out", default=None)
    ap.add_argument("--profile", type=int, default=0, metavar="N", help="also profile one more step (torch.profiler) "
                    "and print its N costliest operators to stderr")
    ap.add_argument("--note", default="", help="said beside the genplan measured in the header (e.g. its commit)")
    a = ap.parse_args(argv)
    import logging

    logging.getLogger("genplan").setLevel(logging.ERROR)
    gpu_check = _sibling("gpu_check")
    root = Path(a.data)
    if a.prepare and not root.exists():
        gpu_check.prepare(root, a.benchmark, a.domain, DATA, a.seed)
    head = header(a)
    config = yaml.safe_load(Path(a.config).read_text())
    sized = argparse.Namespace(set=a.set, steps=a.warmup + a.steps + 1, warmup_fraction=0.1, coverage_problems=0,
                               config=a.config)
    training_files = _sibling("training_throughput").training_files
    rows = []
    for name in a.models:
        entry = gpu_check.check_entry(config, name, sized)
        if not a.as_set:
            from genplan.solve_setup import merged

            entry = merged(entry, FAMILY_NEAR_ZERO.get(entry["family"], {}))
        entry = with_compile(entry, a.compile)
        files = training_files(root, a.benchmark, a.domain, entry, ["train"])
        runs = [measure(name, entry, files, a) for _ in range(a.repeat)]
        best = min(runs, key=lambda r: r["cpu_ms"])
        rows.append({**best, "runs": [r["cpu_ms"] for r in runs]})
        print(f"measured {name}", file=sys.stderr, flush=True)
    buf = io.StringIO()
    print("\n".join(head + [""] + table(rows)), file=buf)
    sys.stdout.write(buf.getvalue())
    if a.out:
        Path(a.out).write_text(buf.getvalue())
    return 0


if __name__ == "__main__":
    sys.exit(main())
