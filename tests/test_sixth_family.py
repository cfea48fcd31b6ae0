"""A sixth model family costs one folder and one registry entry: the `blind` family of
tests/fixtures/sixth_family (GBFS with h = 0, nothing learned), registered through GENPLAN_FAMILIES,
runs through the smoke configuration's training, evaluation and leaderboard beside the five
families, no other file touched. The run is the workflow tests' smoke run (conftest.smoke_run),
which has one `blind` model."""

from __future__ import annotations

import csv
import json
import subprocess
import sys

import pytest
import yaml
from conftest import sixth_family_env


def test_the_family_registers_from_the_environment():
    code = ("from genplan import registry; from genplan.configuration import schema; "
            "f = registry.family('blind'); print(f.gpu, f.non_weight_keys[-1], "
            "schema()['$defs']['model']['properties']['family']['enum'][-1])")
    res = subprocess.run([sys.executable, "-c", code], env=sixth_family_env(), capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["False", "search", "blind"]


@pytest.mark.slow
def test_a_sixth_family_runs_through_training_evaluation_and_the_leaderboard(smoke_run):
    config = yaml.safe_load((smoke_run / "workflow" / "configs" / "smoke.yaml").read_text())
    assert config["models"]["blind"]["family"] == "blind"
    work = smoke_run
    root = work / config["results_dir"]
    from genplan.formats.evaluation_csv import read_evaluation

    for domain in config["domains"]:
        summary = json.loads((root / "models/generated" / domain / "blind/seed13/summary.json").read_text())
        assert (summary["family"], summary["system"], summary["variant"]) == ("blind", "blind", "h0")
        for split in config["evaluation"]["splits"]:
            rows = read_evaluation(root / "evaluation/generated" / domain / "blind/seed13" / f"{split}.gbfs.csv")
            assert rows and all(r["system"] == "blind" and r["val"] == "valid" for r in rows if r["solved"] == "yes")
    board = list(csv.DictReader(open(root / "tables/leaderboard.csv")))
    mine = [r for r in board if r["system"] == "blind"]
    assert {(r["domain"], r["split"]) for r in mine} == {(d, s) for d in config["domains"]
                                                          for s in config["evaluation"]["splits"]}
    assert {"transition", "blind"} <= {r["family"] for r in csv.DictReader(open(root / "tables/model-sizes.csv"))}
