"""What a configuration's run will ask of a cluster, before it is submitted (`genplan cluster-plan`).

The jobs are Snakemake's own: a forced dry run of the configuration under the cluster profile
(`snakemake -n --forceall --profile P --configfile F all`), read job by job (rule, wildcards,
threads, resources, the job's `benchmark:` file) and group by group. Each job is then priced:

- a GPU training job (the rule's `gpu` resource) by the measured paper-size training rate of its
  architecture (perf/gpu_check.py's steps/s on a named device, e.g. an H100) times the optimiser
  steps its entry allows: `max_steps`, else `epochs` x ceil(`examples` / `batch_size`). Early stopping
  (`patience`) can end a job sooner: the figure is the most it may use;
- every other job by Snakemake's measurement of the same job in a committed CPU run (its `benchmark:`
  file under one of the jobstats roots: the same path, else the same path at another seed, else the mean
  over that model on that domain, else over that model, else over its stage): CPU-seconds (`cpu_time`)
  and wall time. Paper-size sequence models decode slower on CPUs than the CPU runs' small ones: their
  evaluation hours are a lower bound.
  Jobs no root measured are priced at their runtime request (`unmeasured`).

Storage is the measured `io_out` of the CPU jobs and, for GPU training, the checkpoint size the GPU check
measured (the partial state holds about two such copies more). The longest job is set against the
runtime it asks for: a training job longer than one attempt goes on in the next (it resumes), so the
number of attempts it needs must stay within the profile's `retries` + 1."""

from __future__ import annotations

import math
import re
import statistics
import subprocess
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from genplan.errors import GenplanError

GPU_CHECK = Path("perf/results/gpu-check-cuda-h100.txt")
JOBSTATS = (Path("results/jobstats"), Path("results/ipc2023-cpu/jobstats"), Path("results/plangpt-cpu/jobstats"))
RATE_KEYS = ("symt_e", "symt_ed", "plangpt", "diffusion")
LOCAL_RULES = {"all", "import_problems", "import_ipc2023", "import_folder"}  # the Snakefile's, problems.smk's


@dataclass
class Job:
    rule: str
    wildcards: dict[str, str]
    threads: int = 1
    resources: dict[str, str] = field(default_factory=dict)
    benchmark: str | None = None
    group: int | None = None  # the index of the group job it belongs to

    def res(self, name: str, default: float = 0.0) -> float:
        try:
            return float(self.resources.get(name, default))
        except ValueError:
            return default


def parse_dry_run(text: str) -> list[Job]:
    """The jobs of a dry run's listing (top-level and inside `Group job` blocks)."""
    jobs: list[Job] = []
    group, current = -1, None
    in_group = False
    for line in text.splitlines():
        stripped = line.strip()
        if re.match(r"^\[.*\] Group job \S+", stripped):
            group, in_group = group + 1, True
            continue
        rule = re.match(r"^(?:local)?rule (\w+):$", stripped)
        if rule:
            if not line.startswith(" "):
                in_group = False
            current = Job(rule.group(1), {}, group=group if in_group else None)
            jobs.append(current)
            continue
        if current is None or ":" not in stripped:
            continue
        key, value = stripped.split(":", 1)
        value = value.strip()
        if key == "wildcards":
            current.wildcards = dict(part.split("=", 1) for part in value.split(", ") if "=" in part)
        elif key == "threads":
            current.threads = int(value)
        elif key == "resources":
            current.resources = dict(part.split("=", 1) for part in value.split(", ") if "=" in part)
        elif key == "benchmark":
            current.benchmark = value
        elif stripped.startswith("Shell command"):
            current = None
    return jobs


def gpu_rates(path: Path) -> dict[str, tuple[int, float, float]]:
    """model -> (parameters, steps per second, checkpoint MiB) from gpu_check's table."""
    try:
        text = path.read_text()
    except OSError as exc:
        raise GenplanError(f"cannot read the GPU check's rates: {exc.strerror}", path) from None
    rates = {}
    for line in text.splitlines():
        m = re.match(r"^(symt_e|symt_ed|plangpt|diffusion)\s+([\d,]+)\s+\d+\s.*?\s(?:yes|no)\s+([\d.]+)\s+[\d.]+\s+"
                     r"\d+\s+\d+\s+([\d.]+)\s", line)
        if m:
            rates[m.group(1)] = (int(m.group(2).replace(",", "")), float(m.group(3)), float(m.group(4)))
    if set(rates) != set(RATE_KEYS):
        raise GenplanError(f"no measured rate for {sorted(set(RATE_KEYS) - set(rates))} (a gpu_check.py table)", path)
    return rates


def device_of(path: Path) -> str:
    found = re.search(r"^# device: (.*)$", path.read_text(), re.M)
    return found.group(1).split(",")[0] if found else str(path)


def rate_key(entry: dict) -> str:
    """The GPU check row that measures a model entry's architecture at paper size."""
    fam = entry["family"]
    if fam == "symt":
        return "symt_ed" if entry.get("architecture") == "encoder_decoder" else "symt_e"
    if fam in RATE_KEYS:
        return fam
    raise GenplanError(f"no GPU rate for the {fam!r} family (perf/gpu_check.py measures {list(RATE_KEYS)})")


def training_steps(entry: dict) -> int | None:
    train = entry.get("train") or {}
    if train.get("max_steps"):
        return int(train["max_steps"])
    if train.get("epochs") and train.get("examples") and train.get("batch_size"):
        return int(train["epochs"]) * math.ceil(int(train["examples"]) / int(train["batch_size"]))
    return None


class Measured:
    """The committed jobstats of CPU runs, looked up by a job's `benchmark:` path."""

    def __init__(self, roots: list[Path]):
        self.rows: dict[str, dict] = {}
        for root in roots:
            for f in sorted(root.rglob("*.tsv")):
                rel = f.relative_to(root).as_posix()
                lines = f.read_text().splitlines()
                if len(lines) >= 2:
                    row = dict(zip(lines[0].split("\t"), lines[1].split("\t")))
                    self.rows.setdefault(rel, {k: _num(v) for k, v in row.items()})

    def find(self, benchmark: str | None) -> tuple[dict | None, str]:
        if not benchmark or "/jobstats/" not in benchmark:
            return None, "unmeasured"
        rel = benchmark.split("/jobstats/", 1)[1]
        if rel in self.rows:
            return self.rows[rel], "same job"
        parts = rel.split("/")
        for level, pattern in (("another seed", re.sub(r"/seed\d+", "/seed*", rel)),
                               ("its model and domain", "/".join(parts[:4]) + "/*" if len(parts) > 4 else None),
                               ("its model", f"{parts[0]}/*/*/{parts[3]}/*" if len(parts) > 4 else None),
                               ("its stage", parts[0] + "/*")):
            if pattern is None:
                continue
            regex = re.compile("^" + re.escape(pattern).replace(r"\*", ".*") + "$")
            hits = [row for key, row in self.rows.items() if regex.match(key)]
            if hits:
                return {k: statistics.mean(h[k] for h in hits) for k in ("s", "cpu_time", "io_out")}, level
        return None, "unmeasured"


def _num(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return math.nan


def dry_run(configfile: Path, profile: str, snakemake: list[str] | None = None) -> str:
    cmd = [*(snakemake or [sys.executable, "-m", "snakemake"]), "all", "-n", "--forceall", "--profile", profile,
           "--configfile", str(configfile)]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        raise GenplanError(f"the dry run failed: {' '.join(cmd)}\n{(res.stdout + res.stderr)[-3000:]}", configfile)
    return res.stdout + res.stderr


def plan(configfile: Path, profile: str, gpu_check: Path = GPU_CHECK, jobstats: list[Path] | None = None,
         text: str | None = None) -> list[str]:
    """The report's lines (Markdown)."""
    from genplan import registry

    config = yaml.safe_load(configfile.read_text())
    prof = yaml.safe_load((Path(profile) / "config.yaml").read_text())
    jobs = parse_dry_run(text if text is not None else dry_run(configfile, profile))
    rates, measured = gpu_rates(gpu_check), Measured(list(jobstats if jobstats is not None else JOBSTATS))
    rows: dict[str, dict] = defaultdict(lambda: defaultdict(float))
    sources: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    longest: dict[str, tuple[float, float, str]] = {}
    for job in jobs:
        if job.rule == "all":
            continue
        row, runtime_h = rows[job.rule], job.res("runtime", 60) / 60
        row["jobs"] += 1
        row["requested_core_h"] += job.threads * runtime_h
        if job.res("gpu") > 0:
            entry = registry.entry_for(config["models"][job.wildcards["model"]], job.wildcards["domain"])
            params, per_s, ckpt_mib = rates[rate_key(entry)]
            steps = training_steps(entry)
            hours = steps / per_s / 3600 if steps else runtime_h
            row["gpu_h"] += hours
            row["requested_gpu_h"] += runtime_h
            row["storage_gb"] += ckpt_mib / 1024
            sources[job.rule]["GPU rate x steps" if steps else "unmeasured"] += 1
            what = f"{job.wildcards['model']} {job.wildcards['domain']}"
        else:
            stats, level = measured.find(job.benchmark)
            sources[job.rule][level] += 1
            if stats is None:
                hours, cpu_h, out_gb = runtime_h, job.threads * runtime_h, 0.0
            else:
                hours, cpu_h, out_gb = stats["s"] / 3600, stats["cpu_time"] / 3600, stats["io_out"] / 1024
            row["cpu_h"] += cpu_h
            row["storage_gb"] += 0.0 if math.isnan(out_gb) else out_gb
            what = " ".join(job.wildcards.values())
        if job.rule not in longest or hours > longest[job.rule][0]:
            longest[job.rule] = (hours, runtime_h, what)
    groups = {j.group for j in jobs if j.group is not None}
    grouped = sum(1 for j in jobs if j.group is not None)
    submissions = sum(1 for j in jobs if j.group is None and j.rule not in LOCAL_RULES)
    return _format(configfile, profile, prof, gpu_check, rows, sources, longest, len(groups), grouped,
                   submissions + len(groups), rates)


def _format(configfile, profile, prof, gpu_check, rows, sources, longest, n_groups, grouped, submissions,
            rates) -> list[str]:
    attempts = int(prof.get("retries", 0)) + 1
    out = [f"# cluster plan: {configfile} under --profile {profile}",
           f"# command: genplan cluster-plan --configfile {configfile} --profile {profile} --gpu-check {gpu_check}",
           f"# GPU rates: {gpu_check} ({device_of(gpu_check)}): "
           + ", ".join(f"{k} {v[1]:.2f} steps/s" for k, v in rates.items()),
           "# CPU rates: Snakemake's jobstats of the committed CPU runs (results/jobstats, results/ipc2023-cpu/jobstats,"
           " results/plangpt-cpu/jobstats); GPU hours are the most a job may use (early stopping can end it sooner)",
           "",
           "| rule | jobs | GPU-h (est.) | CPU-h (est.) | asked GPU-h | asked core-h | storage GB | longest job (est. h)"
           " | runtime asked (h) | attempts it needs | priced by |",
           "|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---|"]
    total = defaultdict(float)
    worst = 1
    for rule in sorted(rows, key=lambda r: -rows[r]["gpu_h"] - rows[r]["cpu_h"]):
        row = rows[rule]
        hours, runtime_h, what = longest[rule]
        need = max(1, math.ceil(hours / runtime_h - 1e-9)) if runtime_h else 1
        worst = max(worst, need)
        src = ", ".join(f"{k} {v}" for k, v in sorted(sources[rule].items(), key=lambda kv: -kv[1]))
        out.append(f"| {rule} | {row['jobs']:.0f} | {row['gpu_h']:.1f} | {row['cpu_h']:.1f} | {row['requested_gpu_h']:.0f}"
                   f" | {row['requested_core_h']:.0f} | {row['storage_gb']:.1f} | {hours:.2f} ({what}) | {runtime_h:.0f}"
                   f" | {need} | {src} |")
        for k in ("jobs", "gpu_h", "cpu_h", "requested_gpu_h", "requested_core_h", "storage_gb"):
            total[k] += row[k]
    out.append(f"| total | {total['jobs']:.0f} | {total['gpu_h']:.1f} | {total['cpu_h']:.1f} | "
               f"{total['requested_gpu_h']:.0f} | {total['requested_core_h']:.0f} | {total['storage_gb']:.1f} | | | | |")
    out += ["", f"SLURM submissions: {submissions} ({grouped} evaluation jobs packed into {n_groups} group jobs; "
            "the local rules and `all` run where Snakemake runs)",
            f"Attempts: the longest job needs {worst} of the {attempts} the profile allows (retries + 1): "
            + ("fits" if worst <= attempts else "DOES NOT FIT: raise `retries` or the rule's runtime")]
    return out
