"""A problems folder is a rule's directory output: Snakemake takes one that exists as made. A results
root that commits some of a problems folder's files (a manifest, best known costs) without the problems
sent planning to a folder without problems on a fresh clone. Two guards: no committed results root
holds a partial problems folder (derived from `git ls-files`, so a new root or file is covered), and the
workflow refuses an existing folder that is not whole, naming it, before any job."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, committed_files

from genplan.formats import manifest
from genplan.paths import Layout


def _committed() -> list[str]:
    return committed_files()


def test_no_committed_results_root_holds_a_partial_problems_folder():
    folders = {}
    for rel in _committed():
        parts = rel.split("/")
        if "problems" in parts[:-3] and not rel.startswith(("tests/", "src/")):
            at = parts.index("problems")
            if len(parts) > at + 3:  # <root>/problems/<benchmark>/<domain>/<file...>
                folders.setdefault("/".join(parts[:at + 3]), set()).add("/".join(parts[at + 3:]))
    partial = {f: sorted(files)[:3] for f, files in folders.items()
               if not {"domain.pddl", "manifest.csv"} <= files}
    assert not partial, f"committed problems folders without their problems (move these files elsewhere): {partial}"


def test_the_committed_best_known_costs_are_read_without_an_import(tmp_path):
    committed = Layout(str(REPO / "results" / "ipc2023-cpu"))
    for domain in ("blocksworld", "childsnack", "ferry", "floortile", "miconic", "rovers", "satellite", "sokoban",
                   "spanner", "transport"):
        assert Path(committed.committed_bounds("ipc2023", domain)).is_file(), domain
    lay = Layout(str(tmp_path))
    copy = Path(lay.committed_bounds("ipc2023", "ferry"))
    copy.parent.mkdir(parents=True)
    copy.write_text("split,problem,best_known_cost\n")
    assert Path(lay.upper_bounds("ipc2023", "ferry")) == copy  # no import: the committed copy
    imported = tmp_path / "problems" / "ipc2023" / "ferry" / "upper_bounds.csv"
    imported.parent.mkdir(parents=True)
    imported.write_text("split,problem,best_known_cost\n")
    assert Path(lay.upper_bounds("ipc2023", "ferry")) == imported  # an import, where there is one, first


def test_incomplete_names_what_a_problems_folder_lacks(tmp_path):
    assert manifest.incomplete(tmp_path) == "no domain.pddl"
    (tmp_path / "domain.pddl").write_text("(define (domain d))")
    assert manifest.incomplete(tmp_path) == "no manifest.csv"
    rows = [{"problem": "p01", "split": "easy", "file": "easy/p01.pddl", "size": 1, "num_objects": 1, "seed": 0,
             "canonical": ""}]
    (tmp_path / "manifest.csv").write_text(manifest.to_csv(rows))
    assert "1 problem file(s) its manifest names are missing, e.g. easy/p01.pddl" == manifest.incomplete(tmp_path)
    (tmp_path / "easy").mkdir()
    (tmp_path / "easy" / "p01.pddl").write_text("(define (problem p))")
    assert manifest.incomplete(tmp_path) is None


@pytest.mark.slow
def test_the_workflow_refuses_a_partial_problems_folder_naming_it(tmp_path):
    folder = tmp_path / "problems" / "ipc2023" / "ferry"
    folder.mkdir(parents=True)
    (folder / "upper_bounds.csv").write_text("split,problem,best_known_cost\n")
    res = subprocess.run([str(Path(sys.executable).parent / "snakemake"), "-n", "--cores", "1", "--configfile",
                          "workflow/configs/ipc2023-cpu.yaml", "--config", f"results_dir={tmp_path}"],
                         cwd=REPO, capture_output=True, text=True)
    assert res.returncode != 0
    assert f"{folder}: not a whole problems folder (no domain.pddl)" in res.stdout + res.stderr
    assert (folder / "upper_bounds.csv").is_file() and sorted(p.name for p in folder.iterdir()) == ["upper_bounds.csv"]
