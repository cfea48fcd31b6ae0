"""Stage 1 for the `ipc2023` benchmark: import one domain of the IPC 2023 learning track from the
user's copy of its benchmarks repository (`ipc2023_dir` in the configuration; the repository has no
licence, so it is never downloaded), every file used checked against the SHA-256 sums shipped in
`data/ipc2023_learning.sha256` (the public repository at commit ae70e8e3, 2023-07-04).

Source layout (and that of the checksum list), per domain:
    <domain>/domain.pddl, <domain>/training/easy/pNN.pddl, <domain>/testing/<level>/pNN.pddl,
    <domain>/plans/training/easy/pNN.plan, <domain>/plans/testing/<level>/pNN.plan,
    upper_bounds.json ("<domain>/testing/<level>/pNN.pddl": best known plan cost)
Splits: `train` (training/easy) and the levels `easy`, `medium`, `hard` (testing/<level>).

The benchmark folder written (atomically, nothing on failure): domain.pddl, <split>/pNN.pddl,
reference-plans/<split>/pNN.plan (the shipped plans: the plans stage checks them with VAL),
manifest.csv, and upper_bounds.csv (split,problem,best_known_cost of every test problem). Every
file is verified and the domain and every problem parsed before anything is written: a missing or
changed file, a malformed problem or a PDDL feature the pipeline cannot handle is refused by name.
"""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
from importlib import resources
from pathlib import Path

from genplan import atomic
from genplan.benchmarks import BUILTIN
from genplan.errors import GenplanError
from genplan.formats import manifest
from genplan.formats.tables import csv_text
from genplan.paths import IPC2023_TEST_SPLITS
from genplan.pddl_io import atom_to_str, parse_domain, parse_problem

log = logging.getLogger("genplan")

BENCHMARK = "ipc2023"
SPLIT_DIRS = {"train": "training/easy", "easy": "testing/easy", "medium": "testing/medium", "hard": "testing/hard"}
UPPER_BOUNDS = "upper_bounds.json"
BOUNDS_COLUMNS = ("split", "problem", "best_known_cost")


def checksums(path: str | Path | None = None) -> dict[str, str]:
    """relative path -> SHA-256 of a checksum list (`sha256sum` format); the shipped one by default."""
    if path is None:
        text = (resources.files("genplan") / "data" / "ipc2023_learning.sha256").read_text()
    else:
        from genplan.pddl_io import read_text

        text = read_text(path, "checksum list")
    sums = {}
    for lineno, line in enumerate(text.splitlines(), 1):
        parts = line.split(maxsplit=1)
        if len(parts) != 2 or len(parts[0]) != 64:
            raise GenplanError(f"line {lineno}: not '<sha256>  <path>'", path or "ipc2023_learning.sha256")
        sums[parts[1].strip()] = parts[0]
    return sums


def _verified(source: Path, rel: str, sums: dict[str, str]) -> Path:
    path = source / rel
    if not path.is_file():
        raise GenplanError(f"missing file of the pinned IPC 2023 benchmark ({rel})", path)
    if hashlib.sha256(path.read_bytes()).hexdigest() != sums[rel]:
        raise GenplanError("file differs from the pinned IPC 2023 benchmark (checksum mismatch)", path)
    return path


def _check_no_extra(source: Path, domain: str, sums: dict[str, str]) -> None:
    """Every file of the domain's folder that the checksum list does not know is named, never left out
    unseen: a problem (any .pddl) or any file in a problem folder is refused (a stray `p01.pddl~` or
    notes beside the problems would say the copy is not the pinned one); any other (a plan of a
    problem the list does not pin) is logged as not imported, with how many there are."""
    problem_dirs = {source / domain / d for d in SPLIT_DIRS.values()}
    unknown = [f for f in sorted((source / domain).rglob("*"))
               if f.is_file() and f.relative_to(source).as_posix() not in sums]
    for f in unknown:
        if f.suffix == ".pddl" or f.parent in problem_dirs:
            raise GenplanError("file is not part of the pinned IPC 2023 benchmark (its checksum list): remove it "
                               "from the copy", f)
    if unknown:
        shown = ", ".join(f.relative_to(source).as_posix() for f in unknown[:3])
        log.warning("%d file(s) of %s are not in the checksum list and are not imported, e.g. %s", len(unknown),
                    source / domain, shown)


def canonical_form(task) -> str:
    text = "\n".join(sorted(atom_to_str(a) for a in task.init | task.statics)) + "\n|" + \
        "\n".join(sorted(atom_to_str(a) for a in task.goal))
    return hashlib.sha1(text.encode()).hexdigest()[:16]


def _bounds(source: Path, domain: str, rows: list[dict], sums: dict[str, str]) -> list[dict]:
    """split,problem,best_known_cost of every test problem, from upper_bounds.json."""
    path = _verified(source, UPPER_BOUNDS, sums)
    try:
        bounds = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise GenplanError(f"not a JSON file: {exc}", path) from None
    out = []
    for r in rows:
        if r["split"] not in IPC2023_TEST_SPLITS:
            continue
        key = f"{domain}/{SPLIT_DIRS[r['split']]}/{r['problem']}.pddl"
        cost = bounds.get(key)
        if not isinstance(cost, int) or isinstance(cost, bool) or cost < 0:
            raise GenplanError(f"no best known cost (a non-negative integer) for {key}", path)
        out.append({"split": r["split"], "problem": r["problem"], "best_known_cost": cost})
    return out


def _problems(source: Path, domain: str, sums: dict[str, str]) -> tuple[object, list[dict]]:
    """The parsed domain and one manifest row per problem of the checksum list (each verified and
    parsed; its reference plan verified), in split order."""
    dom_file = _verified(source, f"{domain}/domain.pddl", sums)
    dom = parse_domain(dom_file)
    rows = []
    for split, split_dir in SPLIT_DIRS.items():
        prefix = f"{domain}/{split_dir}/"
        names = sorted(rel[len(prefix):] for rel in sums if rel.startswith(prefix) and "/" not in rel[len(prefix):])
        if not names:
            raise GenplanError(f"the checksum list has no problems for split {split!r} ({prefix})", source / domain)
        for name in names:
            path = _verified(source, prefix + name, sums)
            task = parse_problem(path, dom)
            plan_rel = f"{domain}/plans/{split_dir}/{Path(name).stem}.plan"
            rows.append({
                "problem": Path(name).stem, "split": split, "file": f"{split}/{name}",
                "size": task.num_objects, "num_objects": task.num_objects, "seed": "",
                "canonical": canonical_form(task), "source": path,
                "plan": _verified(source, plan_rel, sums) if plan_rel in sums else None,
            })
    return dom_file, rows


def copy_problems(folder: Path, dom_file: Path, rows: list[dict]) -> None:
    """A benchmark folder's files: domain.pddl, each row's problem under its split, its reference plan
    (when it has one) under reference-plans/<split>/, and manifest.csv (the ipc2023 and folder imports)."""
    shutil.copyfile(dom_file, folder / "domain.pddl")
    for r in rows:
        (folder / r["split"]).mkdir(exist_ok=True)
        shutil.copyfile(r["source"], folder / r["file"])
        if r["plan"] is not None:
            target = folder / "reference-plans" / r["split"] / f"{r['problem']}.plan"
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(r["plan"], target)
    atomic.write_text(folder / "manifest.csv", manifest.to_csv(rows))


def import_ipc2023(domain: str, source: str | Path, out_dir: str | Path,
                   checksum_file: str | Path | None = None) -> list[dict]:
    """Write the benchmark folder of one IPC 2023 domain from `source` (the benchmarks repository's
    root); `checksum_file` replaces the shipped checksum list (e.g. for a subset). Returns the
    manifest rows. The manifest's `size` is the number of objects (constants included)."""
    domains = BUILTIN[BENCHMARK].domains
    if domain not in domains:
        raise GenplanError(f"benchmark {BENCHMARK!r} has no domain {domain!r}; its domains: {list(domains)}")
    source = Path(source)
    if not source.is_dir():
        raise GenplanError("IPC 2023 benchmark folder not found (ipc2023_dir in the configuration)", source)
    if not (source / domain).is_dir():
        raise GenplanError(f"no folder for domain {domain!r} in the IPC 2023 benchmark folder", source / domain)
    sums = checksums(checksum_file)
    if not any(rel.startswith(domain + "/") for rel in sums):
        raise GenplanError(f"the checksum list has no files of domain {domain!r}",
                           checksum_file or "ipc2023_learning.sha256")
    _check_no_extra(source, domain, sums)
    dom_file, rows = _problems(source, domain, sums)
    bounds = _bounds(source, domain, rows, sums)
    with atomic.output_dir(out_dir, owner="import-ipc2023") as tmp:
        tmp = Path(tmp)
        copy_problems(tmp, dom_file, rows)
        atomic.write_text(tmp / "upper_bounds.csv", csv_text(bounds, BOUNDS_COLUMNS))
    log.info("imported %d %s problems (%s)", len(rows), domain,
             ", ".join(f"{s} {sum(r['split'] == s for r in rows)}" for s in SPLIT_DIRS))
    return [{k: v for k, v in r.items() if k not in ("source", "plan")} for r in rows]
