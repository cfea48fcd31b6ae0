"""Where a training job runs, said before it starts: the device torch sees, the NVIDIA driver, and
whether the torch build's CUDA runs on that driver (`genplan doctor` prints the same).

`resolve(requested, gpus)` is the one decision, made before any training ("fail fast": a GPU
job that would fall back to the CPU stops at once instead of spending its allocation):

- `cuda`: CUDA or a `DeviceError`;
- `cpu`: the CPU;
- `auto`: CUDA when torch sees it. On a job that asked the scheduler for GPUs (`gpus` > 0) inside a
  SLURM allocation that holds GPUs (`SLURM_JOB_ID` set and one of SLURM_GPU_VARS, which slurmd sets
  where it allocated GPUs), `auto` means `cuda`: a cluster job that holds a GPU never trains a
  paper-size model on its few CPU cores without a word. A local run (`snakemake --cores 2`, also
  inside an allocation without GPUs) keeps the old meaning: CUDA when present, else the CPU.

The driver a CUDA build needs is NVIDIA's "minor version compatibility" minimum of its major
version (CUDA Toolkit release notes, table "CUDA Toolkit and Minimum Required Driver Version for
CUDA Minor Version Compatibility", Linux x86_64)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import asdict, dataclass, field
from pathlib import Path

from genplan.errors import GenplanError

DEVICES = ("auto", "cpu", "cuda")
SLURM_GPU_VARS = ("SLURM_JOB_GPUS", "SLURM_GPUS_ON_NODE", "SLURM_STEP_GPUS")  # set where SLURM allocated GPUs
# the oldest Linux driver each CUDA major version runs on (minor version compatibility)
MIN_DRIVER = {11: "450.80.02", 12: "525.60.13", 13: "580.65.06"}


class DeviceError(GenplanError):
    """A job that must run on a GPU and cannot."""


@dataclass
class DeviceReport:
    torch: str
    torch_cuda: str | None  # the CUDA version torch was built with; None for a CPU build
    cuda_available: bool
    devices: list[str] = field(default_factory=list)
    driver: str | None = None  # the NVIDIA kernel driver's version, None where none is found
    min_driver: str | None = None  # what torch's CUDA needs (MIN_DRIVER)
    slurm_job: str | None = None

    @property
    def driver_ok(self) -> bool | None:
        """Whether the driver runs torch's CUDA; None where either is missing."""
        if self.driver is None or self.min_driver is None:
            return None
        return _version(self.driver) >= _version(self.min_driver)

    def line(self) -> str:
        """One line: torch and its CUDA, the driver against what it needs, the devices seen."""
        build = f"CUDA {self.torch_cuda}" if self.torch_cuda else "a CPU-only build"
        if self.driver is None:
            driver = "no NVIDIA driver found"
        else:
            need = f", needs >= {self.min_driver}" if self.min_driver else ""
            driver = f"NVIDIA driver {self.driver}{need}" + (" (too old)" if self.driver_ok is False else "")
        seen = ", ".join(self.devices) if self.devices else "no CUDA device"
        return f"torch {self.torch} ({build}); {driver}; torch sees {seen}"

    def to_dict(self) -> dict:
        return {**asdict(self), "driver_ok": self.driver_ok}


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", text))


def driver_version() -> str | None:
    """The NVIDIA kernel driver's version: /proc/driver/nvidia/version, else nvidia-smi; None if none."""
    proc = Path("/proc/driver/nvidia/version")
    try:
        found = re.search(r"Kernel Module\s+(?:for \S+\s+)?(\d+\.\d+(?:\.\d+)?)", proc.read_text())
        if found:
            return found.group(1)
    except OSError:
        pass
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return None
    try:
        out = subprocess.run([smi, "--query-gpu=driver_version", "--format=csv,noheader"], capture_output=True,
                             text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    first = out.stdout.strip().splitlines()[:1]
    return first[0].strip() if out.returncode == 0 and first else None


def report() -> DeviceReport:
    """What this process sees: torch, its CUDA, the devices and the driver."""
    import torch

    cuda = torch.version.cuda
    available = bool(torch.cuda.is_available())
    devices = [f"cuda:{i} {torch.cuda.get_device_name(i)}" for i in range(torch.cuda.device_count())] if available else []
    major = int(cuda.split(".")[0]) if cuda else None
    return DeviceReport(torch=torch.__version__, torch_cuda=cuda, cuda_available=available, devices=devices,
                        driver=driver_version(), min_driver=MIN_DRIVER.get(major) if major else None,
                        slurm_job=os.environ.get("SLURM_JOB_ID"))


def must_use_gpu(requested: str, gpus: int) -> bool:
    """Whether the job may not fall back to the CPU (see the module docstring)."""
    if requested not in DEVICES:
        raise ValueError(f"Unknown value {requested=}. Must be from {list(DEVICES)}")
    holds_gpus = bool(os.environ.get("SLURM_JOB_ID")) and any(os.environ.get(v) for v in SLURM_GPU_VARS)
    return requested == "cuda" or (requested == "auto" and gpus > 0 and holds_gpus)


def resolve(requested: str = "auto", gpus: int = 0) -> str:
    """`cuda` or `cpu` for a job that asked for `requested` and was given `gpus` GPUs; a
    `DeviceError` (one line: what torch sees, the driver, torch's CUDA) where it must use a GPU and
    torch sees none."""
    strict = must_use_gpu(requested, gpus)
    if requested == "cpu":
        return "cpu"
    import torch

    if torch.cuda.is_available():
        return "cuda"
    if not strict:
        return "cpu"
    why = "asked for --device cuda" if requested == "cuda" else f"asked the scheduler for {gpus} GPU(s)"
    raise DeviceError(f"refusing to train on the CPU: this job {why} but torch sees no CUDA device: {report().line()} "
                      "(`genplan doctor` checks a node; GENPLAN_TORCH_INDEX chooses the torch build, docs/cluster.md)")
