"""What each `genplan` subcommand reads and writes, declared on its arguments: every argument that
takes a path says so (`arg(..., path=...)`, genplan.cli.types), and the command line hands the
outputs and inputs of the parsed command to genplan.outputs.guard before the command runs.

A path argument is one of
- READ: a file read (a folder given there is read as a whole);  TREE: a folder read as a whole;
- ROOT: a folder some files of which are read: `also` names them from the parsed arguments (a
  results root: a split's plans table, its problems folder);
- OUT_FILE: a file written (replaced by rename);  OUT_FOLDER: a folder replaced as a whole;
  `under(...)`: a folder the command writes named subfolders' files into, never replacing it;
- NOT_PATH: a string that is no path (a domain's key, a split's name).
`also(args, value)` lists further inputs a value implies, found while the command would run
(the .npz files of a state-space table, the problems folder of a trajectories file); `default(args)`
the path a command uses when the option is not given (stored plans beside an evaluation CSV).
An argument of a non-string type (a number, a flag, a choice, JSON) is not a path; any other
argument must declare one (tests/test_output_safety.py walks the parser and fails otherwise)."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from genplan import outputs


@dataclass(frozen=True)
class PathArg:
    kind: str  # read, tree, root, file, folder, under, none
    also: Callable[[argparse.Namespace, str], Iterable[tuple[str, str | Path, bool]]] | None = None
    default: Callable[[argparse.Namespace], str | list | None] | None = None
    parts: tuple[str, ...] = field(default=())

    @property
    def output(self) -> bool:
        return self.kind in OUTPUT_KINDS


OUTPUT_KINDS = ("file", "folder", "under")
READ, TREE, ROOT = PathArg("read"), PathArg("tree"), PathArg("root")
OUT_FILE, OUT_FOLDER, NOT_PATH = PathArg("file"), PathArg("folder"), PathArg("none")


def under(*parts: str, default=None) -> PathArg:
    return PathArg("under", parts=parts, default=default)


def implied(action: argparse.Action) -> PathArg | None:
    """NOT_PATH for an argument whose value cannot be a path (a flag, a number, a choice, JSON);
    None (undeclared) for a string argument."""
    if action.nargs == 0 or action.choices is not None or action.type not in (None, str):
        return NOT_PATH
    return None


def label(action: argparse.Action) -> str:
    """How the user wrote the argument: its option, or a positional one's metavar (DOMAIN)."""
    if action.option_strings:
        return max(action.option_strings, key=len)
    return action.metavar if isinstance(action.metavar, str) else action.dest.upper()


@dataclass(frozen=True)
class Declared:
    """One argument's declaration: its label and its PathArg (None: a string argument undeclared)."""

    label: str
    role: PathArg | None


def _values(value) -> list[str]:
    if value is None or value == "":
        return []
    return [str(v) for v in value if v not in (None, "")] if isinstance(value, list | tuple) else [str(value)]


def resolve(args: argparse.Namespace) -> tuple[list[outputs.Output], list[outputs.Input]]:
    """The parsed command's outputs and inputs, defaults and discovered inputs included."""
    outs, reads = [], []
    for dest, decl in getattr(args, "genplan_paths", {}).items():
        role = decl.role
        if role is None or role.kind == "none":
            continue
        values = _values(getattr(args, dest, None))
        if not values and role.default is not None:
            values = _values(role.default(args))
        for value in values:
            path = Path(value)
            if role.output:
                outs.append(outputs.Output(decl.label, path, role.kind, role.parts))
            elif role.kind in ("read", "tree"):
                reads.append(outputs.Input(decl.label, path, role.kind == "tree" or path.is_dir()))
            for what, found, tree in (role.also(args, value) if role.also is not None else ()):
                reads.append(outputs.Input(f"{decl.label} ({what})", Path(found), tree))
    return outs, reads


def output_paths(args: argparse.Namespace) -> list[str]:
    """The paths the parsed command writes, as given (none where they cannot be worked out: this
    names the outputs in an error message, which must not fail in turn)."""
    try:
        return [str(o.path) for o in resolve(args)[0]]
    except (OSError, ValueError):
        return []


def check(args: argparse.Namespace) -> None:
    """Refuse the parsed command's outputs that could destroy an input, each other, or a folder
    that is not the command's own (genplan.outputs.guard)."""
    outs, reads = resolve(args)
    outputs.guard(args.command, outs, reads)
