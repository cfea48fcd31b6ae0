"""Configuration edges the schema let through (genplan.config_checks): seeds outside
0..2^32-1, a model whose `domains` name no known domain, `results_dir` naming a file, an empty `ipc2023_dir`.
Each is one line of the configuration check, before any job; one of them end to end through
`snakemake -n` (a 12-frame traceback before)."""

from __future__ import annotations

import subprocess
import sys

import pytest
import yaml
from conftest import REPO

from genplan.configuration import faults

SCHEMA = REPO / "workflow/schemas/config.schema.yaml"
pytestmark = pytest.mark.timeout(120)


def _default():
    return yaml.safe_load((REPO / "config.yaml").read_text())


def _first_model(config):
    return next(iter(config["models"]))


@pytest.mark.parametrize("seeds, said", [([2**32], f"seeds[0]: {2**32} is not a seed from 0 to {2**32 - 1}"),
                                         ([13, -13], "seeds[1]: -13 is not a seed from 0 to")])
def test_a_seed_outside_32_bits_is_refused(seeds, said):
    config = _default()
    name = _first_model(config)
    config["models"][name]["seeds"] = seeds
    assert f"models.{name}.{said}" in "\n".join(faults(config, SCHEMA))
    assert faults(_default(), SCHEMA) == []  # the default configuration passes


def test_the_top_level_seed_is_checked_too():
    config = _default()
    config["seed"] = 2**40
    assert any(line.startswith(f"seed: {2**40} is not a seed") for line in faults(config, SCHEMA))


def test_a_model_whose_domains_are_no_known_domain_is_refused():
    config = _default()
    name = _first_model(config)
    config["models"][name]["domains"] = ["blocks", "grippr"]
    said = [line for line in faults(config, SCHEMA) if line.startswith(f"models.{name}.domains: ")]
    assert said and "['grippr'] is no domain of the configured benchmarks" in said[0], said
    assert said[0].endswith("the model would train and plan nowhere")
    # a known domain the run leaves out is a run restricted to some domains (--config domains=[gripper]): it passes
    config = _default()
    config["domains"] = ["gripper"]
    config["models"][name]["domains"] = ["blocks"]
    assert not [line for line in faults(config, SCHEMA) if line.startswith(f"models.{name}.domains")]


def test_an_empty_ipc2023_dir_is_refused(tmp_path):
    config = yaml.safe_load((REPO / "workflow/configs/ipc2023-cpu.yaml").read_text())
    config["ipc2023_dir"] = str(tmp_path)
    lines = faults(config, SCHEMA)
    assert any(line.startswith(f"ipc2023_dir: {tmp_path} has no blocksworld/domain.pddl") for line in lines), lines


def test_results_dir_naming_a_file_is_one_line_at_snakemake_n(tmp_path):
    (tmp_path / "results-file").write_text("a user's file\n")
    text = (REPO / "config.yaml").read_text()
    old = "results_dir: runs/default"
    assert old in text
    bad = tmp_path / "bad.yaml"
    bad.write_text(text.replace(old, f"results_dir: {tmp_path}/results-file", 1))
    res = subprocess.run([sys.executable, "-m", "snakemake", "-n", "--cores", "1", "--configfile", str(bad)],
                         cwd=REPO, capture_output=True, text=True, timeout=110)
    out = res.stdout + res.stderr
    assert res.returncode != 0 and f"results_dir: {tmp_path}/results-file is a file, not a folder" in out, out[-3000:]
    assert "Traceback" not in out and "Job stats" not in out, out[-3000:]
    assert (tmp_path / "results-file").read_text() == "a user's file\n"


def test_a_model_left_out_of_the_run_by_its_domains_is_said_at_every_check(capsys):
    from genplan.configuration import check

    config = _default()
    config["domains"] = ["gripper"]
    name = _first_model(config)
    config["models"][name]["domains"] = ["blocks", "gripper"]  # kept in the run on gripper: nothing to say
    check(config, SCHEMA)
    assert capsys.readouterr().err == ""
    config["models"][name]["domains"] = ["blocks"]  # a known domain, but none of the run's: not refused, said
    check(config, SCHEMA)
    err = capsys.readouterr().err
    assert f"genplan: note: models.{name}.domains: ['blocks'] holds none of the run's domains ['gripper']" in err
