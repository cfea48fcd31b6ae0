"""Stage 1 for a folder benchmark (genplan.benchmarks): import one domain of a folder of PDDL the user
names, in the `ipc2023` layout (domain.pddl, training/easy/, testing/<level>/, plans/ beside them) or
Fast Downward's `flat` layout (domain.pddl beside numbered problems; each split's problems chosen by the
configuration's shell patterns of problem names).

The domain's subfolder is named as its PDDL domain (genplan.domains.domain_key: the name every stage
labels its outputs with). Every problem is read and parsed against the domain before anything is written: a missing domain file,
a malformed problem, a problem matched by two splits or a split matched by none is refused naming the
file. With a checksum list (`sha256sum` format, paths relative to the folder) every file read must be
in it and match; without one the SHA-256 of every file read is recorded in checksums.sha256 of the
benchmark folder written, so that a later import of a changed folder can be checked against it.

The benchmark folder written (atomically, nothing on failure) is the one every stage reads:
domain.pddl, <split>/<problem>.pddl, manifest.csv, checksums.sha256, and reference-plans/<split>/
<problem>.plan where the folder ships plans (ipc2023 layout).
"""

from __future__ import annotations

import fnmatch
import hashlib
import logging
from pathlib import Path

from genplan import atomic
from genplan.benchmarks import IPC2023_LEVELS, LAYOUTS
from genplan.domains import domain_key
from genplan.errors import GenplanError
from genplan.paths import FOLDER_SPLITS
from genplan.pddl_io import parse_domain, parse_problem
from genplan.stages.ipc_import import canonical_form, copy_problems
from genplan.stages.ipc_import import checksums as read_checksums

log = logging.getLogger("genplan")
CHECKSUMS = "checksums.sha256"  # in the benchmark folder written: what was read, recorded


def _flat(folder: Path, patterns: dict[str, list[str]]) -> list[tuple[str, Path, Path | None]]:
    """(split, problem file, None) of a flat folder: every *.pddl but the domain, by the split patterns."""
    unknown = sorted(set(patterns) - set(FOLDER_SPLITS))
    if unknown or "train" not in patterns:
        raise GenplanError(f"splits must name `train` and only {list(FOLDER_SPLITS)}; got {sorted(patterns)}")
    files = sorted(p for p in folder.glob("*.pddl") if p.name != "domain.pddl")
    out, left = [], 0
    for f in files:
        hits = [s for s, pats in patterns.items() if any(fnmatch.fnmatchcase(f.stem, p) for p in pats)]
        if len(hits) > 1:
            raise GenplanError(f"problem matched by the patterns of two splits {hits}", f)
        if hits:
            out.append((hits[0], f, None))
        else:
            left += 1
    for split in patterns:
        if not any(s == split for s, _, _ in out):
            raise GenplanError(f"no problem matches the patterns {list(patterns[split])} of split {split!r}", folder)
    if left:
        log.info("%d problem files of %s match no split's patterns: left out", left, folder)
    return sorted(out, key=lambda t: (FOLDER_SPLITS.index(t[0]), t[1].name))


def _ipc2023(folder: Path) -> list[tuple[str, Path, Path | None]]:
    """(split, problem file, reference plan or None) of a folder in the IPC 2023 learning track's layout."""
    out = []
    for split, sub in IPC2023_LEVELS.items():
        for f in sorted((folder / sub).glob("*.pddl")):
            plan = folder / "plans" / sub / f"{f.stem}.plan"
            out.append((split, f, plan if plan.is_file() else None))
    if not any(s == "train" for s, _, _ in out):
        raise GenplanError(f"no training problems ({IPC2023_LEVELS['train']}/*.pddl)", folder)
    return out


def _checked(path: Path, root: Path, sums: dict[str, str] | None, seen: dict[str, str]) -> Path:
    rel = path.relative_to(root).as_posix()
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if sums is not None:
        if rel not in sums:
            raise GenplanError("file is not in the checksum list", path)
        if sums[rel] != digest:
            raise GenplanError("file differs from the checksum list (checksum mismatch)", path)
    seen[rel] = digest
    return path


def scan(domain: str, source: str | Path, layout: str, splits: dict[str, list[str]] | None = None,
         checksum_file: str | Path | None = None) -> tuple[Path, list[dict], dict[str, str]]:
    """Check one domain of a folder benchmark without writing anything: (its domain file, one manifest
    row per problem with its `source` file and reference `plan`, relative path -> SHA-256 of every file
    read); GenplanError naming the first bad file (genplan.configuration runs it before any job)."""
    if layout not in LAYOUTS:
        raise GenplanError(f"Unknown value {layout=}. Must be from {list(LAYOUTS)}")
    root = Path(source)
    folder = root / domain
    if not folder.is_dir():
        raise GenplanError(f"no folder for domain {domain!r} in the benchmark folder", folder)
    sums = read_checksums(checksum_file) if checksum_file else None
    seen: dict[str, str] = {}
    dom_file = _checked(folder / "domain.pddl", root, sums, seen) if (folder / "domain.pddl").is_file() else None
    if dom_file is None:
        raise GenplanError("domain file not found (domain.pddl beside the problems)", folder / "domain.pddl")
    dom = parse_domain(dom_file)
    if domain_key(dom_file) != domain:
        raise GenplanError(f"the domain's folder is {domain!r} but its PDDL domain is {domain_key(dom_file)!r}: name "
                           f"the folder (and the config's domain) {domain_key(dom_file)!r}", dom_file)
    found = _flat(folder, splits or {}) if layout == "flat" else _ipc2023(folder)
    rows = []
    for split, path, plan in found:
        task = parse_problem(_checked(path, root, sums, seen), dom)
        rows.append({"problem": path.stem, "split": split, "file": f"{split}/{path.name}", "size": task.num_objects,
                     "num_objects": task.num_objects, "seed": "", "canonical": canonical_form(task), "source": path,
                     "plan": _checked(plan, root, sums, seen) if plan is not None else None})
    return dom_file, rows, seen


def import_folder(domain: str, source: str | Path, layout: str, out_dir: str | Path,
                  splits: dict[str, list[str]] | None = None, checksum_file: str | Path | None = None) -> list[dict]:
    """Write the benchmark folder of `domain` (a subfolder of `source`) in `layout` (genplan.benchmarks.LAYOUTS);
    `splits` (flat layout): split -> problem name patterns. Returns the manifest rows."""
    dom_file, rows, seen = scan(domain, source, layout, splits, checksum_file)
    with atomic.output_dir(out_dir, owner="import-folder") as tmp:
        tmp = Path(tmp)
        copy_problems(tmp, dom_file, rows)
        atomic.write_text(tmp / CHECKSUMS, "".join(f"{d}  {rel}\n" for rel, d in sorted(seen.items())))
    counts = {s: sum(r["split"] == s for r in rows) for s in dict.fromkeys(r["split"] for r in rows)}
    log.info("imported %d %s problems (%s)", len(rows), domain, ", ".join(f"{s} {n}" for s, n in counts.items()))
    return [{k: v for k, v in r.items() if k not in ("source", "plan")} for r in rows]
