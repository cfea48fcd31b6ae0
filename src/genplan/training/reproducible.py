"""Reproducible training: the same seed, configuration and thread count give the same training
log and weights byte for byte on the same machine (issue 15, item 2).

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
`deterministic` restores torch's previous settings on exit (tests share one process)."""

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
