"""The trajectories file (`<split>.json.gz`, format 2): its document, its reader, and the domain file
it carries. Made by genplan.stages.trajectories."""

from __future__ import annotations

import contextlib
import gzip
import json
import tempfile
import zlib
from pathlib import Path

from genplan.errors import GenplanError
from genplan.pddl_io import parse_domain, read_text

FORMAT = "genplan-trajectories/2"


RERUN = "rerun the `trajectories` rule for it (snakemake -f FILE) or `genplan trajectories`"


def document(split: str, domain: str | Path, problems: list[dict], without_plan: list[dict]) -> dict:
    """The trajectories file's content (format 2): the domain's text travels with the data."""
    text = read_text(domain, "PDDL domain")
    return {"format": FORMAT, "split": split, "domain_file": str(domain), "domain_name": parse_domain(domain).name,
            "domain_pddl": text, "problems": problems, "without_plan": without_plan}


def load(path: str | Path) -> dict:
    """A trajectories file of format 2; GenplanError naming the file when it is not one."""
    path = Path(path)
    if not path.is_file():
        raise GenplanError("trajectories file not found", path)
    try:
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            doc = json.load(fh)
    except UnicodeDecodeError:
        raise GenplanError("not a trajectories file: its content is not UTF-8 text", path) from None
    except (OSError, EOFError, zlib.error, json.JSONDecodeError) as exc:
        raise GenplanError(f"not a trajectories file (gzip JSON): {exc}", path) from None
    fmt = doc.get("format") if isinstance(doc, dict) else None
    if fmt != FORMAT:
        raise GenplanError(f"unknown trajectories format {fmt!r}; expected {FORMAT!r}", path)
    needed = {"problems": list, "domain_file": str, "domain_pddl": str}
    for key, kind in needed.items():
        if not isinstance(doc.get(key), kind):
            raise GenplanError(f"trajectories file without a valid {key!r}; {RERUN.replace('FILE', str(path))}", path)
    return doc


@contextlib.contextmanager
def domain_file(doc: dict, path: str | Path):
    """A domain file of a loaded trajectories document, for readers that need a file: its stored
    text written to a temporary file (removed afterwards)."""
    path = Path(path)
    with tempfile.TemporaryDirectory(prefix="genplan-domain-") as tmp:
        target = Path(tmp) / "domain.pddl"
        target.write_text(doc["domain_pddl"], encoding="utf-8")
        try:
            parse_domain(target)
        except GenplanError as exc:
            raise GenplanError(f"the domain stored in the trajectories file is not valid PDDL: {exc.message}",
                               path) from None
        yield target
