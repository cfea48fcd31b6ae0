"""benchmarks/gpu_check.py (issue 25, item 5) on the CPU at a tiny size: it prepares its own data with
the pipeline's commands, trains two families through their real jobs, plans with the checkpoints on
the CPU (VAL), writes its report and exits 0; a checkpoint that cannot plan makes it exit 1, naming
the model; the verdict fails a loss that did not fall or a non-finite step."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "benchmarks" / "gpu_check.py"
TINY = ["--device", "cpu", "--threads", "1", "--steps", "20", "--coverage-problems", "1",
        "--set", json.dumps({"network": {"d_model": 32, "n_heads": 2, "n_layers": 1},
                             "train": {"batch_size": 8, "lr": 0.003}})]
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
    res = run("--data", data, "--models", "symt_ed", "plangpt", *TINY, "--out", out)
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
