"""The PDDL domain of the sequence families' examples as text: read from a trajectories file
(which stores it), checked against the workflow's domain key, and parsed back from the text a
checkpoint stores (so a model needs no domain file)."""

from __future__ import annotations

import hashlib
import os
import stat
import tempfile
from pathlib import Path

from genplan.errors import GenplanError


def _cache_dir() -> Path:
    """This user's folder of domain copies in the temporary directory, `genplan-domains-<uid>`,
    mode 0700: a folder of that name that is not this user's is never used (GenplanError naming it)."""
    path = Path(tempfile.gettempdir()) / f"genplan-domains-{os.getuid()}"
    try:
        path.mkdir(mode=0o700)
    except FileExistsError:
        pass
    st = path.lstat()
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid():
        raise GenplanError("the folder of domain copies is not a folder of this user; remove it or set TMPDIR", path)
    if st.st_mode & 0o077:
        path.chmod(0o700)
    return path


def domain_of_text(text: str):
    """The DomainInfo of PDDL domain text (stored in the checkpoint, so a model needs no file),
    parsed from a content-addressed copy in this user's cache folder (kept: readers may reopen
    it). A copy whose content is not `text` (damaged, or written by something else) is rewritten."""
    from genplan import atomic
    from genplan.pddl_io import parse_domain

    data = text.encode()
    path = _cache_dir() / f"{hashlib.sha256(data).hexdigest()[:20]}.pddl"
    try:
        ok = path.read_bytes() == data
    except OSError:
        ok = False
    if not ok:
        atomic.write_bytes(path, data)
    return parse_domain(path)


def training_domain(doc: dict, path: str | Path, domain: str) -> tuple[str, object]:
    """The domain text of a loaded trajectories document (`path`: its file, for messages) and its
    DomainInfo, parsed once from the copy the checkpoint's text maps to; GenplanError unless
    `domain` (the workflow's key) is the key of that domain (genplan.domains.domain_key)."""
    from genplan.domains import domain_key
    from genplan.formats.trajectories import domain_file

    with domain_file(doc, path) as dom_path:
        text = Path(dom_path).read_text(encoding="utf-8")
    info = domain_of_text(text)
    if domain_key(info.path) != domain:
        raise GenplanError(f"--domain {domain!r} is not the domain of the training data "
                           f"({domain_key(info.path)!r})", path)
    return text, info


def check_cases(cases, info, path: str | Path) -> None:
    """GenplanError naming `path` (the file the cases came from) when a case holds an atom or an
    action that the training domain `info` (a DomainInfo) does not define: data of another domain
    mixed into a model's training or validation files."""
    for case in cases:
        for atom in (*case.state, *case.statics, *case.goal):
            if atom[0] not in info.predicates:
                raise GenplanError(f"holds atoms of predicate {atom[0]!r}, which the training domain "
                                   f"{info.name!r} does not define: a file of another domain?", path)
        for action in case.plan:
            if action[0] not in info.actions:
                raise GenplanError(f"holds the action {action[0]!r}, which the training domain "
                                   f"{info.name!r} does not define: a file of another domain?", path)
