"""The PDDL domain of the sequence families' examples as text: read from a trajectories file
(which stores it), checked against the workflow's domain key, and parsed back from the text a
checkpoint stores (so a model needs no domain file)."""

from __future__ import annotations

import hashlib
import tempfile
from pathlib import Path

from genplan.errors import GenplanError


def domain_of_text(text: str):
    """The DomainInfo of PDDL domain text (stored in the checkpoint, so a model needs no file),
    parsed from a content-addressed copy in the temporary directory (kept: readers may reopen it)."""
    from genplan.pddl_io import parse_domain

    digest = hashlib.sha256(text.encode()).hexdigest()[:20]
    path = Path(tempfile.gettempdir()) / "genplan-domains" / f"{digest}.pddl"
    if not path.is_file():
        from genplan import atomic

        path.parent.mkdir(parents=True, exist_ok=True)
        atomic.write_text(path, text)
    return parse_domain(path)


def training_domain(doc: dict, path: str | Path, domain: str) -> tuple[str, object]:
    """The domain text of a loaded trajectories document (`path`: its file, for messages) and its
    DomainInfo, parsed once from the copy the checkpoint's text maps to; GenplanError unless
    `domain` (the workflow's key) is the key of that domain (genplan.domains.domain_key)."""
    from genplan.domains import domain_key
    from genplan.stages.trajectories import domain_file

    with domain_file(doc, path) as dom_path:
        text = Path(dom_path).read_text(encoding="utf-8")
    info = domain_of_text(text)
    if domain_key(info.path) != domain:
        raise GenplanError(f"--domain {domain!r} is not the domain of the training data "
                           f"({domain_key(info.path)!r})", path)
    return text, info
