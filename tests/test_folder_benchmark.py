"""A benchmark costs one folder and one configuration (proved as the sixth family is): the
throwaway benchmark of tests/fixtures/folder_benchmark (a tiny typed domain in Fast Downward's flat
layout, three training and three test problems), registered by tests/folder-benchmark.yaml alone, runs
through every stage to the leaderboard, and no file of the repository outside the fixture and the
configuration knows it or is changed by the run. Also the import's refusals (genplan.stages.folder_import)
and the configuration's (genplan.benchmarks)."""

from __future__ import annotations

import csv
import hashlib
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import FIXTURES, NOT_COPIED, REPO, run_cli

from genplan.configuration import benchmark_faults
from genplan.errors import GenplanError
from genplan.stages.folder_import import import_folder

CONFIG = REPO / "tests" / "folder-benchmark.yaml"
FOLDER = FIXTURES / "folder_benchmark"
DOMAIN = "typed-courier"
SPLITS = {"train": ["p0[1-3]"], "test": ["p0[4-6]"]}


def _copy(tmp_path: Path) -> Path:
    src = tmp_path / "bench"
    shutil.copytree(FOLDER, src)
    return src


def test_the_flat_layout_is_imported_by_the_split_patterns(tmp_path):
    rows = import_folder(DOMAIN, FOLDER, "flat", tmp_path / "out", splits=SPLITS)
    assert [(r["split"], r["problem"]) for r in rows] == [("train", "p01"), ("train", "p02"), ("train", "p03"),
                                                          ("test", "p04"), ("test", "p05"), ("test", "p06")]
    sums = (tmp_path / "out" / "checksums.sha256").read_text().splitlines()
    assert len(sums) == 7 and sums[0].endswith(f"  {DOMAIN}/domain.pddl")  # recorded: the domain and 6 problems
    # the recorded list accepts the same folder again, and refuses it once a file changed
    import_folder(DOMAIN, FOLDER, "flat", tmp_path / "again", splits=SPLITS,
                  checksum_file=tmp_path / "out" / "checksums.sha256")
    src = _copy(tmp_path)
    (src / DOMAIN / "p02.pddl").write_text((src / DOMAIN / "p02.pddl").read_text() + "\n")
    with pytest.raises(GenplanError, match="checksum mismatch") as err:
        import_folder(DOMAIN, src, "flat", tmp_path / "third", splits=SPLITS,
                      checksum_file=tmp_path / "out" / "checksums.sha256")
    assert "p02.pddl" in str(err.value) and not (tmp_path / "third").exists()


@pytest.mark.parametrize("case", ["malformed problem", "two splits", "empty split", "folder named otherwise"])
def test_a_bad_folder_is_refused_by_name_and_nothing_is_written(case, tmp_path):
    src, splits, domain, named = _copy(tmp_path), dict(SPLITS), DOMAIN, "p05.pddl"
    if case == "malformed problem":
        (src / DOMAIN / "p05.pddl").write_text("(define (problem broken) (:domain typed-courier) (:init (at")
    elif case == "two splits":
        splits["test"] = ["p0[3-6]"]
        named = "p03.pddl"
    elif case == "empty split":
        splits["test"] = ["q*"]
        named = "of split 'test'"
    else:
        (src / DOMAIN).rename(src / "courier")
        domain, named = "courier", "name the folder (and the config's domain) 'typed-courier'"
    with pytest.raises(GenplanError) as err:
        import_folder(domain, src, "flat", tmp_path / "out", splits=splits)
    assert named in str(err.value)
    assert not (tmp_path / "out").exists()


def test_the_command_refuses_a_malformed_problem_naming_it(tmp_path):
    src = _copy(tmp_path)
    (src / DOMAIN / "p04.pddl").write_text("(define (problem")
    res = run_cli("import-folder", "--domain", DOMAIN, "--source", src, "--layout", "flat", "--splits",
                  '{"train": ["p0[1-3]"], "test": ["p0[4-6]"]}', "--out", tmp_path / "out")
    assert res.returncode != 0 and "p04.pddl" in res.stderr and not (tmp_path / "out").exists()


def test_a_folder_in_the_ipc2023_layout_is_checked_against_the_pinned_list(ipc_dir, tmp_path):
    """The ipc2023 layout read by the folder kind: a few Ferry problems copied from the track's folder,
    their reference plans beside them, every file checked against the pinned checksum list (paths
    relative to the folder, as in the track's repository); a changed file is refused by name."""
    from importlib import resources

    src = tmp_path / "ipc"
    files = ["ferry/domain.pddl", "ferry/training/easy/p01.pddl", "ferry/training/easy/p02.pddl",
             "ferry/testing/easy/p01.pddl", "ferry/testing/medium/p01.pddl", "ferry/plans/training/easy/p01.plan"]
    for rel in files:
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ipc_dir / rel, src / rel)
    pinned = Path(str(resources.files("genplan") / "data" / "ipc2023_learning.sha256"))
    rows = import_folder("ferry", src, "ipc2023", tmp_path / "out", checksum_file=pinned)
    assert [(r["split"], r["problem"]) for r in rows] == [("train", "p01"), ("train", "p02"), ("easy", "p01"),
                                                          ("medium", "p01")]
    assert (tmp_path / "out" / "reference-plans" / "train" / "p01.plan").read_bytes() == \
        (ipc_dir / files[-1]).read_bytes()
    (src / files[3]).write_text((src / files[3]).read_text() + " ")
    with pytest.raises(GenplanError, match="checksum mismatch") as err:
        import_folder("ferry", src, "ipc2023", tmp_path / "again", checksum_file=pinned)
    assert str(src / files[3]) in str(err.value)


def _config(**changes) -> dict:
    config = yaml.safe_load(CONFIG.read_text())
    config["benchmark_folders"]["courier"]["path"] = str(FOLDER)
    config.update(changes)
    return config


def test_the_configuration_names_what_a_folder_benchmark_does_not_provide():
    assert benchmark_faults(_config()) == []
    assert benchmark_faults(_config(domains=["blocks"], splits=["train", "easy"])) == [
        f"domains: benchmark 'courier' has no domain 'blocks'; its domains: ['{DOMAIN}']",
        "splits: benchmark 'courier' has no split 'easy'; its splits: ['train', 'test']"]
    assert benchmark_faults(_config(benchmarks=["mine"]))[0].startswith("benchmarks: unknown benchmark 'mine'")
    missing = _config()
    missing["benchmark_folders"]["courier"]["path"] = "/no/such/folder"
    assert benchmark_faults(missing) == ["benchmark_folders.courier.path: no such folder: /no/such/folder"]


def test_a_bad_problem_is_named_by_the_configuration_check_before_any_job(tmp_path):
    """The import's check runs when the workflow reads the configuration (genplan.configuration), for a
    domain not imported yet under the results root: Snakemake stops with the file's name, no job runs."""
    src = _copy(tmp_path)
    (src / DOMAIN / "p05.pddl").write_text("(define (problem broken) (:domain typed-courier) (:init (at")
    config = _config(results_dir=str(tmp_path / "results"))
    config["benchmark_folders"]["courier"]["path"] = str(src)
    (lines,) = benchmark_faults(config)
    assert lines.startswith(f"benchmark_folders.courier: {src / DOMAIN / 'p05.pddl'}: ")
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(config))
    res = subprocess.run([sys.executable, "-m", "snakemake", "-n", "--configfile", str(bad)], cwd=REPO,
                         capture_output=True, text=True, timeout=300)
    out = res.stdout + res.stderr
    assert res.returncode != 0 and f"{src / DOMAIN / 'p05.pddl'}: malformed PDDL problem" in out and "Job stats" not in out
    # once the domain is imported, its folder is not read again
    (tmp_path / "results" / "problems" / "courier" / DOMAIN).mkdir(parents=True)
    assert benchmark_faults(config) == []


def _tree(root: Path, skip: tuple[str, ...]) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file() and not p.relative_to(root).parts[0] in skip
            and "__pycache__" not in p.parts}


@pytest.mark.slow
def test_a_benchmark_registered_by_configuration_alone_runs_to_the_leaderboard(tmp_path):
    work = tmp_path / "repo"
    shutil.copytree(REPO, work, ignore=NOT_COPIED)
    config = yaml.safe_load(CONFIG.read_text())
    # no source file (the package, the workflow, the default configuration) names the benchmark, its
    # domain or its folder: the fixture and tests/folder-benchmark.yaml are all there is of it
    for rel in _tree(work, (".snakemake",)):
        if rel.split("/")[0] in ("src", "workflow", "envs", "profiles", "slurm", "Snakefile", "config.yaml"):
            text = (work / rel).read_bytes()
            assert b"folder_benchmark" not in text and b"typed-courier" not in text, rel
    before = _tree(work, (".snakemake", "runs"))
    res = subprocess.run([sys.executable, "-m", "snakemake", "--cores", "2", "--configfile", str(CONFIG.relative_to(REPO))],
                         cwd=work, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-4000:]
    assert _tree(work, (".snakemake", "runs")) == before  # the run wrote under its results root only
    root = work / config["results_dir"]
    board = list(csv.DictReader(open(root / "tables" / "leaderboard.csv")))
    learned = [r for r in board if r["model"] == "heuristic_ridge"]
    assert [(r["benchmark"], r["domain"], r["split"]) for r in learned] == [("courier", DOMAIN, "test")]
    assert {r["system"] for r in board} == {"fast_downward", "learned_heuristic"}
    assert float(learned[0]["coverage"]) > 0 and learned[0]["train_cpu_s"]
    stats = list(csv.DictReader(open(root / "tables" / "dataset-statistics.csv")))
    assert {(r["split"], r["problems"]) for r in stats} == {("train", "3"), ("test", "3")}
