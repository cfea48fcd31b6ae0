"""Issue 56: no command destroys what is not its own. Every subcommand of `genplan --help` is run
against a folder holding a user's file and against its own inputs (each output set to each input,
to a folder holding them, inside an input folder, and two outputs to one path): each is refused
with one message before anything is read, the user's file and every input unchanged.

The refusal happens before the command's work, so the inputs are placeholders (a line of text, or
a folder with one file) and the commands run in this process (genplan.cli.main)."""

from __future__ import annotations

import itertools
import json
import re

import pytest
from conftest import run_cli

from genplan import cli
from genplan.cli.writes import PATHS, _label
from genplan.outputs import MARKER

GEN = json.dumps({"sizes": {"train": [4]}, "per_size": {"train": 1}})
PLANNER = json.dumps({"optimal": {"time_limit": 1}, "fallback": {"enabled": False}, "lama": {"enabled": False},
                      "memory_limit_mb": 512})
XGB = json.dumps({"family": "transition", "encoding": "wl", "learner": "xgb", "mode": "delta"})
# every subcommand with each path argument as {dest}
ARGV = {
    "generate": "--domain blocks --params GEN --seed 0 --out {out}",
    "import": "--domain gripper --source {source} --no-verify --out {out}",
    "import-ipc2023": "--domain blocksworld --source {source} --checksums {checksums} --out {out}",
    "import-folder": "--domain blocksworld --source {source} --layout ipc2023 --checksums {checksums} --out {out}",
    "plan": "--benchmark-dir {benchmark_dir} --split train --params PLANNER --out-dir {out_dir} "
            "--out-table {out_table}",
    "plan-anytime": "--benchmark-dir {benchmark_dir} --split train --plans-table {plans_table} --params PLANNER "
                    "--out-dir {out_dir} --out-table {out_table}",
    "plan-files": "{domain} {problems} --out-dir {out_dir}",
    "trajectories": "--benchmark-dir {benchmark_dir} --split train --plans-dir {plans_dir} --plans-table {plans_table} "
                    "--out {out}",
    "statespace": "--benchmark-dir {benchmark_dir} --split train --max-states 10 --out-dir {out_dir} "
                  "--out-table {out_table}",
    "stats": "--results {results} --benchmark generated --domain blocks --out-csv {out_csv} --out-md {out_md}",
    "validate": "{domain} {problem} {plan}",
    "train": "--model m --settings XGB --domain gripper --train {train} --validation {validation} --seed 1 "
             "--device cpu --out {out} --log {log} --summary {summary}",
    "solve": "--model {model} {domain} {problem} --reference-plan {reference_plan} --configfile {configfile} "
             "--out {out} --trace {trace}",
    "evaluate": "--model {model} --benchmark-dir {benchmark_dir} --split train --plans-table {plans_table} "
                "--out {out} --out-plans {out_plans}",
    "plansformer": "--checkpoint {checkpoint} --benchmark-dir {benchmark_dir} --split train --plans-table "
                   "{plans_table} --out {out} --out-plans {out_plans}",
    "report": "state-centric --results {results} --published {published} --out-dir {out_dir}",
    "doctor": "--out {out}",
    "cluster-plan": "--configfile {configfile} --gpu-check {gpu_check} --jobstats {jobstats} --out {out}",
}
FOLDER_INPUTS = {"results", "jobstats", "evaluation", "problems_dir"}
SENTINEL = "a user's only copy\n"


def _subcommands() -> list[str]:
    """The subcommands `genplan --help` lists."""
    res = run_cli("--help")
    return re.search(r"\{([a-z0-9,-]+)\}", res.stdout).group(1).split(",")


def _cases():
    """(command, case name, {dest: role}) where role says where the dest points: 'out' (a new path
    of its own), ('input', dest), 'parent' (the folder holding the inputs), ('inside', dest), 'same'."""
    for command, spec in PATHS.items():
        outs, inputs = (*spec.folders, *spec.files), (*spec.reads, *spec.trees)
        for out, inp in itertools.product(outs, inputs):
            yield command, f"{out}={inp}", {out: ("input", inp)}, "is also the input"
        for out in spec.folders:
            if inputs:
                yield command, f"{out}=parent", {out: "parent"}, "holds the input"
        for out, tree in itertools.product(outs, spec.trees):
            yield command, f"{out} inside {tree}", {out: ("inside", tree)}, "lies inside the input folder"
        for a, b in itertools.combinations(outs, 2):
            yield command, f"{a}={b}", {a: "same", b: "same"}, "name the same path"


CASES = {f"{c} {name}": (c, roles, said) for c, name, roles, said in _cases()}


def _argv(command: str, tmp, roles: dict) -> tuple[list[str], dict]:
    """The command's argv with every input made under tmp/in (a placeholder file, or a folder with
    one), the outputs under tmp/out unless `roles` says otherwise; and the inputs made."""
    spec, made = PATHS[command], {}
    (tmp / "in").mkdir(exist_ok=True)
    (tmp / "out").mkdir(exist_ok=True)
    for dest in (*spec.reads, *spec.trees):
        path = tmp / "in" / dest
        if dest in spec.trees or dest in FOLDER_INPUTS:
            path.mkdir()
            (path / "inside.txt").write_text(SENTINEL)
        else:
            path.write_text(SENTINEL)
        made[dest] = path
    paths = {d: tmp / "out" / d for d in (*spec.folders, *spec.files)}
    paths.update(made)
    for dest, role in roles.items():
        if role == "parent":
            paths[dest] = tmp / "in"
        elif role == "same":
            paths[dest] = tmp / "out" / "same"
        elif role[0] == "input":
            paths[dest] = made[role[1]]
        else:
            paths[dest] = made[role[1]] / "new"
    text = ARGV[command].replace("GEN", "'GEN'").replace("PLANNER", "'PLANNER'").replace("XGB", "'XGB'")
    words = [w.strip("'") for w in text.split()]
    subst = {"GEN": GEN, "PLANNER": PLANNER, "XGB": XGB}
    argv = [subst.get(w, w.format(**{d: str(p) for d, p in paths.items()})) for w in words]
    return [command, *argv], made


def _inputs_unchanged(made: dict) -> None:
    for dest, path in made.items():
        file = path / "inside.txt" if path.is_dir() else path
        assert file.read_text() == SENTINEL, f"{dest} changed"
        if path.is_dir():
            assert sorted(p.name for p in path.iterdir()) == ["inside.txt"], f"{dest}: {list(path.iterdir())}"


def _one_error(capsys) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err, err
    errors = [line for line in err.splitlines() if line.startswith("genplan: error:")]
    assert len(errors) == 1, err
    return errors[0]


def test_every_subcommand_declares_its_paths():
    """A new subcommand needs an entry in genplan.cli.writes.PATHS and in ARGV here; each declared
    path is an argument of its command."""
    assert sorted(_subcommands()) == sorted(PATHS) == sorted(ARGV)
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for command, spec in PATHS.items():
        dests = {a.dest for a in sub.choices[command]._actions}
        for dest in (*spec.folders, *spec.files, *spec.reads, *spec.trees):
            assert dest in dests, (command, dest)
            assert "{" + dest + "}" in ARGV[command] or not (spec.folders or spec.files), (command, dest)
    assert _label("plan-files", "problems") == "PROBLEM" and _label("plan", "out_dir") == "--out-dir"


@pytest.mark.parametrize("case", list(CASES))
def test_an_output_on_its_own_input_is_refused(case, tmp_path, capsys):
    command, roles, said = CASES[case]
    argv, made = _argv(command, tmp_path, roles)
    assert cli.main(argv) == 1
    error = _one_error(capsys)
    assert said in error and "nothing was read or written" in error, error
    _inputs_unchanged(made)


FOLDER_COMMANDS = [c for c, spec in PATHS.items() if spec.folders]
FILE_OUTPUTS = [(c, d) for c, spec in PATHS.items() for d in spec.files]


@pytest.mark.parametrize("command", FOLDER_COMMANDS)
def test_a_folder_holding_a_users_file_is_not_replaced(command, tmp_path, capsys):
    """The issue's case 1: `--out d` with d/thesis.tex exited 0 and thesis.tex was gone."""
    argv, made = _argv(command, tmp_path, {})
    folder = tmp_path / "out" / PATHS[command].folders[0]
    folder.mkdir()
    (folder / "thesis.tex").write_text(SENTINEL)
    assert cli.main(argv) == 1
    error = _one_error(capsys)
    assert f"output folder exists and was not written by `genplan {command}` (no {MARKER} of its own)" in error
    assert str(folder) in error
    assert (folder / "thesis.tex").read_text() == SENTINEL and len(list(folder.iterdir())) == 1
    _inputs_unchanged(made)


@pytest.mark.parametrize("command, dest", FILE_OUTPUTS)
def test_an_output_file_naming_a_users_folder_is_refused(command, dest, tmp_path, capsys):
    argv, made = _argv(command, tmp_path, {})
    folder = tmp_path / "out" / dest
    folder.mkdir()
    (folder / "thesis.tex").write_text(SENTINEL)
    assert cli.main(argv) == 1
    error = _one_error(capsys)
    assert f"{_label(command, dest)} is a folder: give the path of the file to write" in error, error
    assert [p.name for p in folder.iterdir()] == ["thesis.tex"]
    _inputs_unchanged(made)


def test_a_folder_it_wrote_is_replaced_and_another_commands_is_not(tmp_path, capsys):
    """The marker: `generate` replaces its own folder; `import` refuses it."""
    out = tmp_path / "bench"
    argv = ["generate", "--domain", "blocks", "--params", GEN, "--seed", "0", "--out", str(out)]
    assert cli.main(argv) == 0 and cli.main(argv) == 0
    assert (out / MARKER).read_text() == "generate\n"
    capsys.readouterr()
    (tmp_path / "release").mkdir()
    assert cli.main(["import", "--domain", "gripper", "--source", str(tmp_path / "release"), "--out", str(out)]) == 1
    assert "was not written by `genplan import`" in _one_error(capsys)
    assert (out / "manifest.csv").is_file()


def test_plan_files_still_replaces_its_folders_from_before_the_marker(tmp_path):
    from genplan.outputs import check_out_dir

    old = tmp_path / "old"
    old.mkdir()
    (old / "plans.csv").write_text("problem,config,status,plan_length,time,valid,reason,plan_file\n")
    (old / "p.plan").write_text("(a)\n")
    check_out_dir(old, "plan-files")  # no error
