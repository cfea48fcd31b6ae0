"""perf/compute_gap.py: it reads the H100 rates from gpu_check's committed table, the
batch sizes from paper.yaml and each largest trial's steps from its summary, and its ratios follow from
those numbers; a trial folder without a summary is one clear error naming the file."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def load():
    spec = importlib.util.spec_from_file_location("compute_gap", REPO / "perf" / "compute_gap.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_ratios_follow_from_the_rates_the_batches_and_the_trials_steps():
    gap = load()
    rates = gap.gpu_rates(gap.GPU_CHECK)
    assert rates["symt_e"] == (7_298_625, 17.16)
    batches = gap.paper_batches(gap.PAPER_YAML)
    lines = gap.report(rates, batches)
    row = next(line for line in lines if "c3_symte_blocks_b045" in line)
    steps = json.loads((gap.RECIPE / "c3_symte_blocks_b045" / "summary.json").read_text())["optimizer_steps"]
    paper_steps = 12 * 3600 * 17.16
    assert f"{steps:,}" in row and f"{paper_steps:,.0f}" in row
    assert f"{paper_steps / steps:.1f}" in row
    assert f"{paper_steps * batches['symt_e'] / (steps * 32):.1f}" in row
    assert "heuristic-greedy" in row
    assert any("diffusion" in line and "not stated" in line for line in lines)


def test_a_trial_without_a_summary_is_one_error_naming_the_file(tmp_path, monkeypatch):
    gap = load()
    (tmp_path / "c3_symte_blocks_b045").mkdir()
    monkeypatch.setattr(gap, "RECIPE", tmp_path)
    with pytest.raises(SystemExit, match=r"summary\.json: missing"):
        gap.trial("c3_symte_blocks_b045")
