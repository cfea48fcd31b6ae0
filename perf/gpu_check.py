"""The GPU path, verified before a cluster's hours are spent on it: each torch family trains a few hundred optimiser
steps at the paper's size on CUDA (bf16 autocast, as the shared loop does there), its loss must fall, and its
checkpoint must load on the CPU and plan, VAL checking every plan; beside it what the job costs (data preparation,
FLOPs, the fraction of the device's peak), whether two identical GPU trainings give the same weights, all inside a
time budget. It runs on a CPU too, at any size (`--set` shrinks the networks; tests/test_gpu_check.py does).

Each model entry (default: symt_e, symt_ed, plangpt, diffusion of workflow/configs/paper.yaml, the
cluster's sizes) trains through its family's own job (`registry.family(...).impl.train`, what `genplan
train` runs: data, sampling, renaming, batching, loss, the shared loop with AdamW, warmup + cosine,
clipping, bf16 autocast on CUDA, train.compile as the entry sets it, selection, the checkpoint envelope), cut to
--steps optimiser steps (the loop's `max_steps`; `train.examples` = steps x batch size plus a margin, so that one
epoch of the sampled families holds them) with a warmup of --warmup-fraction of them (at most the entry's own).
PlanGPT's coverage selection plans --coverage-problems validation problems inside the loop (on the
training device, under autocast). A subclass of the loop's `Trainer` sets `max_steps` and records
each step's loss, wall and CPU time, whether autocast was on, the positions of its batch (real and padded:
perf/training_throughput.batch_stats) and the time of the first step; on the first batch it also counts one
step's forward and backward FLOPs with torch.utils.flop_counter.FlopCounterMode (eager, the step's autocast; the
gradients dropped and the global generators put back, so the job's steps are unchanged). The planner's
loader (`genplan.solve_setup.load_model`: map_location cpu, the domain checked) then loads the
checkpoint, whose weights must lie on the CPU, and `genplan.evaluation.split.evaluate_split` (`genplan
evaluate`) plans the --plan-split problems (one by default: an untrained sequence model writes up to
its 500-token cap, over a minute a problem at the paper's size on one core) with the entry's first strategy
and planning settings on the CPU (--threads torch threads). Planning need not succeed after a few
hundred steps: it is printed. Exit status 1 when a loss did not fall (the mean of the last tenth of
the steps against the first tenth), a step's loss or gradient was not finite, training, loading
or planning failed, or the determinism pair failed to run. The report is rewritten after every model: a run
stopped by a time limit leaves the rows it finished.

Time budget (--budget-s, default 540: the whole script inside a 600 s device call with the interpreter's start):
each model gets an equal share of what is left (less DETERMINISM_SHARE of the budget kept for the determinism
pair); after 3 steps past the first, the mean wall time per step (batches between steps included) says whether
its steps end inside 85% of the share; if not, its steps are cut to those that fit (the cosine then decays over
them), and its row says "steps cut from N to M to fit the time budget". At the H100's rates (300 steps: 26-47 s a
job) nothing is cut.

Determinism (--determinism, on by default on CUDA; --no-determinism; on a CPU when asked): after the table, the
first model (or --determinism-model) trains twice more in this process, --determinism-steps (50) steps each
(fewer where the rates of its row say two runs would not fit what is left of the budget), with the same seed
and the job's deterministic mode (genplan.training.reproducible: torch.use_deterministic_algorithms(True,
warn_only=True), cuDNN deterministic, CUBLAS_WORKSPACE_CONFIG=:4096:8 set before cuBLAS starts); the final
weights (the last step's, not the selected ones) are compared bitwise and by max |dw|, the loss curves step by
step: "GPU determinism: identical weights and losses (...)", or "max |dw| = ... after N steps; losses differ
from step k (max |dloss| = ...)", with the kernels torch warned have no deterministic version.

Data: one domain's results layout under --data (problems/, plans/, trajectories/, statespaces/ of
<benchmark>/<domain>). `--prepare` builds it from the repository alone with the pipeline's commands
(genplan generate, plan, trajectories, statespace: generated Blocksworld, 12 training problems of 4 to
6 blocks, 2 validation problems of 5, one of 4 to plan; under a minute, under 1 MiB); with --paper-source
/work/shared/benchmarks/paper-splits --benchmark paper the papers' own Blocksworld instances instead (`genplan
import`; train 9 problems of 4-7 blocks, validation 3 of 8, interpolation 3 of 5; extrapolation left out:
20 problems of 10-20 blocks to plan): 29 s on this 2-core machine, 3.4 MiB (the 7-block training state spaces
have 66,000 states). The check itself runs on the generated data; the paper model on the papers' instances
where runs/gpu-check/paper-data is carried (gpu_session.sh), else on the generated ones. Those stages need Fast
Downward, VAL and pymimir, which a borrowed GPU machine lacks (no network; its `python3` has torch, numpy, yaml,
tqdm, not this project's planning packages): prepare here, with the four wheels, in one command (`runs/` and
`.whl/` are ignored by git; it prints what travels against the device tool's 64 MiB):

    bash perf/gpu_prepare.sh      # runs/gpu-check/data, runs/gpu-check/paper-data, .whl (Python 3.12 wheels)

then on the GPU machine one command (device tool: carry ["runs/gpu-check/data", "runs/gpu-check/paper-data",
".whl"], timeout_s 600), which installs the wheels into /tmp/site and runs the check with --budget-s 342, then
trains paper.yaml's symt_ed at its own size on the papers' instances for the rest of 570 s less 90 s for its
planning (perf/gpu_session.sh; `check 540` runs the check alone, `paper SECONDS [MODEL]` the paper model
alone; a machine lent for 15 minutes, minutes of them to start, has about one such call):

    bash perf/gpu_session.sh all 570

and commit what comes back ($OUT/gpu-check.txt) as perf/results/gpu-check-<device>.txt, and
$OUT/paper-symt_ed/report.txt beside it. On a CPU, at the paper-cpu sizes (perf/results/gpu-check-cpu.txt):

    nice -n 5 ./genplan-env python perf/gpu_check.py --config workflow/configs/paper-cpu.yaml \\
        --device cpu --threads 1 --steps 60

The report (stdout and --out, written atomically; default perf/results/gpu-check-<device>.txt)
names the command, commit, device (torch.cuda.get_device_name), torch and CUDA, then a row per model:
parameters, steps, the precision the steps ran in, the mean loss of the first and last tenth of the
steps and whether it fell, steps per second (wall, the steps alone, synchronised) and per CPU-second,
peak GPU memory, the job's wall time, the checkpoint's size, and the CPU planning (strategy, solved /
problems, plans VAL accepted of those checked, the planner's reasons, seconds): these columns, in this order,
are what src/genplan/cluster_plan.py's gpu_rates reads. A second table gives per model the whole job: the data
preparation (job start to the first optimiser step: data reading, sampling, encoding, the model built and moved),
the first step (torch.compile), the job's steps/s with all of it, the positions per step (real/padded), the
model FLOPs per step as 6NT (6 x parameters x padded positions; no attention term, a shared layer counted once)
and as counted, the achieved TFLOP/s and its fraction of the device's dense bf16 peak (PEAK_TFLOPS, from NVIDIA's
datasheets; "n/a" on a CPU, "unknown" for an unlisted device); then the determinism line and the verdict.

--paper-model NAME (symt_ed: SymT^ED) instead trains that entry at its own size (--set still merges) on --data
for as many steps as fit in --paper-seconds of its training job (after 20 steps the measured rate sets the
steps, the cosine decays over them, warmup --warmup-fraction of them; or --paper-steps), in epochs of at most
--paper-epoch-steps steps (each ends with the entry's validation selection; the checkpoint keeps the best
weights), writes its checkpoint, training log and summary to --paper-out, then plans every problem of
--paper-splits (validation, interpolation) with each of the entry's strategies on the CPU (VAL checks; the first
strategy on every split first) and prints the coverage; the report is --paper-out/report.txt, rewritten after
each strategy and split (a call stopped by its time limit leaves those done). The seconds count the training
job only; the planning comes after them: symt_ed at paper size took 5 s for one 4-block problem on the H100
machine's CPU, and the papers' instances make 3 strategies x 6 problems of 5 and 8 blocks, so gpu_session.sh's
90 s reserve may not cover them all (the rows done come back)."""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
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
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MODELS = ["symt_e", "symt_ed", "plangpt", "diffusion"]
GENERATE = {"sizes": {"train": [4, 5, 6], "validation": [5], "interpolation": [4]},
            "per_size": {"train": 4, "validation": 2, "interpolation": 1}}
PLANNER = {"optimal": {"time_limit": 60}, "fallback": {"enabled": True, "time_limit": 120},
           "lama": {"enabled": False}, "memory_limit_mb": 4096}
MAX_STATES = 200000
# Dense bf16 tensor-core peak TFLOP/s by device name (torch.cuda.get_device_name), first match wins; NVIDIA's
# datasheets give the figure with 2:4 sparsity, the dense one is half of it: H100 SXM and H200 SXM 1,979 -> 989.4
# (nvidia.com/en-us/data-center/h100/ and /h200/, "BF16 Tensor Core"; "H100 80GB HBM3" is the SXM board), H100 NVL
# and H200 NVL 1,671 -> 835.5, H100 PCIe 1,513 -> 756; A100 312 dense (A100 datasheet, "BFLOAT16 Tensor Core");
# L40S 733 -> 362 (L40S datasheet); A10 250 -> 125 (A10 datasheet); V100 has no bf16: its FP16 tensor-core 125
# (V100 SXM2 datasheet; the PCIe board 112). Unknown devices: "peak unknown".
PEAK_TFLOPS = [(r"H200 NVL", 835.5, "bf16"), (r"H200", 989.4, "bf16"), (r"H100 NVL", 835.5, "bf16"),
               (r"H100 PCIe", 756.0, "bf16"), (r"H100", 989.4, "bf16"), (r"A100", 312.0, "bf16"),
               (r"L40S", 362.0, "bf16"), (r"\bA10\b", 125.0, "bf16"), (r"V100", 125.0, "fp16")]
DETERMINISM_SHARE = 0.2  # of --budget-s kept for the determinism pair when it runs


def prepare(root: Path, benchmark: str, domain: str, generate: dict, seed: int, source: str | None = None) -> None:
    """The domain's problems, plans (train, validation, interpolation), trajectories (train and validation) and
    training state spaces under `root` (built in a temporary sibling, then renamed: no partial folder), by the
    `genplan` CLI: generated (`generate`), or the papers' instances imported from `source` (`genplan import`)."""
    from genplan.errors import GenplanError

    if root.exists():
        raise GenplanError("the data folder exists: use it without --prepare, or remove it first", root)
    root.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{root.name}.tmp-", dir=root.parent))
    p, pl, tr, ss = (tmp / kind / benchmark / domain for kind in ("problems", "plans", "trajectories", "statespaces"))
    if source is None:
        steps = [["generate", "--domain", domain, "--params", json.dumps(generate), "--seed", str(seed),
                  "--out", str(p)]]
        splits = list(generate["sizes"])
    else:  # the papers' instances; extrapolation left out (20 problems of 10 to 20 blocks, minutes to plan)
        steps = [["import", "--domain", domain, "--source", str(source), "--out", str(p)]]
        splits = ["train", "validation", "interpolation"]
    for split in splits:  # the plans of every split (best-known lengths), trajectories of two
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


def check_entry(config: dict, name: str, a, steps: int | None = None) -> dict:
    """The model entry with --set merged in, enough examples for `steps` (--steps) steps in one epoch and the warmup
    cut to --warmup-fraction of them."""
    from genplan import registry
    from genplan.errors import GenplanError
    from genplan.solve_setup import merged

    if name not in (config.get("models") or {}):
        raise GenplanError(f"no model {name!r} in the configuration", a.config)
    steps = a.steps if steps is None else steps
    entry = merged(config["models"][name], json.loads(a.set))
    tr = dict(entry.get("train") or {})
    batch = int(tr.get("batch_size", 32))
    tr.update(examples=(steps + steps // 10 + 1) * batch,
              warmup_steps=min(int(tr.get("warmup_steps", 50)), max(1, round(a.warmup_fraction * steps))))
    if entry["family"] == "plangpt":
        tr.update(ces_problems=max(a.coverage_problems, 1), track_coverage=a.coverage_problems > 0)
    entry["train"] = tr
    registry.validate_models({name: entry})
    return entry


@dataclasses.dataclass
class Record:
    """What the recording trainer saw; `deadline` (time.perf_counter) and `calibrate` are its settings."""
    family: str = ""
    losses: list = dataclasses.field(default_factory=list)
    skipped: int = 0
    wall: float = 0.0  # the steps alone, synchronised
    cpu: float = 0.0
    precision: str = "?"
    taken: int = 0  # train_step calls
    first_at: float | None = None  # perf_counter as the first step began
    first_wall: float = 0.0  # the first step (torch.compile, cuBLAS and allocator warm-up)
    first_done: float = 0.0  # perf_counter as the first step ended
    positions: list = dataclasses.field(default_factory=list)  # (real, padded) positions of each step's batch
    count_flops: bool = True
    flops: float | None = None  # FlopCounterMode's count of one step's forward and backward
    flops_error: str = ""
    deadline: float | None = None  # the steps end by then (fewer steps where the measured rate says so)
    calibrate: int = 3  # steps after the first before the rate is trusted
    warmup_fraction: float = 0.1  # of the steps that fit, at most the warmup asked
    cut: tuple | None = None  # (steps asked, steps that fit)
    final: dict | None = None  # the last step's weights, on the CPU


def fitting_steps(done: int, target: int, per_step: float, now: float, deadline: float) -> int:
    """`target`, or the steps that fit before `deadline` at `per_step` seconds each (at least `done`; `done` once
    the deadline has passed)."""
    if now >= deadline:
        return min(done, target)
    if per_step <= 0 or now + (target - done) * per_step <= deadline:
        return target
    return max(done, min(target, done + int((deadline - now) / per_step)))


def batch_positions(family: str, batch) -> tuple[int, int] | None:
    """(real, padded) positions of a training batch (perf/training_throughput.batch_stats's count: SymT atoms of
    both copies and decoder plan tokens, PlanGPT sequence tokens, diffusion condition atoms and plan positions)."""
    from training_throughput import batch_stats

    try:
        _, real, total = batch_stats(family, batch)
    except (ValueError, KeyError, TypeError, IndexError):
        return None
    return real, total


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

        def run(self):
            state = super().run()
            rec.final = {k: v.detach().to("cpu", copy=True) for k, v in self.model.state_dict().items()}
            return state

        def count_flops(self, batch) -> None:
            """One step's forward and backward FLOPs (torch.utils.flop_counter: matrix products and attention,
            by shape) on the first batch, eager, under the step's autocast; the gradients are dropped and the
            global generators put back as they were (dropout, masking), so the job's own steps are unchanged."""
            from torch.utils.flop_counter import FlopCounterMode

            from genplan.training.loop import loss_and_parts

            cuda = self.device.type == "cuda"
            rng, cuda_rng = torch.get_rng_state(), torch.cuda.get_rng_state_all() if cuda else None
            try:
                if self.before_step is not None:
                    self.before_step(self.state.step)
                with FlopCounterMode(display=False) as counter:
                    with self.autocast():
                        loss, _ = loss_and_parts(self.loss_fn(self.model, batch))
                    loss.backward()
                rec.flops = float(counter.get_total_flops())
            except Exception as exc:  # noqa: BLE001 - the count is a report, never a failure of the job
                rec.flops_error = f"{type(exc).__name__}: {exc}".splitlines()[0][:200]
            finally:
                self.optimizer.zero_grad(set_to_none=True)
                torch.set_rng_state(rng)
                if cuda:
                    torch.cuda.set_rng_state_all(cuda_rng)

        def train_step(self, batch, tally):
            if rec.first_at is None:
                rec.first_at = time.perf_counter()
                if rec.count_flops:
                    self.count_flops(batch)
            w0, c0 = time.perf_counter(), time.process_time()
            taken, skipped = len(tally.losses), self.state.skipped_steps
            ok = super().train_step(batch, tally)
            if self.deferred:  # the loop reads its deferred values at intervals: here at every step
                self.flush(tally)
            if self.device.type == "cuda":
                torch.cuda.synchronize()
            now = time.perf_counter()
            rec.wall += now - w0
            rec.cpu += time.process_time() - c0
            rec.taken += 1
            if rec.taken == 1:
                rec.first_wall, rec.first_done = now - w0, now
            rec.losses.extend(tally.losses[taken:])
            rec.skipped += self.state.skipped_steps - skipped
            rec.positions.append(batch_positions(rec.family, batch))
            if rec.deadline is not None and (rec.taken > rec.calibrate or now >= rec.deadline):
                self.fit_deadline(now)
            return ok

        def fit_deadline(self, now: float) -> None:
            """Fewer steps where those left, at the mean wall time per step since the first (batches between
            steps included), would end past the deadline; the cosine then decays over the steps that fit, after a
            warmup of --warmup-fraction of them (at most the one asked)."""
            from genplan.training.schedule import lr_at

            target = self.cfg.max_steps
            per_step = (now - rec.first_done) / (rec.taken - 1) if rec.taken > 1 else 0.0
            fit = fitting_steps(self.state.step, target, per_step, now, rec.deadline)
            if fit >= target:
                return
            rec.cut = (rec.cut[0] if rec.cut else target, fit)
            warmup = min(self.cfg.warmup_steps, max(1, round(rec.warmup_fraction * fit)))
            cfg = dataclasses.replace(self.cfg, max_steps=fit, warmup_steps=warmup)
            self.cfg = cfg
            self.scheduler.lr_lambdas = [lambda s: lr_at(cfg, s, fit) / cfg.lr] * len(self.optimizer.param_groups)
    return Recording


def train(name: str, entry: dict, files: dict, work: Path, a, device: str, steps: int | None = None,
          deadline: float | None = None, count_flops: bool = True, calibrate: int = 3) -> dict:
    """The entry's training job, cut to `steps` (--steps) optimiser steps, fewer where they would end past
    `deadline` (time.perf_counter); its measurements (a row of the report) and, under "record", the Record."""
    import torch

    from genplan import registry
    from genplan.training import loop

    steps = a.steps if steps is None else steps
    rec = Record(family=entry["family"], deadline=deadline, count_flops=count_flops, calibrate=calibrate,
                 warmup_fraction=a.warmup_fraction)
    fam = registry.family(entry["family"])
    if device == "cuda":
        torch.cuda.reset_peak_memory_stats()
    original, loop.Trainer = loop.Trainer, recording_trainer(loop.Trainer, rec, steps)
    start = time.perf_counter()
    try:
        summary = fam.impl.train(name, registry.weight_settings(entry), a.domain, files, a.seed, work / "model.ckpt",
                                 work / "training.csv", work / "summary.json", threads=a.threads, device=device)
    finally:
        loop.Trainer = original
    job_s = time.perf_counter() - start
    k = max(1, len(rec.losses) // 10)
    first, last = (sum(x) / len(x) if x else float("nan") for x in (rec.losses[:k], rec.losses[-k:]))
    counted = [p for p in rec.positions if p is not None]
    real, padded = ((sum(p[i] for p in counted) / len(counted)) for i in (0, 1)) if counted else (None, None)
    params = summary.get("parameters")
    steps_s = len(rec.losses) / rec.wall if rec.wall else 0.0
    return {"params": params, "steps": len(rec.losses), "skipped": rec.skipped,
            "precision": rec.precision, "first": first, "last": last, "fell": last < first,
            "steps_s": steps_s, "steps_cpu_s": len(rec.losses) / rec.cpu if rec.cpu else 0.0,
            "peak_mib": torch.cuda.max_memory_allocated() / 2**20 if device == "cuda" else None,
            "job_s": job_s, "ckpt_mib": (work / "model.ckpt").stat().st_size / 2**20,
            "prep_s": (rec.first_at - start) if rec.first_at is not None else job_s, "first_step_s": rec.first_wall,
            "job_steps_s": len(rec.losses) / job_s if job_s else 0.0,
            "step_s": (rec.wall - rec.first_wall) / (rec.taken - 1) if rec.taken > 1 else None,
            "real_tokens": real, "tokens": padded,
            "flops_6nt": 6 * params * padded if params and padded else None, "flops": rec.flops,
            "flops_error": rec.flops_error, "cut": rec.cut, "record": rec}


def plan(name: str, entry: dict, root: Path, work: Path, a, split: str | None = None, strategy: str | None = None,
         model=None) -> dict:
    """Load the checkpoint on the CPU with the planner's loader (or use `model`, loaded so) and evaluate `split`
    (--plan-split) with `strategy` (the entry's first), VAL checking every plan."""
    from genplan import registry
    from genplan.errors import GenplanError
    from genplan.evaluation.split import evaluate_split

    split, strategy = split or a.plan_split, strategy or entry["strategies"][0]
    problems = root / "problems" / a.benchmark / a.domain
    start = time.perf_counter()
    model = model or load_on_cpu(work / "model.ckpt", problems / "domain.pddl", a.threads)
    rows = evaluate_split(work / "model.ckpt", problems, split, root / "plans" / a.benchmark / a.domain /
                          f"{split}.csv", strategy, registry.planning_settings(entry),
                          work / f"{split}.{strategy}.csv", benchmark=a.benchmark, model=model)
    reasons: dict[str, int] = {}
    for r in rows:
        reasons[r["reason"]] = reasons.get(r["reason"], 0) + 1
    if not rows:
        raise GenplanError(f"no {split} problems", problems)
    return {"strategy": strategy, "split": split, "problems": len(rows),
            "solved": sum(r["solved"] == "yes" for r in rows),
            "val_valid": sum(r["val"] == "valid" for r in rows), "val_checked": sum(r["val"] != "" for r in rows),
            "reasons": " ".join(f"{k} {v}" for k, v in sorted(reasons.items())), "plan_s": time.perf_counter() - start}


def load_on_cpu(checkpoint: Path, domain: Path, threads: int):
    """The planner's loader (`genplan.solve_setup.load_model`: map_location cpu, the domain checked); its weights
    must lie on the CPU."""
    from genplan.errors import GenplanError
    from genplan.solve_setup import load_model

    model = load_model(checkpoint, domain, threads=threads)
    devices = {str(p.device) for p in model.net.parameters()}
    if devices != {"cpu"}:
        raise GenplanError(f"the loaded weights lie on {sorted(devices)}, not the CPU", checkpoint)
    return model


def peak_of(device: str) -> tuple[float, str] | None:
    """(dense TFLOP/s, number format) of PEAK_TFLOPS for a CUDA device name; None where it is not listed."""
    return next(((tf, kind) for pattern, tf, kind in PEAK_TFLOPS if re.search(pattern, device)), None)


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


def _g(x) -> str:
    if x is None:
        return "-"
    return f"{x / 1e9:.1f}" if x >= 1e10 else f"{x / 1e9:.3g}"


def throughput(rows: list[dict], peak) -> list[str]:
    """The second table: the whole job's rates and the model FLOPs. `peak`: (TFLOP/s, format) of the device, None
    where unknown, "n/a" on a CPU."""
    done = [r for r in rows if "prep_s" in r]
    if not done:
        return []
    where = ("n/a on a CPU" if peak == "n/a" else "peak unknown for this device" if peak is None
             else f"the device's dense {peak[1]} peak, {peak[0]:g} TFLOP/s")
    fmt = "{:10} {:>7} {:>8} {:>9} {:>17} {:>9} {:>9} {:>8} {:>8}  {}"
    out = ["", ("# the whole job: prep s: job start to the first optimiser step (data reading, sampling, encoding, "
                "the model built and moved); 1st step s: the first step (torch.compile, warm-up); job steps/s: "
                "steps / job s"),
           ("# FLOPs per step: 6NT = 6 x parameters x padded positions per step (from the batches: SymT atoms of both "
            "copies + decoder plan tokens, PlanGPT sequence tokens, diffusion condition atoms + plan positions; no "
            "attention term, a layer applied L times counted once); counted = torch.utils.flop_counter."
            "FlopCounterMode over one real step's forward + backward (by shape: matrix products and attention, "
            "every application of a shared layer); TFLOP/s = counted (else 6NT, marked *) / the mean step after the "
            f"first (synchronised; compile excluded); of peak: {where}"),
           fmt.format("model", "prep s", "1st step", "job st/s", "tok/step real/pad", "GF 6NT", "GF count",
                      "TFLOP/s", "of peak", "note"), "-" * 120]
    for r in done:
        flops, mark = (r["flops"], "") if r.get("flops") else (r.get("flops_6nt"), "*")
        rate = 1 / r["step_s"] if r.get("step_s") else r["steps_s"]
        tflops = flops * rate / 1e12 if flops else None
        shown = "-" if tflops is None else f"{tflops:.3g}{mark}" if tflops < 1e3 else f"{tflops:.0f}{mark}"
        frac = ("n/a" if peak == "n/a" else "unknown" if peak is None or tflops is None
                else f"{100 * tflops / peak[0]:.2f}%")
        notes = []
        if r.get("cut"):
            notes.append(f"steps cut from {r['cut'][0]} to {r['cut'][1]} to fit the time budget")
        if r.get("flops_error"):
            notes.append(f"FLOPs not counted: {r['flops_error']}")
        tokens = "-" if r.get("tokens") is None else f"{r['real_tokens']:.0f}/{r['tokens']:.0f}"
        out.append(fmt.format(r["model"], f"{r['prep_s']:.2f}", f"{r['first_step_s']:.1f}", f"{r['job_steps_s']:.2f}",
                              tokens, _g(r.get("flops_6nt")), _g(r.get("flops")),
                              shown, frac, "; ".join(notes)).rstrip())
    return out


def report(rows: list[dict], head: list[str], pending: list[str] = (), peak="n/a", notes: list[str] = (),
           failed_checks: list[str] = ()) -> str:
    fmt = "{:10} {:>11} {:>5} {:>24} {:>9} {:>9} {:>5} {:>8} {:>9} {:>8} {:>7} {:>8}  {}"
    out = head + ["", fmt.format("model", "params", "steps", "precision", "loss 1st", "loss last", "fell",
                                 "steps/s", "steps/cpu", "GPU MiB", "job s", "ckpt MiB", "CPU load + plan (VAL)"),
                  "-" * 150]
    for r in rows:
        if "steps" not in r:  # training failed
            out.append(f"{r['model']:10} FAILED: {r['error']}")
            continue
        p = r.get("plan")
        if p is None:
            planned = f"FAILED: {r['error']}"
        elif "text" in p:  # planned elsewhere (--paper-model: a table of its own)
            planned = p["text"]
        else:
            planned = (f"{p['strategy']} {p['solved']}/{p['problems']} solved, VAL accepted {p['val_valid']} of "
                       f"{p['val_checked']} checked; {p['reasons']} ({p['plan_s']:.0f} s)")
        out.append(fmt.format(r["model"], f"{r['params']:,}", r["steps"], r["precision"], f"{r['first']:.4f}",
                              f"{r['last']:.4f}", "yes" if r["fell"] else "NO", f"{r['steps_s']:.2f}",
                              f"{r['steps_cpu_s']:.2f}", "-" if r["peak_mib"] is None else f"{r['peak_mib']:.0f}",
                              f"{r['job_s']:.0f}", f"{r['ckpt_mib']:.1f}", planned)
                   + (f"  [{r['skipped']} non-finite steps]" if r["skipped"] else ""))
    out += throughput(rows, peak)
    if notes:
        out += ["", *notes]
    failed = [r["model"] for r in rows if not ok(r)] + list(failed_checks)
    verdict = "FAILED: " + ", ".join(failed) if failed else "every model passed"
    if pending:
        verdict = f"INCOMPLETE (still to run: {', '.join(pending)}); so far: {verdict}"
    out += ["", f"verdict: {verdict}"]
    return "\n".join(out) + "\n"


def ok(r: dict) -> bool:
    return "error" not in r and r["fell"] and not r["skipped"] and r.get("plan") is not None


NONDETERMINISTIC = re.compile(r"(\S+) does not have a deterministic implementation")


def compare_runs(one: Record, two: Record) -> dict:
    """Final weights (bitwise, max |difference|) and loss curves (first step where they differ) of two runs."""
    import torch

    w1, w2 = one.final or {}, two.final or {}
    same_keys = w1.keys() == w2.keys()
    identical = same_keys and all(torch.equal(w1[k], w2[k]) for k in w1)
    diffs = [(w1[k].double() - w2[k].double()).abs().max().item() for k in w1
             if k in w2 and w1[k].shape == w2[k].shape and w1[k].is_floating_point() and w1[k].numel()]
    differ = next((i for i, (x, y) in enumerate(zip(one.losses, two.losses)) if x != y), None)
    if differ is None and len(one.losses) != len(two.losses):
        differ = min(len(one.losses), len(two.losses))
    dloss = max((abs(x - y) for x, y in zip(one.losses, two.losses)), default=0.0)
    return {"identical": identical, "same_keys": same_keys, "max_dw": max(diffs, default=0.0),
            "steps": (len(one.losses), len(two.losses)), "loss_differs_at": differ, "max_dloss": dloss}


def determinism_line(d: dict, device: str) -> str:
    """The report's line for a determinism pair (`d`: compare_runs' result with model, seed, warned)."""
    what = f"{'GPU' if device == 'cuda' else 'CPU'} determinism"
    run = f"({d['model']}, two runs of {d['steps'][0]} steps, seed {d['seed']}, {d['seconds']:.0f} s)"
    if d["identical"] and d["loss_differs_at"] is None:
        line = f"{what}: identical weights and losses {run}"
    else:
        weights = ("identical weights" if d["identical"] else "weights of different keys or shapes"
                   if not d["same_keys"] else f"max |dw| = {d['max_dw']:.3g} after {d['steps'][0]} steps")
        losses = ("identical losses" if d["loss_differs_at"] is None else
                  f"losses differ from step {d['loss_differs_at'] + 1} (max |dloss| = {d['max_dloss']:.3g})")
        line = f"{what}: {weights}; {losses} {run}"
    if d.get("warned"):
        line += f"; torch warned of kernels without a deterministic version: {', '.join(sorted(d['warned']))}"
    return line


def run_training(name: str, entry: dict, files: dict, work: Path, a, device: str, warned: set, **kw) -> dict:
    """`train`, collecting the kernels torch warns have no deterministic version into `warned` (other warnings
    are shown as usual)."""
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("default")
            return train(name, entry, files, work, a, device, **kw)
    finally:  # outside the recording context: shown warnings are printed, not recorded again
        for w in caught:
            found = NONDETERMINISTIC.search(str(w.message))
            if found:
                warned.add(found.group(1))
            else:
                warnings.showwarning(w.message, w.category, w.filename, w.lineno)


def determinism(name: str, entry: dict, files: dict, tmp: Path, a, device: str, steps: int) -> dict:
    """Train `entry` twice, `steps` steps each, with the same seed in this process; compare_runs' verdict."""
    start, warned, records = time.perf_counter(), set(), []
    for i in (1, 2):
        work = tmp / f"determinism-{i}"
        work.mkdir()
        try:
            row = run_training(name, entry, files, work, a, device, warned, steps=steps, count_flops=False)
        finally:
            shutil.rmtree(work)
        records.append(row["record"])
    return {**compare_runs(*records), "model": name, "seed": a.seed, "warned": warned,
            "seconds": time.perf_counter() - start}


def determinism_steps(a, row: dict | None, seconds_left: float) -> int:
    """--determinism-steps, fewer where two runs at the rates of the model's row would not fit `seconds_left`."""
    if not row or not row.get("step_s"):
        return a.determinism_steps
    per_step = row["step_s"]
    overhead = max(0.0, row["job_s"] - row["steps"] * per_step)  # data, the first step's compile, selection, saving
    return max(0, min(a.determinism_steps, int((seconds_left / 2 - overhead) / per_step)))


def header(a, device: str, title: str = "GPU check") -> list[str]:
    def git(*args) -> str:
        try:
            return subprocess.run(["git", *args], check=False, cwd=REPO, capture_output=True, text=True).stdout.strip()
        except OSError:  # no git (a device machine's copy of the working tree)
            return ""
    commit = git("rev-parse", "--short", "HEAD") or "? (no git)"
    dirty = " + uncommitted changes in src/" if git("status", "--porcelain", "--", "src") else ""
    return [f"# {title}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}",
            f"# device: {device_line(device)}",
            f"# commit {commit}{dirty}",
            f"# command: python {' '.join(shlex.quote(x) for x in sys.argv)}",
            (f"# entries of {a.config} with --set {a.set}: {a.steps} optimiser steps each (warmup "
             f"{a.warmup_fraction:g} of them; fewer where --budget-s {a.budget_s:g} says so), seed {a.seed}; data "
             f"{a.data}/.../{a.benchmark}/{a.domain}; planned on the CPU (torch threads: {a.threads}): split "
             f"{a.plan_split}, each entry's first strategy"),
            ("# loss 1st / last: mean training loss of the first / last tenth of the steps; steps/s: wall time of "
             "the steps alone (synchronised), steps/cpu: per CPU-second of this process")]


def paper_run(a, config: dict, device: str, root: Path) -> int:
    """--paper-model: the entry at its own size (and --set) for as many steps as fit in --paper-seconds of its
    training job (or --paper-steps), its checkpoint in --paper-out, then each of its strategies on --paper-splits
    (CPU, VAL checks), with coverage; see the module docstring."""
    import torch
    from training_throughput import training_files

    from genplan import atomic

    name, start = a.paper_model, time.perf_counter()
    guess = a.paper_steps or max(1, int(a.paper_seconds * a.paper_rate))
    entry = check_entry(config, name, a, steps=guess)
    tr = entry["train"]
    batch = int(tr.get("batch_size", 32))
    epoch = min(int(config["models"][name].get("train", {}).get("examples", tr["examples"])),
                a.paper_epoch_steps * batch)
    tr["examples"] = min(tr["examples"], epoch)  # an epoch of at most --paper-epoch-steps: data built sooner
    out = Path(a.paper_out)
    out.mkdir(parents=True, exist_ok=True)
    files = training_files(root, a.benchmark, a.domain, entry, (config.get("statespace") or {}).get("splits",
                                                                                                    ["train"]))
    deadline = start + a.paper_seconds if a.paper_seconds else None
    warned: set = set()
    row = run_training(name, entry, files, out, a, device, warned, steps=guess, deadline=deadline, calibrate=20)
    rec = row.pop("record")
    peak = "n/a" if device != "cuda" else peak_of(torch.cuda.get_device_name(0))
    head = header(a, device, f"paper-size training of {name}")
    head[4] = (f"# entry {name} of {a.config} with --set {a.set}: up to {a.paper_seconds or '-'} s of training "
               f"(or {a.paper_steps or '-'} steps; cosine over the steps that fit, warmup {a.warmup_fraction:g} of "
               f"them), epochs of at most {a.paper_epoch_steps} steps, seed {a.seed}; data {a.data}/.../{a.benchmark}"
               f"/{a.domain}; planned on the CPU (torch threads: {a.threads}); checkpoint {out / 'model.ckpt'}")
    lines = report([{"model": name, **row, "plan": {"text": "below"}}], head, peak=peak).splitlines()[:-2]
    digest = hashlib.sha256((out / "model.ckpt").read_bytes()).hexdigest()
    lines += ["", f"checkpoint {out / 'model.ckpt'}: {row['ckpt_mib']:.1f} MiB, sha256 {digest}; training ended "
              f"{time.perf_counter() - start:.0f} s after the job began; best selection: see {out / 'summary.json'}",
              *([f"torch warned of kernels without a deterministic version: {', '.join(sorted(warned))}"]
                if warned else []),
              "", "split          strategy                 solved  coverage  VAL valid/checked  reasons (seconds)"]
    problems = root / "problems" / a.benchmark / a.domain
    model, failed = load_on_cpu(out / "model.ckpt", problems / "domain.pddl", a.threads), []
    for strategy in a.paper_strategies or entry["strategies"]:  # the first strategy on every split first
        for split in a.paper_splits:
            allowed = (entry.get("strategy_splits") or {}).get(strategy)
            if allowed is not None and split not in allowed:
                continue
            try:
                p = plan(name, entry, root, out, a, split=split, strategy=strategy, model=model)
                lines.append(f"{split:14} {strategy:24} {p['solved']:>3}/{p['problems']:<3} "
                             f"{p['solved'] / p['problems']:>8.1%}  {p['val_valid']:>7}/{p['val_checked']:<7}  "
                             f"{p['reasons']} ({p['plan_s']:.0f} s)")
            except Exception as exc:  # noqa: BLE001 - reported, then the exit status
                traceback.print_exc()
                failed.append(f"{split} {strategy}")
                lines.append(f"{split:14} {strategy:24} FAILED: {type(exc).__name__}: {exc}".splitlines()[0][:300])
            atomic.write_text(out / "report.txt", "\n".join(lines) + "\n")
    fell = row["fell"] and not row["skipped"]
    lines += ["", f"verdict: {'loss fell' if fell else 'the loss did not fall or a step was not finite'}; "
              f"{'planning FAILED: ' + ', '.join(failed) if failed else 'every planning run finished'}"
              + (f"; {rec.cut[1]} steps fitted" if rec.cut else "")]
    text = "\n".join(lines) + "\n"
    print(text, end="")
    atomic.write_text(out / "report.txt", text)
    return 0 if fell and not failed else 1


def main(argv=None) -> int:
    start = time.perf_counter()
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
    ap.add_argument("--paper-source", default=None, help="with --prepare: the papers' instances of --domain "
                    "imported from this local copy of the release (genplan import) instead of generated ones")
    ap.add_argument("--benchmark", default="generated")
    ap.add_argument("--domain", default="blocks")
    ap.add_argument("--plan-split", default="interpolation", help="the problems planned on the CPU")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--out", default=None, help="default perf/results/gpu-check-<device>.txt")
    ap.add_argument("--budget-s", type=float, default=540.0, help="the whole check's seconds: a model's steps are "
                    "cut where its measured rate says they would not fit its share")
    ap.add_argument("--determinism", action=argparse.BooleanOptionalAction, default=None,
                    help="train one model twice with the same seed and compare (default: on CUDA only)")
    ap.add_argument("--determinism-model", default=None, help="default: the first of --models")
    ap.add_argument("--determinism-steps", type=int, default=50)
    ap.add_argument("--paper-model", default=None, help="instead of the check: train this entry at its own size for "
                    "--paper-seconds / --paper-steps, keep its checkpoint in --paper-out and plan --paper-splits")
    ap.add_argument("--paper-seconds", type=float, default=None, help="the paper model's training job's seconds")
    ap.add_argument("--paper-steps", type=int, default=None, help="the paper model's steps (at most)")
    ap.add_argument("--paper-rate", type=float, default=50.0, help="steps/s assumed before the rate is measured "
                    "(an upper bound: the steps are cut to those that fit after 20 steps)")
    ap.add_argument("--paper-epoch-steps", type=int, default=500, help="steps per epoch (a validation selection each)")
    ap.add_argument("--paper-splits", nargs="+", default=["validation", "interpolation"])
    ap.add_argument("--paper-strategies", nargs="+", default=None, help="default: the entry's strategies")
    ap.add_argument("--paper-out", default="runs/gpu-check/paper", help="checkpoint, CSVs and report.txt")
    a = ap.parse_args(argv)
    import logging

    import torch
    import yaml

    from genplan import atomic
    from genplan.errors import GenplanError
    from genplan.training.job import choose_device

    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(message)s")
    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")  # before cuBLAS starts (the loop's deterministic mode)
    # A pipeline job is a process of its own; here up to six jobs with train.compile share one, and every compiled
    # module call is `nn.Module._call_impl`'s code, whose dynamo cache holds 8 entries by default: past them the
    # later jobs would run eager, which no real job does.
    import torch._dynamo.config as dynamo_config

    limit = "recompile_limit" if hasattr(dynamo_config, "recompile_limit") else "cache_size_limit"  # older torch
    setattr(dynamo_config, limit, max(getattr(dynamo_config, limit), 64))
    root = Path(a.data)
    try:
        if a.prepare or a.prepare_only:
            prepare(root, a.benchmark, a.domain, json.loads(a.generate), a.seed, a.paper_source)
            if a.prepare_only:
                return 0
        device = choose_device(a.device)
        if device == "cuda" and not torch.cuda.is_available():
            raise GenplanError("--device cuda, but torch sees no CUDA device")
        config = yaml.safe_load(Path(a.config).read_text())
        if a.paper_model:
            if not (a.paper_seconds or a.paper_steps):
                raise GenplanError("--paper-model needs --paper-seconds or --paper-steps")
            return paper_run(a, config, device, root)
        entries = {name: check_entry(config, name, a) for name in a.models}
        det = a.determinism if a.determinism is not None else device == "cuda"
        det_name = a.determinism_model or a.models[0]
        det_entry = check_entry(config, det_name, a, steps=a.determinism_steps) if det else None
    except (GenplanError, ValueError) as exc:
        print(f"gpu_check: {exc}", file=sys.stderr)
        return 2
    from training_throughput import training_files

    head, rows, notes, failed_checks, warned = header(a, device), [], [], [], set()
    splits = (config.get("statespace") or {}).get("splits", ["train"])
    name_of = torch.cuda.get_device_name(0) if device == "cuda" else "cpu"
    peak = peak_of(name_of) if device == "cuda" else "n/a"
    slug = re.sub(r"[^a-z0-9]+", "-", name_of.lower()).strip("-")
    out = Path(a.out or REPO / "perf" / "results" / f"gpu-check-{slug}.txt")
    deadline = start + a.budget_s
    models_deadline = deadline - (DETERMINISM_SHARE * a.budget_s if det else 0.0)

    def data_files(entry: dict) -> dict:
        files = training_files(root, a.benchmark, a.domain, entry, splits)
        table = root / "plans" / a.benchmark / a.domain / f"{a.plan_split}.csv"
        missing = [str(f) for f in [*files["train"], *files["validation"], table] if not Path(f).exists()]
        if missing:
            raise GenplanError(f"missing data (make it with --prepare): {', '.join(missing)}")
        return files

    with tempfile.TemporaryDirectory(prefix="gpu-check-") as tmp:
        for i, (name, entry) in enumerate(entries.items()):
            pending = list(entries)[i:] + (["determinism"] if det else [])
            atomic.write_text(out, report(rows, head, pending, peak))  # what is done so far, if time runs out
            work, row = Path(tmp) / name, {"model": name}
            work.mkdir()
            now = time.perf_counter()
            share = (models_deadline - now) / (len(entries) - i)  # this model's share of what is left
            try:
                files = data_files(entry)
                row.update(run_training(name, entry, files, work, a, device, warned, deadline=now + 0.85 * share))
                row.pop("record")
                row["plan"] = plan(name, entry, root, work, a)
            except Exception as exc:  # noqa: BLE001 - every failure is reported in the table, then the exit status
                traceback.print_exc()
                row["error"] = f"{type(exc).__name__}: {exc}".splitlines()[0][:600]
            rows.append(row)
            shutil.rmtree(work)  # checkpoints of the paper sizes take hundreds of MB
            print(f"{name}: {'passed' if ok(row) else 'FAILED'}", file=sys.stderr, flush=True)
        if det:
            atomic.write_text(out, report(rows, head, ["determinism"], peak))
            measured = next((r for r in rows if r["model"] == det_name and "steps" in r), None)
            steps = determinism_steps(a, measured, deadline - time.perf_counter())
            if steps < 2:  # said, not a failure: the budget went to the models
                notes.append(f"determinism check not run: no time left in --budget-s {a.budget_s:g} for two runs of "
                             f"2 steps of {det_name}")
            else:
                try:
                    d = determinism(det_name, det_entry, data_files(det_entry), Path(tmp), a, device, steps)
                    cut = f" (cut from {a.determinism_steps} steps by --budget-s)" * (steps < a.determinism_steps)
                    notes.append(determinism_line(d, device) + cut)
                except Exception as exc:  # noqa: BLE001 - reported, then the exit status
                    traceback.print_exc()
                    notes.append(f"determinism check FAILED to run: {type(exc).__name__}: {exc}".splitlines()[0][:600])
                    failed_checks.append("determinism (did not run)")
    if warned and not any("torch warned" in n for n in notes):
        notes.append(f"torch warned of kernels without a deterministic version: {', '.join(sorted(warned))}")
    notes.append(f"check took {time.perf_counter() - start:.0f} s of --budget-s {a.budget_s:g}")
    text = report(rows, head, peak=peak, notes=notes, failed_checks=failed_checks)
    print(text, end="")
    atomic.write_text(out, text)
    return 0 if all(ok(r) for r in rows) and not failed_checks else 1


if __name__ == "__main__":
    sys.exit(main())
