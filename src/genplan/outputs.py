"""The one output guard of every command: it never destroys what is not its own.

Every `genplan` subcommand declares, on its arguments (genplan.cli.writes), what it reads and what
it writes; the command line hands both lists to `guard` before the command does any work. It
refuses, with one message naming the path:

- an output given as a symbolic link (a file or folder replaced by rename would replace the link,
  not its target, and a folder replaced as a whole would fail after all the work): give the target;
- an output that equals an input, holds one, or lies inside an input read as a whole (a tree), or
  inside another output folder, or two outputs naming one path: every path compared after links
  are resolved (os.path.realpath), so a link cannot smuggle an output onto an input;
- an output file that names a folder;
- an output folder the command would replace that is not its own (`check_out_dir`): it must be
  missing, empty, or carry this command's marker, MARKER, which `claim` writes into the folder
  with the list of every entry the command wrote and each file's size. A folder holding anything
  else (a user's file added later, a file of the same name changed in size, a folder written
  before the list existed) is refused before any work: nothing is guessed from a file's contents.

It is the check `cp` and `mv` make before writing (a destination that is the source, or inside
it, after links are resolved), made against every path a command reads."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from genplan.errors import GenplanError

MARKER = ".genplan-output"
FORMAT = "genplan-output/2"
NOTHING = "nothing was read or written"
# what Snakemake itself puts into a folder output (`snakemake --touch`): its empty mtime carrier
BOOKKEEPING = frozenset({".snakemake_timestamp"})
SHOWN = 5  # foreign entries named in a refusal; the rest are counted


@dataclass(frozen=True)
class Output:
    """One path a command writes. `kind`: "file" (replaced by rename), "folder" (replaced as a
    whole), or "under" (a folder the command writes named files into, never replacing it; `parts`
    are the subfolders it writes, which are what may not meet an input)."""

    label: str
    path: Path
    kind: str
    parts: tuple[str, ...] = ()


@dataclass(frozen=True)
class Input:
    """One path a command reads; `tree`: a folder every file under which is read."""

    label: str
    path: Path
    tree: bool = False


def _real(path: str | Path) -> Path:
    return Path(os.path.realpath(path))


def _link(path: Path, label: str) -> None:
    if os.path.islink(path):
        target = os.readlink(path)
        raise GenplanError(f"{label} is a symbolic link (to {target}): the output is written beside it and renamed "
                           f"into place, which would replace the link, not what it points to; give the target's own "
                           f"path ({NOTHING})", path)


def guard(command: str, outs: list[Output], reads: list[Input]) -> None:
    """Refuse, before any work, every output of `command` that could destroy an input, another
    output or a folder that is not its own (the rules in the module's docstring)."""
    # the paths each output replaces: the file or folder itself, or the named subfolders of an "under"
    written = [(o, _real(o.path / p)) for o in outs for p in (o.parts if o.kind == "under" else ("",))]
    for i, (out, real) in enumerate(written):
        for other, other_real in written[i + 1:]:
            if real == other_real:
                raise GenplanError(f"{out.label} and {other.label} name the same path: one would overwrite the "
                                   f"other ({NOTHING})", out.path)
            for a, ra, b, rb in ((out, real, other, other_real), (other, other_real, out, real)):
                if a.kind == "folder" and ra in rb.parents:
                    raise GenplanError(f"{b.label} lies inside the output folder {a.label} ({a.path}), which is "
                                       f"replaced as a whole; choose a path outside it ({NOTHING})", b.path)
    for out, real in [*written, *((o, _real(o.path)) for o in outs if o.kind == "under")]:
        for inp in reads:
            _apart(out, real, inp)
    for out in outs:
        if out.kind in ("file", "folder"):
            _link(out.path, out.label)
        if out.kind == "file" and out.path.is_dir():
            raise GenplanError(f"{out.label} is a folder: give the path of the file to write ({NOTHING})", out.path)
        if out.kind == "under" and out.path.exists() and not out.path.is_dir():
            raise GenplanError(f"{out.label} is not a folder: give the folder to write into ({NOTHING})", out.path)
        if out.kind == "folder":
            check_out_dir(out.path, command, out.label)


def _apart(out: Output, real: Path, inp: Input) -> None:
    """Refuse `out` (at `real`, links resolved) if it is `inp`, holds it, or lies inside it (a tree).
    An "under" folder itself may hold inputs: only what it writes (its parts) may not."""
    src = _real(inp.path)
    if real == src:
        raise GenplanError(f"{out.label} is also the input {inp.label}: writing it would destroy the input; "
                           f"choose another path ({NOTHING})", out.path)
    if real in src.parents and not (out.kind == "under" and real == _real(out.path)):
        raise GenplanError(f"{out.label} holds the input {inp.label} ({inp.path}): writing it would delete "
                           f"or replace the input; choose another path ({NOTHING})", out.path)
    if inp.tree and src in real.parents:
        raise GenplanError(f"{out.label} lies inside the input folder {inp.label} ({inp.path}): writing "
                           f"there would change or destroy the input; choose a path outside it ({NOTHING})",
                           out.path)


def _entries(folder: Path) -> dict[str, int | None]:
    """Every entry under `folder` but the marker: a file's relative path -> its size, a folder's
    relative path with a trailing slash -> None (links are entries, never followed)."""
    found: dict[str, int | None] = {}
    for root, dirs, files in os.walk(folder):
        rel = Path(root).relative_to(folder)
        for d in dirs:
            found[(rel / d).as_posix() + "/"] = None
        for f in files:
            if rel == Path(".") and f == MARKER:
                continue
            found[(rel / f).as_posix()] = os.lstat(Path(root) / f).st_size
    return found


def claim(folder: str | Path, command: str) -> None:
    """Mark `folder` (a temporary output folder, before it is published) as written by `command`,
    listing every entry in it: a later run may replace those and nothing else."""
    folder = Path(folder)
    listing = {"format": FORMAT, "entries": _entries(folder)}
    (folder / MARKER).write_text(f"{command}\n{json.dumps(listing, sort_keys=True)}\n")


def _marker(folder: Path) -> tuple[str | None, dict | None]:
    """(the command named by the marker, its list of entries or None when it has none)."""
    try:
        head, _, rest = (folder / MARKER).read_text().partition("\n")
    except (OSError, UnicodeDecodeError):
        return None, None
    try:
        listing = json.loads(rest)
    except json.JSONDecodeError:
        return head.strip() or None, None
    ok = isinstance(listing, dict) and listing.get("format") == FORMAT and isinstance(listing.get("entries"), dict)
    return head.strip() or None, listing["entries"] if ok else None


def owner(folder: str | Path) -> str | None:
    """The command that wrote `folder` by its marker, or None."""
    return _marker(Path(folder))[0]


def check_out_dir(path: str | Path, command: str, label: str = "the output folder") -> None:
    """Refuse an output folder that `command` may not replace: a link, a file, or a folder with an
    entry that this command's marker does not list (or a marker without the list)."""
    path = Path(path)
    _link(path, label)
    if not path.exists():
        return
    if not path.is_dir():
        raise GenplanError(f"{label} exists and is not a folder: `genplan {command}` would replace it ({NOTHING})",
                           path)
    names = set(os.listdir(path)) - BOOKKEEPING
    if not names:
        return
    who, listed = _marker(path)
    if who != command:
        raise GenplanError(f"output folder exists and was not written by `genplan {command}` (no {MARKER} of its "
                           f"own): it would be replaced; choose a new or empty folder ({NOTHING})", path)
    if listed is None:
        raise GenplanError(f"output folder was written by an older `genplan {command}` whose {MARKER} does not list "
                           f"the files it wrote, so a file added since cannot be told apart: remove the folder or "
                           f"choose a new one ({NOTHING})", path)
    foreign = sorted(e for e, size in _entries(path).items()
                     if e not in BOOKKEEPING and (e not in listed or listed[e] != size))
    if foreign:
        more = f" and {len(foreign) - SHOWN} more" if len(foreign) > SHOWN else ""
        raise GenplanError(f"output folder holds what `genplan {command}` did not write (not in its {MARKER}, or "
                           f"changed in size since): {', '.join(foreign[:SHOWN])}{more}; replacing the folder would "
                           f"delete it: move it out or choose another folder ({NOTHING})", path)
