"""The one rule for every command that writes (issue 56): it never destroys what is not its own.

- An output folder the command replaces as a whole must be new, empty, or one this same command
  wrote before: `atomic.output_dir(path, owner=<command>)` leaves a marker file, MARKER, holding the
  command's name, and `check_out_dir` refuses any other folder before anything is read or written.
  A folder written before the marker existed is not recognised (remove it, or choose a new one);
  `genplan plan-files` keeps accepting its older folders by their plans.csv (LEGACY).
- An output path that is an input, holds an input (a folder replaced as a whole that contains
  one), or lies inside a folder read as a whole (a benchmark folder) is refused, and so are two
  outputs naming the same path (`check_separate`, run by the command line before the command)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from genplan.errors import GenplanError

MARKER = ".genplan-output"
NOTHING = "nothing was read or written"


def claim(folder: str | Path, command: str) -> None:
    """Mark `folder` (a temporary output folder, before it is published) as written by `command`."""
    (Path(folder) / MARKER).write_text(f"{command}\n")


def owner(folder: str | Path) -> str | None:
    """The command that wrote `folder` by its marker, or None."""
    try:
        return (Path(folder) / MARKER).read_text().strip() or None
    except (OSError, UnicodeDecodeError):
        return None


def _plan_files_table(folder: Path) -> bool:
    """A folder of `genplan plan-files` from before the marker: its plans.csv's header."""
    try:
        header = (folder / "plans.csv").read_text().partition("\n")[0]
    except (OSError, UnicodeDecodeError):
        return False
    return header.startswith("problem,config,status,plan_length,")


LEGACY: dict[str, Callable[[Path], bool]] = {"plan-files": _plan_files_table}


def check_out_dir(path: str | Path, command: str) -> None:
    """Refuse an output folder that `command` may not replace: a file, or a folder with entries
    that neither this command's marker (nor LEGACY, its older outputs' signature) claims."""
    legacy = LEGACY.get(command)
    path = Path(path)
    if not path.exists():
        return
    if not path.is_dir():
        raise GenplanError(f"the output folder exists and is not a folder: `genplan {command}` would replace it "
                           f"({NOTHING})", path)
    if not any(path.iterdir()) or owner(path) == command or (legacy is not None and legacy(path)):
        return
    raise GenplanError(f"output folder exists and was not written by `genplan {command}` (no {MARKER} of its own): "
                       f"it would be replaced; choose a new or empty folder ({NOTHING})", path)


def check_file(path: str | Path, label: str) -> None:
    """Refuse an output file that names a folder (it would fail after all the work, or worse)."""
    if Path(path).is_dir():
        raise GenplanError(f"{label} is a folder: give the path of the file to write ({NOTHING})", path)


def _real(path: str | Path) -> Path:
    return Path(os.path.realpath(path))


def check_separate(folders: dict[str, str], files: dict[str, str], reads: dict[str, list[str]],
                   trees: dict[str, str]) -> None:
    """Refuse outputs that would destroy an input or each other, before anything is read.
    `folders`: output folders replaced as a whole; `files`: output files; `reads`: the inputs;
    `trees`: input folders every file of which is an input (no output may lie inside one, nor be or
    hold one). Each
    maps the option's label (e.g. `--out-dir`) to its path(s)."""
    outputs = {label: _real(p) for label, p in {**folders, **files}.items()}
    inputs = [(label, _real(p)) for label, paths in reads.items() for p in paths]
    inputs += [(label, _real(p)) for label, p in trees.items()]
    labels = list(outputs)
    for i, label in enumerate(labels):
        for other in labels[i + 1:]:
            if outputs[label] == outputs[other]:
                raise GenplanError(f"{label} and {other} name the same path: one would overwrite the other "
                                   f"({NOTHING})", outputs[label])
    for label, out in outputs.items():
        for what, inp in inputs:
            if out == inp:
                raise GenplanError(f"{label} is also the input {what}: writing it would destroy the input; "
                                   f"choose another path ({NOTHING})", out)
            if label in folders and out in inp.parents:
                raise GenplanError(f"{label} holds the input {what} ({inp}): replacing the folder would delete "
                                   f"it; choose another folder ({NOTHING})", out)
        for what, tree in trees.items():
            tree = _real(tree)
            if tree in out.parents:
                raise GenplanError(f"{label} lies inside the input folder {what} ({tree}): writing there would "
                                   f"change or destroy the input; choose a path outside it ({NOTHING})", out)
