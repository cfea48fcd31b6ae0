"""The data-loss cases an outside attack found after the first output guard, one test each: every
one lost a user's file (or an input) before the guard was declared on the arguments themselves
(genplan.cli.writes) and the marker listed what its command wrote (genplan.outputs). The class is
covered by tests/test_output_safety.py; these are the cases as the attack ran them."""

from __future__ import annotations

import json

import pytest

from genplan import cli
from genplan.cli import writes
from genplan.outputs import MARKER, guard
from genplan.stages.problems import generate_benchmark

GEN = json.dumps({"sizes": {"train": [4]}, "per_size": {"train": 1}})
MINE = "a user's only copy\n"
PLANS_HEADER = "problem,config,status,plan_length,time,valid,reason,plan_file\n"


def _error(capsys) -> str:
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.startswith("genplan: error:")]
    assert len(lines) == 1 and "Traceback" not in err, err
    assert "nothing was read or written" in lines[0], lines[0]
    return lines[0]


@pytest.fixture(scope="module")
def gripper(tmp_path_factory):
    bench = tmp_path_factory.mktemp("gripper") / "bench"
    generate_benchmark("gripper", {"sizes": {"train": [1]}, "per_size": {"train": 1}}, 0, bench)
    return bench


def test_plan_files_keeps_a_users_folder_with_a_copied_plans_csv_header(gripper, tmp_path, capsys):
    """It replaced the folder (thesis.tex lost): a rule recognised older outputs by plans.csv's header."""
    folder = tmp_path / "thesis"
    folder.mkdir()
    (folder / "thesis.tex").write_text(MINE)
    (folder / "plans.csv").write_text(PLANS_HEADER)
    problem = next((gripper / "train").glob("*.pddl"))
    assert cli.main(["plan-files", str(gripper / "domain.pddl"), str(problem), "--out-dir", str(folder)]) == 1
    assert f"was not written by `genplan plan-files` (no {MARKER} of its own)" in _error(capsys)
    assert (folder / "thesis.tex").read_text() == MINE and (folder / "plans.csv").read_text() == PLANS_HEADER
    assert sorted(p.name for p in folder.iterdir()) == ["plans.csv", "thesis.tex"]


def test_train_out_on_a_state_space_file_it_reads_is_refused(tmp_path, capsys):
    """--out onto one of the .npz files beside the state-space table replaced it (only --train and
    --validation themselves were declared inputs)."""
    spaces = tmp_path / "statespaces" / "generated" / "gripper"
    (spaces / "train").mkdir(parents=True)
    (spaces / "train.csv").write_text("problem,states\n")
    npz = spaces / "train" / "gripper-n1.npz"
    npz.write_bytes(b"PK\x03\x04 a state space")
    traj = tmp_path / "train.json.gz"
    traj.write_bytes(b"\x1f\x8b")
    settings = json.dumps({"family": "heuristic"})
    argv = ["train", "--model", "h", "--settings", settings, "--domain", "gripper", "--train", str(spaces / "train.csv"),
            str(traj), "--seed", "1", "--device", "cpu", "--out", str(npz)]
    assert cli.main(argv) == 1
    said = _error(capsys)
    assert "--out lies inside the input folder --train (its state spaces)" in said, said
    assert npz.read_bytes() == b"PK\x03\x04 a state space"


@pytest.mark.parametrize("out, read", [("--out-csv", "plans"), ("--out-md", "manifest"), ("--out-md", "states")])
def test_stats_outputs_on_the_tables_under_results_are_refused(out, read, tmp_path, capsys):
    """--out-csv / --out-md onto the plans table and the manifest it reads overwrote both: the old
    check compared an output with --results itself, not with the files read under it."""
    root = tmp_path / "results"
    files = {"plans": root / "plans" / "generated" / "blocks" / "train.csv",
             "manifest": root / "problems" / "generated" / "blocks" / "manifest.csv",
             "states": root / "statespaces" / "generated" / "blocks" / "train.csv"}
    for path in files.values():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(MINE)
    outs = {"--out-csv": str(tmp_path / "stats.csv"), "--out-md": str(tmp_path / "stats.md"), out: str(files[read])}
    argv = ["stats", "--results", str(root), "--benchmark", "generated", "--domain", "blocks", "--split", "train",
            "--statespace-split", "train", "--out-csv", outs["--out-csv"], "--out-md", outs["--out-md"]]
    assert cli.main(argv) == 1
    said = _error(capsys)
    assert f"{out} is also the input --results" in said or f"{out} lies inside the input folder --results" in said
    assert all(p.read_text() == MINE for p in files.values())
    assert not (tmp_path / "stats.csv").exists() and not (tmp_path / "stats.md").exists()


def _generate(out) -> list[str]:
    return ["generate", "--domain", "blocks", "--params", GEN, "--seed", "0", "--out", str(out)]


def test_a_users_file_added_to_an_earlier_generate_output_survives(tmp_path, capsys):
    """The next run replaced the folder and the user's file with it."""
    out = tmp_path / "bench"
    assert cli.main(_generate(out)) == 0
    (out / "train" / "my-notes.txt").write_text(MINE)
    assert cli.main(_generate(out)) == 1
    said = _error(capsys)
    assert "holds what `genplan generate` did not write" in said and "train/my-notes.txt" in said, said
    assert (out / "train" / "my-notes.txt").read_text() == MINE
    (out / "train" / "my-notes.txt").unlink()
    assert cli.main(_generate(out)) == 0  # its own folder, as it wrote it: replaced


def test_a_file_it_wrote_changed_since_is_not_replaced(tmp_path, capsys):
    out = tmp_path / "bench"
    assert cli.main(_generate(out)) == 0
    with (out / "manifest.csv").open("a") as fh:
        fh.write("# the user's note\n")
    assert cli.main(_generate(out)) == 1
    assert "manifest.csv" in _error(capsys) and (out / "manifest.csv").read_text().endswith("# the user's note\n")


def test_an_output_folder_that_is_a_link_is_refused_by_name(tmp_path, capsys):
    """It failed after all the work with an empty file name in the message."""
    target = tmp_path / "scratch"
    target.mkdir()
    link = tmp_path / "bench"
    link.symlink_to(target)
    for users in ((), ("thesis.tex",)):  # an empty target, then one holding a user's file
        for name in users:
            (target / name).write_text(MINE)
        assert cli.main(_generate(link)) == 1
        said = _error(capsys)
        assert said.startswith(f"genplan: error: {link}: --out is a symbolic link (to {target})"), said
        assert link.is_symlink() and sorted(p.name for p in target.iterdir()) == list(users)


def test_a_marker_without_the_list_of_what_it_wrote_is_refused(tmp_path, capsys):
    """A folder of a genplan from before the list: which files are its own cannot be told."""
    out = tmp_path / "bench"
    out.mkdir()
    (out / MARKER).write_text("generate\n")
    (out / "manifest.csv").write_text(MINE)
    assert cli.main(_generate(out)) == 1
    assert "older `genplan generate`" in _error(capsys) and (out / "manifest.csv").read_text() == MINE


def test_snakemakes_timestamp_in_an_output_folder_is_no_users_file(tmp_path):
    out = tmp_path / "bench"
    assert cli.main(_generate(out)) == 0
    (out / ".snakemake_timestamp").touch()  # `snakemake --touch` puts it into folder outputs
    assert cli.main(_generate(out)) == 0


def test_the_default_stored_plans_path_is_guarded_too(tmp_path, capsys):
    """evaluate writes <split>.<strategy>.plans.json.gz beside --out unless --out-plans is given."""
    table = tmp_path / "train.gbfs.plans.json.gz"
    table.write_text(MINE)
    for name in ("model.ckpt",):
        (tmp_path / name).write_text(MINE)
    (tmp_path / "bench").mkdir()
    argv = ["evaluate", "--model", str(tmp_path / "model.ckpt"), "--benchmark-dir", str(tmp_path / "bench"),
            "--split", "train", "--plans-table", str(table), "--out", str(tmp_path / "train.gbfs.csv")]
    assert cli.main(argv) == 1
    assert "--out-plans is also the input --plans-table" in _error(capsys) and table.read_text() == MINE


def _report_args(*argv: str):
    return cli.build_parser().parse_args(["report", "state-centric", *argv])


def test_report_writes_into_its_results_root_but_never_inside_what_it_reads(tmp_path):
    """The rule's own call (--out-dir defaults to --results) passes; an --out-dir inside a folder it
    reads, or a --published table among its outputs, is refused."""
    root = tmp_path / "results"
    for sub in ("evaluation/generated/blocks", "plans", "tables", "figures"):
        (root / sub).mkdir(parents=True)
    args = _report_args("--results", str(root))
    guard("report", *writes.resolve(args))
    outs, reads = writes.resolve(args)
    assert [(o.path, o.parts) for o in outs] == [(root, ("tables", "figures"))]
    assert {r.path.name for r in reads} == {"evaluation", "plans"}
    with pytest.raises(Exception, match="lies inside the input folder --results"):
        guard("report", *writes.resolve(_report_args("--results", str(root), "--out-dir", str(root / "evaluation"))))
    (root / "tables" / "published.csv").write_text(MINE)
    with pytest.raises(Exception, match="--out-dir holds the input --published"):
        guard("report", *writes.resolve(_report_args("--results", str(root), "--published",
                                                      str(root / "tables" / "published.csv"))))


def test_a_folder_it_wrote_is_replaced_and_another_commands_is_not(tmp_path, capsys):
    """The marker names its command: `generate` replaces its own folder; `import` refuses it."""
    out = tmp_path / "bench"
    assert cli.main(_generate(out)) == 0 and cli.main(_generate(out)) == 0
    assert (out / MARKER).read_text().startswith("generate\n")
    capsys.readouterr()
    (tmp_path / "release").mkdir()
    assert cli.main(["import", "--domain", "gripper", "--source", str(tmp_path / "release"), "--out", str(out)]) == 1
    assert "was not written by `genplan import`" in _error(capsys)
    assert (out / "manifest.csv").is_file()
