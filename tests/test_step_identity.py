"""The training step's rework for GPU throughput (no host synchronisation inside a step, fused AdamW on
CUDA, torch.compile behind a setting) leaves the CPU's results as they were: one tiny model per torch
family (SymT^E, SymT^ED, PlanGPT, diffusion, and diffusion with symmetric losses; contrastive losses,
dropout, clipping, weight decay, warmup + cosine, two or three epochs) trains on the CPU with a fixed
seed through its family's own job, and the SHA-256 of its final weights' bytes, and of its history's
losses and gradient norms, are those the code before the rework gave (tests/fixtures/step-weights-before.json,
written for commit 0e672c7 by

    PYTHONPATH=<a copy of that commit>/src:tests ./genplan-env python tests/test_step_identity.py --write

). A few seconds per family."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "step-weights-before.json"
NET = {"d_model": 16, "n_heads": 2, "n_layers": 2}
TRAIN = {"batch_size": 8, "lr": 0.003, "warmup_steps": 3, "weight_decay": 0.1, "grad_clip": 1.0, "patience": None,
         "keep": "last"}
MODELS = {
    "symt_e": {"family": "symt", "architecture": "encoder", "object_pool": 8, "rename": "rename-one",
               "loss_weights": [1, 1, 1], "network": {**NET, "d_token": 4},
               "train": {**TRAIN, "epochs": 2, "examples": 48, "val_examples": 8}},
    "symt_ed": {"family": "symt", "architecture": "encoder_decoder", "object_pool": 8, "rename": "rename-both",
                "loss_weights": [1, 1, 1], "max_tokens": 60, "network": {**NET, "d_token": 4},
                "train": {**TRAIN, "epochs": 2, "examples": 32, "val_examples": 8}},
    "plangpt": {"family": "plangpt", "data": "symt", "object_pool": 8, "rename": "random",
                "network": {**NET, "max_len": 256, "dropout": 0.1},
                "train": {**TRAIN, "epochs": 2, "examples": 32, "stop": "ce"}},
    "diffusion": {"family": "diffusion", "object_pool": 8, "max_plan_tokens": 48,
                  "network": {**NET, "dropout": 0.1},
                  "train": {**TRAIN, "epochs": 3, "batch_size": 2}},
    "diffusion_sym": {"family": "diffusion", "object_pool": 8, "max_plan_tokens": 48,
                      "network": {**NET, "dropout": 0.1},
                      "train": {**TRAIN, "epochs": 3, "batch_size": 2, "symmetry": "rename-both",
                                "contrastive_ramp_steps": 2}},
}
SEED = 13


def make_data(root: Path) -> dict:
    """Gripper: the state spaces of the 1- and 2-ball problems, the trajectories of 1-3 balls (train)
    and 2-3 (validation), as the pipeline writes them (tests' helpers)."""
    from test_diffusion import _state_space
    from test_features import gripper_problem, trajectory_record, write_split

    root.mkdir(parents=True, exist_ok=True)
    ss = _state_space(root, [1, 2])
    records = {n: trajectory_record(gripper_problem(root, n)) for n in (1, 2, 3)}
    train = write_split(root / "train.json.gz", [records[n] for n in (1, 2, 3)])
    val = write_split(root / "validation.json.gz", [records[2], records[3]])
    return {"train": [ss, train], "validation": [val]}


def digests(name: str, files: dict, out: Path) -> dict:
    """Train model `name` on the CPU (one torch thread); SHA-256 of its checkpoint's weights (every
    tensor's bytes, in the order of their names) and of its log's losses and gradient norms."""
    import torch

    from genplan import checkpoint, registry

    entry = MODELS[name]
    fam = registry.family(entry["family"])
    model_out = out / f"{name}.ckpt"
    fam.impl.train(name, registry.weight_settings(entry), "gripper", files, SEED, model_out,
                   out / f"{name}.csv", out / f"{name}.json", threads=1, device="cpu")
    weights = checkpoint.read(model_out)["weights"]
    h = hashlib.sha256()
    for key in sorted(weights):
        t = weights[key].detach().cpu().contiguous()
        h.update(key.encode() + str(t.dtype).encode() + str(tuple(t.shape)).encode())
        h.update(t.view(torch.uint8).numpy().tobytes() if t.numel() else b"")
    log = (out / f"{name}.csv").read_text()
    return {"weights": h.hexdigest(), "log": hashlib.sha256(_numbers(log).encode()).hexdigest()}


def _numbers(log_csv: str) -> str:
    """The log without its `seconds` column (wall time)."""
    rows = [line.split(",") for line in log_csv.splitlines()]
    drop = rows[0].index("seconds")
    return "\n".join(",".join(c for i, c in enumerate(r) if i != drop) for r in rows)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return make_data(tmp_path_factory.mktemp("step-identity"))


@pytest.mark.parametrize("name", list(MODELS))
def test_same_seed_same_weights_as_before_the_step_rework(name, files, tmp_path):
    """The bytes of float training depend on the CPU's kernels (the code of 0e672c7 gives other digests on an
    AVX512 AMD EPYC than on the machine that first wrote the fixture), so the fixture holds the old code's
    digests for each kind of machine it was run on, and today's code must give one of them exactly."""
    fixture = json.loads(FIXTURE.read_text())
    expected = [fixture["models"][name]] + [m["models"][name] for m in fixture.get("also_written", [])]
    assert digests(name, files, tmp_path) in expected


if __name__ == "__main__":  # --write: record the fixture with the genplan on the path
    import tempfile

    import torch

    import genplan

    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: tests/test_step_identity.py --write")
    with tempfile.TemporaryDirectory() as tmp:
        data = make_data(Path(tmp) / "data")
        result = {name: digests(name, data, Path(tmp)) for name in MODELS}
    FIXTURE.write_text(json.dumps({"written_with": f"genplan of {Path(genplan.__file__).parent}, torch "
                                                   f"{torch.__version__}, one torch thread",
                                   "models": result}, indent=2) + "\n")
    print(FIXTURE.read_text())
