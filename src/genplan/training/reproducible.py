"""Reproducible training: the same seed, configuration and thread count give the same training
log and weights byte for byte on the same machine (tests/test_transition_reproducible.py).

What it takes, following PyTorch's notes on reproducibility
(https://pytorch.org/docs/stable/notes/randomness.html):

- Python's, NumPy's and torch's generators seeded from the job's seed (the training loop draws its
  batches from its own generator, seeded too: genplan.training.loop);
- a fixed number of torch intra-op threads: CPU reductions split work by thread, so another count
  changes the last bits of the sums (measured: a WL-LSTM's validation loss differs in the 8th
  digit after 3 epochs with 2 threads instead of 1);
- ``torch.use_deterministic_algorithms(True, warn_only=True)``: a kernel without a deterministic
  version warns instead of failing; on CUDA also cuDNN's deterministic mode without autotuning and
  cuBLAS's fixed workspace (``CUBLAS_WORKSPACE_CONFIG=:4096:8``, read when cuBLAS starts).

XGBoost needs its ``seed`` and ``nthread`` parameters (genplan.models.transition.xgb sets both);
its CPU `hist` method is deterministic, and on CUDA its histograms are deterministic by default.
`deterministic` restores torch's previous settings on exit (tests share one process).

"The same machine" means the same instruction set: oneDNN, which runs torch's LSTM on CPU, picks
its kernels by the CPU's widest vector instructions, so an AVX-512 machine and an AVX2 one give
logs that differ in the 7th digit from the first epochs (measured on the paper-cpu LSTMs; XGBoost
logs were identical). oneDNN's own ``DNNL_MAX_CPU_ISA`` caps it: with ``DNNL_MAX_CPU_ISA=AVX2`` an
AVX-512 machine retrains the committed paper-cpu LSTMs (written on an AVX2 machine) byte for
byte. It must be set before the process's first oneDNN call (in the environment of `genplan
train` or snakemake, or by `pin_cpu_isa` at the start of a script); `cpu_isa` records what was in
force in every training summary. oneDNN's names:
https://uxlfoundation.github.io/oneDNN/dev_guide_cpu_dispatcher_control.html"""

from __future__ import annotations

import contextlib
import os
import random

import numpy as np


@contextlib.contextmanager
def deterministic(seed: int, threads: int):
    """Seed every generator and make torch deterministic with `threads` intra-op threads."""
    import torch

    if threads < 1:
        raise ValueError(f"threads must be at least 1, got {threads}")
    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    prior = (torch.get_num_threads(), torch.are_deterministic_algorithms_enabled(),
             torch.is_deterministic_algorithms_warn_only_enabled(),
             torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark)
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)  # every device's generator
    torch.set_num_threads(threads)
    torch.use_deterministic_algorithms(True, warn_only=True)
    torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark = True, False
    try:
        yield
    finally:
        torch.set_num_threads(prior[0])
        torch.use_deterministic_algorithms(prior[1], warn_only=prior[2])
        torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark = prior[3], prior[4]


ISA_VARIABLE = "DNNL_MAX_CPU_ISA"


def pin_cpu_isa(isa: str) -> None:
    """Cap oneDNN's instruction set (e.g. ``AVX2``) for this process; call it before any training."""
    current = os.environ.get(ISA_VARIABLE)
    if current and current.upper() != isa.upper():
        raise ValueError(f"{ISA_VARIABLE} is already {current}, not {isa}")
    os.environ[ISA_VARIABLE] = isa.upper()


def cpu_isa() -> str:
    """The CPU instruction set torch dispatches to, and oneDNN's cap where one is set: what a
    byte-for-byte comparison of training logs across machines depends on."""
    import torch

    capability = torch.backends.cpu.get_cpu_capability()
    cap = os.environ.get(ISA_VARIABLE)
    return f"{capability}, {ISA_VARIABLE}={cap}" if cap else capability
