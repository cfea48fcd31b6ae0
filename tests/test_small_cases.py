"""The attack's smaller cases, each refused or said by name: a sub-second Fast Downward
limit was raised to 2 s without a word (its driver takes whole seconds); see also
test_ipc_benchmark (stray files in an IPC copy) and test_plan_check (a found plan VAL cannot check is
kept; a stored plan given as a string names no temporary file)."""

from __future__ import annotations

import pytest
import yaml
from conftest import REPO, run_cli

from genplan.configuration import faults

pytestmark = pytest.mark.timeout(60)


@pytest.mark.parametrize("planner", ["optimal", "fallback", "lama", "gbfs_ff_eager", "lama_anytime"])
def test_a_sub_second_fast_downward_limit_fails_the_configuration_check(planner):
    config = yaml.safe_load((REPO / "config.yaml").read_text())
    config["planner"][planner] = {"enabled": True, "time_limit": 0.5}
    said = faults(config, REPO / "workflow/schemas/config.schema.yaml")
    assert f"planner.{planner}.time_limit: 0.5 is less than the minimum of 1" in said, said


def test_plan_files_refuses_a_sub_second_limit_before_any_run(tmp_path):
    domain = REPO / "src/genplan/domains/gripper.pddl"
    res = run_cli("plan-files", domain, domain, "--time-limit", "0.5", "--out-dir", tmp_path / "p")
    assert res.returncode == 1 and "--time-limit must be a number of seconds from 1" in res.stderr, res.stderr
    assert "not 0.5" in res.stderr and not (tmp_path / "p").exists()


def test_plan_refuses_a_sub_second_limit_in_its_params(tmp_path):
    params = '{"optimal": {"time_limit": 0.25}, "fallback": {}, "lama": {}, "memory_limit_mb": 1024}'
    (tmp_path / "bench").mkdir()
    res = run_cli("plan", "--benchmark-dir", tmp_path / "bench", "--split", "train", "--params", params,
                  "--out-dir", tmp_path / "p", "--out-table", tmp_path / "t.csv")
    assert res.returncode == 1 and "optimal.time_limit: 0.25 is less than the minimum of 1" in res.stderr, res.stderr


def test_a_report_on_a_partial_results_root_names_what_is_missing(tmp_path):
    import shutil

    root = tmp_path / "root"
    for part in ("evaluation", "plans"):
        shutil.copytree(REPO / "results/plangpt-cpu" / part, root / part)
    whole = run_cli("report", "leaderboard", "--results", root, "--out-dir", tmp_path / "whole")
    assert whole.returncode == 0 and "WARNING" not in whole.stderr, whole.stderr
    (root / "plans/generated/blocks/extrapolation.csv").unlink()  # a plans table lost
    res = run_cli("report", "leaderboard", "--results", root, "--out-dir", tmp_path / "partial")
    assert res.returncode == 0, res.stderr
    assert ("a partial results root: 1 plans table(s) missing for evaluated splits (blank best-known lengths and "
            "qualities), e.g. plans/generated/blocks/extrapolation.csv") in res.stderr, res.stderr


def test_a_seed_missing_from_one_split_is_named(tmp_path):
    from genplan.report.completeness import missing_evaluations, warnings

    for seed in (13, 14):
        for split in ("validation", "extrapolation"):
            csv = tmp_path / f"evaluation/generated/gripper/m/seed{seed}/{split}.gbfs.csv"
            csv.parent.mkdir(parents=True, exist_ok=True)
            csv.write_text("x\n")
    assert missing_evaluations(tmp_path) == []
    (tmp_path / "evaluation/generated/gripper/m/seed14/extrapolation.gbfs.csv").unlink()
    assert missing_evaluations(tmp_path) == ["generated/gripper/m/seed14/extrapolation.gbfs.csv"]
    assert "1 evaluation CSV(s) missing from the seeds x splits" in warnings(tmp_path)[0]
