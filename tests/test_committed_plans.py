"""A committed evaluation's plans re-validated by one command. The committed IPC 2023
evaluations (results/ipc2023-cpu, workflow/configs/ipc2023-cpu.yaml) store every plan they found
beside their CSVs; `genplan validate --evaluation` runs VAL on each again and agrees with every row.
(Apart from tests/test_stored_plans.py, whose smoke-run tests share a worker with the smoke run.)"""

from __future__ import annotations

import pytest
from conftest import REPO, run_cli

from genplan.formats import stored_plans
from genplan.formats.evaluation_csv import read_evaluation

# --- the committed IPC 2023 evaluations (results/ipc2023-cpu, workflow/configs/ipc2023-cpu.yaml) ---
# Their problem files are not committed (the benchmark's repository has no licence): the test imports
# the domains it checks from the benchmark folder beside the checkout, as the workflow's rule does.

COMMITTED_IPC = REPO / "results" / "ipc2023-cpu" / "evaluation" / "ipc2023"


@pytest.mark.parametrize("domain", ["blocksworld", "miconic", "spanner"])
def test_the_committed_ipc_evaluations_revalidate_with_one_command(domain, ipc_dir, tmp_path):
    folder = COMMITTED_IPC / domain
    csvs = sorted(folder.rglob("seed*/*.csv"))
    assert csvs and all(stored_plans.plans_path(c).is_file() for c in csvs), f"no committed stored plans in {folder}"
    problems = tmp_path / domain
    res = run_cli("import-ipc2023", "--domain", domain, "--source", ipc_dir, "--out", problems)
    assert res.returncode == 0, res.stderr[-2000:]
    res = run_cli("validate", "--evaluation", folder, "--problems", problems)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-2000:]
    rows = sum(len(read_evaluation(c)) for c in csvs)
    assert f"{len(csvs)} evaluation(s), {rows} plans rechecked" in res.stdout
