"""Fail fast: a training job that asked for a GPU never trains on the CPU without a word.
Inside a SLURM job that was given a GPU (`--gpus 1`, `SLURM_JOB_ID` set), `--device auto` on a machine
where torch sees no CUDA exits non-zero before it reads any data, with one line naming what torch sees;
a local run keeps `auto`'s old meaning. `genplan doctor --require-gpu` says the same of a node."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import torch

from genplan import devices

pytestmark = pytest.mark.skipif(torch.cuda.is_available(), reason="needs a machine where torch sees no CUDA")

SETTINGS = {"family": "symt", "architecture": "encoder", "object_pool": 16, "rename": "rename-one",
            "loss_weights": [1, 1, 1], "network": {"d_model": 16, "n_heads": 2, "n_layers": 1, "d_token": 8},
            "train": {"epochs": 1, "batch_size": 8, "lr": 0.001, "examples": 16}}


def _train(tmp_path, *extra: str, env: dict | None = None) -> subprocess.CompletedProcess:
    missing = tmp_path / "no-such-statespace"  # never read: the refusal comes first
    args = [sys.executable, "-m", "genplan", "train", "--model", "symt_e", "--settings", json.dumps(SETTINGS),
            "--domain", "gripper", "--train", str(missing), "--validation", str(missing), "--seed", "13",
            "--out", str(tmp_path / "model.ckpt"), "--log", str(tmp_path / "training.csv"),
            "--summary", str(tmp_path / "summary.json"), *extra]
    return subprocess.run(args, capture_output=True, text=True, env={**os.environ, **(env or {})}, timeout=300)


def test_a_slurm_gpu_job_without_cuda_refuses_before_training(tmp_path):
    res = _train(tmp_path, "--device", "auto", "--gpus", "1", env={"SLURM_JOB_ID": "4242", "SLURM_JOB_GPUS": "0"})
    assert res.returncode != 0
    errors = [line for line in res.stderr.splitlines() if "error" in line]
    assert len(errors) == 1, res.stderr
    assert "refusing to train on the CPU: this job asked the scheduler for 1 GPU(s) but torch sees no CUDA device" \
        in errors[0]
    assert f"torch {torch.__version__}" in errors[0] and "driver" in errors[0]
    assert not any(tmp_path.iterdir()), list(tmp_path.iterdir())  # nothing written, no data read


def test_device_cuda_refuses_anywhere_without_cuda(tmp_path):
    res = _train(tmp_path, "--device", "cuda")
    assert res.returncode != 0 and "this job asked for --device cuda but torch sees no CUDA device" in res.stderr


def test_auto_keeps_its_local_meaning(monkeypatch):
    for var in ("SLURM_JOB_ID", *devices.SLURM_GPU_VARS):
        monkeypatch.delenv(var, raising=False)
    assert devices.resolve("auto", 1) == "cpu"  # a local run: the CPU when there is no CUDA
    monkeypatch.setenv("SLURM_JOB_ID", "7")
    assert devices.resolve("auto", 1) == "cpu"  # a local run inside an allocation that holds no GPU
    monkeypatch.setenv("SLURM_GPUS_ON_NODE", "1")
    assert devices.resolve("auto", 0) == "cpu"  # a cluster job that asked for no GPU
    assert devices.resolve("cpu", 1) == "cpu"  # the CPU asked for on purpose
    with pytest.raises(devices.DeviceError, match="asked the scheduler for 2 GPU"):
        devices.resolve("auto", 2)
    with pytest.raises(ValueError, match="Unknown value"):
        devices.resolve("tpu", 0)


def test_driver_check_against_torch_cuda():
    old = devices.DeviceReport(torch="2.13.0+cu130", torch_cuda="13.0", cuda_available=False, driver="550.54.15",
                               min_driver=devices.MIN_DRIVER[13])
    assert old.driver_ok is False and "(too old)" in old.line() and "needs >= 580.65.06" in old.line()
    new = devices.DeviceReport(torch="2.13.0+cu126", torch_cuda="12.6", cuda_available=True,
                               devices=["cuda:0 NVIDIA A100"], driver="550.54.15", min_driver=devices.MIN_DRIVER[12])
    assert new.driver_ok is True and "too old" not in new.line()


def test_doctor_requires_a_gpu_on_request(tmp_path):
    out = tmp_path / "doctor.json"
    res = subprocess.run([sys.executable, "-m", "genplan", "doctor", "--require-gpu", "--out", str(out)],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 1 and "this node cannot train on a GPU" in res.stderr
    found = json.loads(out.read_text())
    assert found["cuda_available"] is False and found["problems"]
    assert subprocess.run([sys.executable, "-m", "genplan", "doctor"], capture_output=True, timeout=120).returncode == 0
