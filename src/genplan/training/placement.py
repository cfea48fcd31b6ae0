"""Where the shared loop's step runs (genplan.training.loop): a batch's tensors on the training device, and
the model's torch.compile'd calls (`LoopConfig.compile`)."""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import nn


def to_device(batch, device: torch.device):
    """`batch` (a tensor, or tuples, lists and dicts of them and of other values) with its tensors on
    `device`: CPU tensors pinned, then copied without blocking the host."""
    if isinstance(batch, torch.Tensor):
        if batch.device == device:
            return batch
        if batch.device.type == "cpu" and device.type == "cuda":
            batch = batch.pin_memory()
        return batch.to(device, non_blocking=True)
    if isinstance(batch, dict):
        return {k: to_device(v, device) for k, v in batch.items()}
    if isinstance(batch, (tuple, list)):
        return type(batch)(to_device(v, device) for v in batch)
    return batch


def compiled_calls(model: nn.Module) -> list[tuple[nn.Module, Callable]]:
    """(module, its torch.compile'd call) of the model and of its direct children: a family's loss may
    call the network (PlanGPT, diffusion) or its parts' methods (SymT's encode and decode call its
    encoder and decoder), so each part is compiled as `nn.Module.compile` does (set as
    `_compiled_call_impl`); a compiled part inside a compiled one is traced through, not compiled twice."""
    return [(m, torch.compile(m._call_impl)) for m in (model, *model.children())]
