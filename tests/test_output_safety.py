"""No command destroys what is not its own: a test derived from the `genplan` parser itself.

The subcommands and their arguments are walked on the parser (genplan.cli.build_parser); every
argument that takes a string must say what its path is (genplan.cli.writes), and every output found
so is aimed at each input of its command (the inputs its arguments name and those the command
would find from them, e.g. a state-space table's .npz folder), at a link to each input, inside each
folder read as a whole, at a folder holding a user's file and at a symbolic link. Each is refused by
the guard (genplan.outputs.guard) before the command's work: the command's function is replaced by
one that fails the test, every input stays byte for byte as it was, the user's file too.

The refusal comes before any work, so the inputs are placeholders (a line of text, or a folder
holding one) and the command line runs in this process (genplan.cli.main)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import pytest

from genplan import cli
from genplan.cli import writes
from genplan.cli.types import json_object
from genplan.outputs import MARKER, NOTHING

SENTINEL = b"a user's only copy\n"
OUTPUT_NAMES = ("--out", "--log", "--summary", "--trace")  # option names that only an output has


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    parser = cli.build_parser()
    return dict(next(a for a in parser._actions if a.dest == "command").choices)


def _arguments(sub: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for a in sub._actions if not isinstance(a, argparse._HelpAction)]


SUBCOMMANDS = _subparsers()
OUTPUTS = [(name, a.dest) for name, sub in SUBCOMMANDS.items() for a in _arguments(sub)
           if a.genplan_path is not None and a.genplan_path.output]


def test_every_string_argument_says_what_its_path_is():
    """An argument that takes a string is declared (a read, an output, or no path); an option named
    as an output is declared one; a declared path kind is one the guard knows."""
    kinds = {"read", "tree", "root", "none", *writes.OUTPUT_KINDS}
    undeclared, unmarked = [], []
    for name, sub in SUBCOMMANDS.items():
        for action in _arguments(sub):
            role = action.genplan_path
            if role is None:
                undeclared.append(f"{name} {writes.label(action)}")
                continue
            assert role.kind in kinds, (name, action.dest, role)
            if any(o.startswith(OUTPUT_NAMES) for o in action.option_strings) and not role.output:
                unmarked.append(f"{name} {writes.label(action)}")
    assert not undeclared, f"arguments without path= (genplan.cli.writes): {undeclared}"
    assert not unmarked, f"outputs not declared as outputs: {unmarked}"
    assert OUTPUTS and {n for n, _ in OUTPUTS} >= {"generate", "plan", "train", "stats", "report", "evaluate"}


def _value(action: argparse.Action, tmp: Path) -> list[str]:
    """A value for one argument: a placeholder input, a fresh output path, or a value of its type."""
    role = action.genplan_path
    if role.output:
        return [str(tmp / "out" / action.dest)]
    if role.kind in ("read", "tree", "root"):
        path = tmp / "in" / (f"{action.dest}.csv" if role.kind == "read" else action.dest)  # .csv: train's tables
        if role.kind == "read":
            path.write_bytes(SENTINEL)
        else:
            path.mkdir()
            (path / "inside.txt").write_bytes(SENTINEL)
        return [str(path)]
    if action.choices is not None:
        return [str(next(iter(action.choices)))]
    if action.type is json_object:
        return ["{}"]
    return ["1"] if action.type in (int, float) else ["x"]


def _argv(command: str, tmp: Path) -> list[str]:
    """The command with every path argument and every required argument given."""
    (tmp / "in").mkdir()
    (tmp / "out").mkdir()
    argv, positional = [command], []
    for action in _arguments(SUBCOMMANDS[command]):
        role = action.genplan_path
        needed = action.required or not action.option_strings or role.kind != "none"
        if action.nargs == 0 or not needed:
            continue
        if action.option_strings:
            argv += [action.option_strings[0], *_value(action, tmp)]
        else:
            positional += _value(action, tmp)
    return [*argv, *positional]


def _parse(argv: list[str]) -> argparse.Namespace:
    return cli.build_parser().parse_args(argv)


def _inputs(argv: list[str]) -> list:
    """The command's inputs as the guard sees them, each made (a placeholder) where it is missing."""
    reads = writes.resolve(_parse(argv))[1]
    for inp in reads:
        if not inp.path.exists():
            inp.path.parent.mkdir(parents=True, exist_ok=True)
            if inp.tree:
                inp.path.mkdir()
                (inp.path / "inside.txt").write_bytes(SENTINEL)
            else:
                inp.path.write_bytes(SENTINEL)
    return reads


def _snapshot(root: Path) -> dict[str, bytes | None]:
    return {p.relative_to(root).as_posix(): None if p.is_dir() or p.is_symlink() else p.read_bytes()
            for p in sorted(root.rglob("*"))}


class Worked(Exception):
    """The command's own function ran: the guard let the case through."""


@pytest.fixture
def no_work(monkeypatch):
    """Every subcommand's function replaced by one that raises Worked."""
    build = cli.build_parser

    def guarded():
        parser = build()
        for sub in next(a for a in parser._actions if a.dest == "command").choices.values():
            sub.set_defaults(func=lambda a: (_ for _ in ()).throw(Worked(a.command)))
        return parser

    monkeypatch.setattr(cli, "build_parser", guarded)


def _aimed(argv: list[str], dest: str, command: str, target: str) -> list[str]:
    """`argv` with the output `dest` set to `target`."""
    action = next(a for a in _arguments(SUBCOMMANDS[command]) if a.dest == dest)
    out = argv.index(action.option_strings[0]) + 1
    return [*argv[:out], target, *argv[out + 1:]]


def _refused(argv: list[str], capsys) -> str:
    assert cli.main(argv) == 1, argv
    err = capsys.readouterr().err
    assert "Traceback" not in err, err
    errors = [line for line in err.splitlines() if line.startswith("genplan: error:")]
    assert len(errors) == 1 and NOTHING in errors[0], err
    assert ": :" not in errors[0] and "error: :" not in errors[0], errors[0]  # never an empty file name
    return errors[0]


def _cases(command: str, dest: str, tmp: Path, reads: list) -> list[tuple[str, str]]:
    """(case, target) for one output: each input, a link to each, a path inside each folder read
    as a whole, a folder holding a user's file, a symbolic link to a new folder."""
    cases = []
    for i, inp in enumerate(reads):
        cases.append((f"= {inp.label} {inp.path.name}", str(inp.path)))
        link = tmp / "links" / f"{dest}-{i}"
        link.parent.mkdir(exist_ok=True)
        link.symlink_to(inp.path.resolve())
        cases.append((f"link to {inp.label} {inp.path.name}", str(link)))
        if inp.tree:
            cases.append((f"inside {inp.label} {inp.path.name}", str(inp.path / "new")))
    return cases


@pytest.mark.parametrize("command, dest", OUTPUTS, ids=[f"{c} {d}" for c, d in OUTPUTS])
def test_every_output_is_refused_on_every_input_a_foreign_folder_and_a_link(command, dest, tmp_path, capsys,
                                                                            no_work):
    argv = _argv(command, tmp_path)
    reads = _inputs(argv)
    role = next(a for a in _arguments(SUBCOMMANDS[command]) if a.dest == dest).genplan_path
    before = _snapshot(tmp_path / "in")
    for case, target in _cases(command, dest, tmp_path, reads):
        said = _refused(_aimed(argv, dest, command, target), capsys)
        assert "input" in said, (case, said)
        assert _snapshot(tmp_path / "in") == before, case

    foreign = tmp_path / "users-folder"
    foreign.mkdir()
    (foreign / "thesis.tex").write_bytes(SENTINEL)
    aimed = _aimed(argv, dest, command, str(foreign))
    if role.kind == "under":  # writes named files into the folder, never replacing it: a user's file stays
        with pytest.raises(Worked):
            cli.main(aimed)
    else:
        said = _refused(aimed, capsys)
        assert str(foreign) in said and ("is a folder" in said or f"no {MARKER} of its own" in said), said
    assert (foreign / "thesis.tex").read_bytes() == SENTINEL and len(list(foreign.iterdir())) == 1

    target = tmp_path / "link-target"
    target.mkdir()
    link = tmp_path / "out" / "a-link"
    link.symlink_to(target)
    if role.kind == "under":  # a link to a folder of its own is followed: the files go into the target
        with pytest.raises(Worked):
            cli.main(_aimed(argv, dest, command, str(link)))
    else:
        said = _refused(_aimed(argv, dest, command, str(link)), capsys)
        assert f"{link}: " in said and "is a symbolic link" in said and str(target) in said, said
    assert link.is_symlink() and not any(target.iterdir())
    assert _snapshot(tmp_path / "in") == before


@pytest.mark.parametrize("command", sorted({c for c, _ in OUTPUTS if sum(o == c for o, _ in OUTPUTS) > 1}))
def test_two_outputs_on_one_path_are_refused(command, tmp_path, capsys, no_work):
    dests = [d for c, d in OUTPUTS if c == command]
    argv = _argv(command, tmp_path)
    same = str(tmp_path / "out" / "same")
    for dest in dests[:2]:
        argv = _aimed(argv, dest, command, same)
    assert "name the same path" in _refused(argv, capsys)


@pytest.mark.parametrize("command", sorted({c for c, _ in OUTPUTS}))
def test_the_placeholder_command_passes_the_guard(command, tmp_path, no_work):
    """The derived command line itself is not refused: each refusal above is the aimed output's."""
    argv = _argv(command, tmp_path)
    _inputs(argv)
    with pytest.raises(Worked):
        cli.main(argv)
    assert os.listdir(tmp_path / "out") == []
