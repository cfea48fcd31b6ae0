"""The committed IPC 2023 report regenerates byte for byte from the committed files alone: a copy of
results/ipc2023-cpu's committed files (no imported problems, no models' checkpoints) is given to `genplan
report ipc2023`, and every committed ipc2023-* table and figure comes out the same."""

from __future__ import annotations

import shutil

from conftest import REPO, committed_files, run_cli

ROOT = "results/ipc2023-cpu"


def test_the_committed_ipc_report_regenerates_from_committed_files_alone(tmp_path):
    for rel in committed_files(ROOT):  # the committed files as the working tree holds them (git diff shows any edit)
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(REPO / rel, tmp_path / rel)
    root = tmp_path / ROOT
    assert not (root / "problems").exists()  # nothing imported: the best known costs are the committed copy
    res = run_cli("report", "ipc2023", "--results", root, cwd=tmp_path)
    assert res.returncode == 0, res.stderr[-3000:]
    committed = committed_files(f"{ROOT}/tables", f"{ROOT}/figures")
    made = [rel for rel in committed if rel.split("/")[-1].startswith("ipc2023-")]
    assert len(made) > 10, made
    differ = [rel for rel in made if (tmp_path / rel).read_bytes() != (REPO / rel).read_bytes()]
    assert not differ, f"regenerated differently: {differ}"
