"""The output guard's rule as a property (hypothesis): over a small tree of files, folders and
symbolic links (to files, to folders, chained, dangling), an output is accepted exactly when,
links resolved, it shares no path with any input (neither is the other nor lies inside the other,
where the input is a folder read as a whole or the output holds the input), and is no link itself,
no folder for a file, no foreign non-empty folder. The oracle compares resolved path strings with
os.path.commonpath, apart from genplan.outputs' own code; the guard never changes the tree."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from genplan.errors import GenplanError
from genplan.outputs import Input, Output, guard

FILES = ("a/b/f1", "c/f2", "f3", "a/f4")
FOLDERS = ("a", "a/b", "c", "e")  # e stays empty
LINKS = {"la": "a", "lf": "a/b/f1", "lc": "c", "lla": "la", "dangling": "nowhere", "a/b/up": ".."}
NEW = ("a/new", "a/b/new", "c/new", "c/new/deeper", "n", "la/new", "e/new")
PATHS = (*FILES, *FOLDERS, *LINKS, *NEW)


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("tree")
    for d in FOLDERS:
        (root / d).mkdir(parents=True, exist_ok=True)
    for f in FILES:
        (root / f).write_text(f)
    for link, target in LINKS.items():
        os.symlink(target, root / link)
    return root


def _within(inner: str, outer: str) -> bool:
    return inner != outer and os.path.commonpath([inner, outer]) == outer


def _oracle(root: Path, out: str, kind: str, reads: list[tuple[str, bool]]) -> bool:
    """True when the output must be refused."""
    path, real = root / out, os.path.realpath(root / out)
    for inp, tree in reads:
        src = os.path.realpath(root / inp)
        if real == src or _within(src, real) or (tree and _within(real, src)):
            return True
    if os.path.islink(path):
        return True
    if kind == "file":
        return path.is_dir()
    return path.exists() and (not path.is_dir() or any(path.iterdir()))


def _snapshot(root: Path) -> list:
    """Every entry (links not followed), with each link's target and each file's text."""
    found = []
    for where, dirs, files in os.walk(root):
        for name in (*dirs, *files):
            p = Path(where, name)
            found.append((str(p), os.readlink(p) if p.is_symlink() else p.read_text() if p.is_file() else None))
    return sorted(found)


@settings(max_examples=300, deadline=None)
@given(out=st.sampled_from(PATHS), kind=st.sampled_from(("file", "folder")),
       reads=st.lists(st.tuples(st.sampled_from(PATHS), st.booleans()), max_size=3))
def test_the_guard_refuses_exactly_the_outputs_that_meet_an_input(tree, out, kind, reads):
    before = _snapshot(tree)
    inputs = [Input(f"--in{i}", tree / p, is_tree) for i, (p, is_tree) in enumerate(reads)]
    try:
        guard("generate", [Output("--out", tree / out, kind)], inputs)
        refused = False
    except GenplanError as exc:
        refused = True
        assert exc.path is not None and str(exc.path) != ""  # the message names a path, never an empty one
    assert refused == _oracle(tree, out, kind, reads), (out, kind, reads)
    assert _snapshot(tree) == before
