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


PARTIAL_EVERY_S = 600  # the training loop's default in-epoch partial-state interval (genplan.training.schedule)


def group_runtime(members: list[Job], cores: int) -> float:
    """Minutes a group job asks for, packed first-fit as Snakemake packs one: its jobs side by side while their threads fit
    `cores`, the longest first; layers that do not fit run one after another (runtimes summed)."""
    layers: list[tuple[int, float]] = []  # (threads used, longest runtime) per layer
    for job in sorted(members, key=lambda j: -j.res("runtime", 60)):
        threads = min(job.threads, cores)
        for i, (used, longest) in enumerate(layers):
            if used + threads <= cores:
                layers[i] = (used + threads, max(longest, job.res("runtime", 60)))
                break
        else:
            layers.append((threads, job.res("runtime", 60)))
    return sum(longest for _, longest in layers)


def plan(configfile: Path, profile: str, gpu_check: Path = GPU_CHECK, jobstats: list[Path] | None = None,
         text: str | None = None) -> list[str]:
    """The report's lines (Markdown). A job is priced by a measured rate (a GPU check's steps/s, or the
    jobstats of the same or the nearest job of a CPU run) or counted as not measured, with what it asks
    for beside it: a request is never passed off as a cost."""
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
        row["runtime_h"] = max(row["runtime_h"], runtime_h)
        row["requested_core_h"] += job.threads * runtime_h
        hours = None
        if job.res("gpu") > 0:
            entry = registry.entry_for(config["models"][job.wildcards["model"]], job.wildcards["domain"])
            params, per_s, ckpt_mib = rates[rate_key(entry)]
            steps = training_steps(entry)
            row["requested_gpu_h"] += runtime_h
            if steps:
                hours = steps / per_s / 3600
                row["gpu_h"] += hours
                # a partial state (weights and optimiser: ~3 checkpoints) every epoch and every PARTIAL_EVERY_S,
                # and the best weights rewritten at most once an epoch
                epochs = int((entry.get("train") or {}).get("epochs") or 1)
                partials = epochs + math.floor(hours * 3600 / PARTIAL_EVERY_S)
                row["partial_gb"] += (3 * partials + epochs) * ckpt_mib / 1024
            row["storage_gb"] += (4 * ckpt_mib if steps else ckpt_mib) / 1024  # final weights, partial state, best
            sources[job.rule]["GPU rate x steps" if steps else "not measured"] += 1
            what = f"{job.wildcards['model']} {job.wildcards['domain']}"
        else:
            stats, level = measured.find(job.benchmark)
            sources[job.rule][level if stats is not None else "not measured"] += 1
            if stats is not None:
                hours = stats["s"] / 3600
                row["cpu_h"] += stats["cpu_time"] / 3600
                out_gb = stats["io_out"] / 1024
                row["storage_gb"] += 0.0 if math.isnan(out_gb) else out_gb
            what = " ".join(job.wildcards.values())
        if hours is None:
            row["unmeasured"] += 1
            row["unmeasured_asked_h"] += runtime_h * (1 if job.res("gpu") > 0 else job.threads)
        elif job.rule not in longest or (hours, longest[job.rule][2]) > (longest[job.rule][0], what):
            longest[job.rule] = (hours, runtime_h, what)  # ties: the first name in order, whatever the DAG's order
    members: dict[int, list[Job]] = defaultdict(list)
    for j in jobs:
        if j.group is not None:
            members[j.group].append(j)
    cores = int(prof.get("cores") or 1)
    group_min = [group_runtime(m, cores) for m in members.values()]
    submissions = sum(1 for j in jobs if j.group is None and j.rule not in LOCAL_RULES)
    groups = {"n": len(members), "jobs": sum(len(m) for m in members.values()),
              "longest_h": max(group_min, default=0) / 60, "cores": cores}
    return _format(configfile, profile, prof, gpu_check, rows, sources, longest, groups, submissions + len(members),
                   rates)


def _format(configfile, profile, prof, gpu_check, rows, sources, longest, groups, submissions, rates) -> list[str]:
    attempts = int(prof.get("retries", 0)) + 1
    limit = (prof.get("default-resources") or {}).get("runtime_max")
    out = [f"# cluster plan: {configfile} under --profile {profile}",
           f"# command: genplan cluster-plan --configfile {configfile} --profile {profile} --gpu-check {gpu_check}",
           f"# GPU rates: {gpu_check} ({device_of(gpu_check)}): "
           + ", ".join(f"{k} {v[1]:.2f} steps/s" for k, v in rates.items()),
           "# CPU rates: Snakemake's jobstats of the committed CPU runs (results/jobstats, results/ipc2023-cpu/jobstats,"
           " results/plangpt-cpu/jobstats); GPU hours are the most a job may use (early stopping can end it sooner)",
           "# not measured: jobs no rate prices, counted apart with the hours they ask for (GPU-h for GPU jobs,"
           " core-h otherwise), never added to the estimates",
           f"# partial-state writes: at most a partial state (~3 checkpoints) every epoch and every {PARTIAL_EVERY_S} s,"
           " and the best weights once an epoch, of the GPU training jobs priced by a rate",
           "",
           "| rule | jobs | GPU-h (est.) | CPU-h (est.) | not measured: jobs (asked h) | asked GPU-h | asked core-h"
           " | storage GB | partial-state writes GB | longest job (est. h) | runtime asked per attempt (h)"
           " | attempts it needs | priced by |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---|"]
    total = defaultdict(float)
    worst = 1
    for rule in sorted(rows, key=lambda r: (-rows[r]["gpu_h"] - rows[r]["cpu_h"], -rows[r]["unmeasured_asked_h"], r)):
        row = rows[rule]
        runtime_h = row["runtime_h"]
        if rule in longest:
            hours, _, what = longest[rule]
            need = max(1, math.ceil(hours / runtime_h - 1e-9)) if runtime_h else 1
            worst = max(worst, need)
            long_txt, need_txt = f"{hours:.2f} ({what})", str(need)
        else:
            long_txt, need_txt = "not measured", "?"
        src = ", ".join(f"{k} {v}" for k, v in sorted(sources[rule].items(), key=lambda kv: -kv[1]))
        out.append(f"| {rule} | {row['jobs']:.0f} | {row['gpu_h']:.1f} | {row['cpu_h']:.1f} | {row['unmeasured']:.0f}"
                   f" ({row['unmeasured_asked_h']:.0f}) | {row['requested_gpu_h']:.0f} | {row['requested_core_h']:.0f}"
                   f" | {row['storage_gb']:.1f} | {row['partial_gb']:.1f} | {long_txt} | {runtime_h:.0f} | {need_txt}"
                   f" | {src} |")
        for k in ("jobs", "gpu_h", "cpu_h", "unmeasured", "unmeasured_asked_h", "requested_gpu_h", "requested_core_h",
                  "storage_gb", "partial_gb"):
            total[k] += row[k]
    out.append(f"| total | {total['jobs']:.0f} | {total['gpu_h']:.1f} | {total['cpu_h']:.1f} | {total['unmeasured']:.0f}"
               f" ({total['unmeasured_asked_h']:.0f}) | {total['requested_gpu_h']:.0f} | {total['requested_core_h']:.0f}"
               f" | {total['storage_gb']:.1f} | {total['partial_gb']:.1f} | | | | |")
    fits = limit is None or groups["longest_h"] * 60 <= limit
    out += ["", f"SLURM submissions: {submissions} ({groups['jobs']} evaluation jobs packed into {groups['n']} group jobs; "
            "the local rules and `all` run where Snakemake runs)",
            ("Group jobs: none (every evaluation job alone: its threads fill the group's cores)" if not groups["n"] else
             f"Group jobs: the longest asks for {groups['longest_h']:.1f} h on {groups['cores']} cores"
             + ("" if limit is None else f", against the profile's runtime_max of {limit / 60:.1f} h: "
                + ("fits" if fits else "DOES NOT FIT: smaller groups or a shorter evaluation.runtime_min"))),
            f"Attempts: the longest measured job needs {worst} of the {attempts} the profile allows (retries + 1): "
            + ("fits" if worst <= attempts else "DOES NOT FIT: raise `retries` or the rule's runtime")]
    return out
