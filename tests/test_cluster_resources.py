"""What the cluster configurations' jobs ask for under the SLURM profile, read from Snakemake's own forced
dry runs (`genplan.cluster_plan.parse_dry_run`): no job asks for a GPU it will not train on, no job asks for
more threads than the profile's `cores` or more runtime than its `runtime_max`, no group job stacks its
members past that runtime or mixes the evaluations of GPU- and CPU-trained models, and memory grows with
the attempt up to the profile's `mem_mb_max` (a dry run at `--attempt 4`)."""

from __future__ import annotations

import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest
import yaml

from genplan import registry
from genplan.cluster_plan import parse_dry_run

REPO = Path(__file__).resolve().parents[1]
PROFILE = yaml.safe_load((REPO / "slurm" / "config.yaml").read_text())
CONFIGS = ("paper", "plangpt", "ipc2023")
TRAINED_BY = ("benchmark", "domain", "model", "seed")  # the wildcards that name one training job


def _dry_run(config: str, *extra: str) -> str:
    cmd = [sys.executable, "-m", "snakemake", "-n", "--forceall", "--profile", "slurm", *extra, "all",
           "--configfile", f"workflow/configs/{config}.yaml"]
    res = subprocess.run(["timeout", "-k", "10", "400", *cmd], cwd=REPO, capture_output=True, text=True)
    assert res.returncode == 0, (res.stdout + res.stderr)[-3000:]
    return res.stdout + res.stderr


def _config(config: str) -> dict:
    return yaml.safe_load((REPO / "workflow" / "configs" / f"{config}.yaml").read_text())


def _trains_on_gpu(cfg: dict, model: str) -> bool:
    return registry.family(cfg["models"][model]["family"]).gpu and cfg["training"]["device"] != "cpu"


@pytest.mark.slow
@pytest.mark.parametrize("config", CONFIGS)
def test_jobs_ask_for_what_they_use(config):
    cfg, cores = _config(config), PROFILE["cores"]
    limit = PROFILE["default-resources"]["runtime_max"]
    jobs = [j for j in parse_dry_run(_dry_run(config)) if j.rule != "all"]
    assert jobs
    problems = []
    for job in jobs:
        gpu = job.res("gpu")
        if gpu:  # a GPU only for a training job that trains on it (not `--device cpu`)
            if job.rule != "train_model" or not _trains_on_gpu(cfg, job.wildcards["model"]):
                problems.append(f"{job.rule} {job.wildcards} asks gpu={gpu:g} and will not train on it")
        elif job.rule == "train_model":
            problems.append(f"train_model {job.wildcards} asks no GPU")
        if job.threads > cores:
            problems.append(f"{job.rule} {job.wildcards} asks {job.threads} threads, the profile's cores are {cores}")
        if job.res("runtime", 60) > limit:
            problems.append(f"{job.rule} {job.wildcards} asks {job.res('runtime'):g} min, runtime_max is {limit}")
    groups = defaultdict(list)
    for job in jobs:
        if job.group is not None:
            groups[job.group].append(job)
    for members in groups.values():
        trained = {tuple(j.wildcards[k] for k in TRAINED_BY) for j in members}
        kinds = {_trains_on_gpu(cfg, j.wildcards["model"]) for j in members}
        if len(kinds) > 1:
            problems.append(f"a group mixes GPU- and CPU-trained models: {sorted(trained)}")
        # side by side within the group's cores, so that the group asks for its longest member's runtime
        width = sum(j.threads for j in members)
        if width > cores:
            problems.append(f"a group of {len(members)} jobs needs {width} threads on {cores} cores: they would stack")
        if max(j.res("runtime", 60) for j in members) > limit:
            problems.append(f"a group of {sorted(trained)} asks more than runtime_max ({limit})")
    assert not problems, f"{config}: {len(problems)} problems, the first: " + "\n".join(problems[:10])


@pytest.mark.slow
@pytest.mark.parametrize("config", CONFIGS)
def test_memory_grows_up_to_the_profiles_cap(config):
    cap = PROFILE["default-resources"]["mem_mb_max"]
    first = {tuple(sorted(j.wildcards.items())) + (j.rule,): j.res("mem_mb") for j in parse_dry_run(_dry_run(config))}
    fourth = {tuple(sorted(j.wildcards.items())) + (j.rule,): j.res("mem_mb")
              for j in parse_dry_run(_dry_run(config, "--attempt", "4"))}
    assert first.keys() == fourth.keys()
    grew = 0
    for key, mem in fourth.items():
        assert mem <= max(cap, first[key]), (key, first[key], mem)
        assert mem >= first[key], (key, first[key], mem)
        grew += mem > first[key]
    assert grew, f"{config}: no job asks for more memory on its fourth attempt"


@pytest.mark.slow
def test_a_configuration_over_the_profiles_limits_fails_at_once(tmp_path):
    """One clear error naming the keys, before any job is submitted."""
    cfg = _config("plangpt")
    cfg["evaluation"].update(threads=16, runtime_min=9000)
    (tmp_path / "over.yaml").write_text(yaml.safe_dump(cfg))
    res = subprocess.run([sys.executable, "-m", "snakemake", "-n", "--profile", "slurm", "all", "--configfile",
                          str(tmp_path / "over.yaml")], cwd=REPO, capture_output=True, text=True)
    text = res.stdout + res.stderr
    assert res.returncode != 0
    assert "evaluation.threads is 16, more than the profile's cores (8)" in text, text[-2000:]
    assert "evaluation.runtime_min is 9000 minutes, more than the profile's runtime_max" in text, text[-2000:]
