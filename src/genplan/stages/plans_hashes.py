"""`genplan plans-hashes`: give a plans table made before the `problem_sha256` column the SHA-256 of
the problem files it was planned from, so that its readers can tell its problems from others of the
same names (a table without them gave other problems' lengths as best known: qualities 1.33 and
1.20, without a word).

Where the hashes come from, one of:
- `--evaluations FOLDER`: the stored plans of the evaluations of the same split under FOLDER
  (genplan.formats.stored_plans records the SHA-256 of every problem file an evaluation planned). In the
  pipeline a split's plans and its evaluations read one problems folder, and the plans stage reruns
  whenever that folder is remade, so the evaluated files are the planned ones. Every document must
  agree on each problem's hash, and every problem of the table must have one.
- `--benchmark-dir DIR`: the split's problem files in DIR, for a folder known to hold the files the
  table was planned from (a pinned import: genplan import-ipc2023 or import-paper verify each
  file's checksum).

A row that already has a hash keeps it, and must agree with the source. The table is written with
its own columns and `problem_sha256` added, its rows unchanged and in their order.
"""

from __future__ import annotations

from pathlib import Path

from genplan.errors import GenplanError
from genplan.formats import stored_plans
from genplan.formats.plans_table import HASH, read_table
from genplan.formats.tables import csv_text
from genplan.paths import parse_evaluation_path


def hashes_from_evaluations(folder: str | Path, split: str) -> dict[str, str]:
    """problem -> SHA-256 from the stored plans of every evaluation of `split` under `folder`."""
    folder = Path(folder)
    found: dict[str, tuple[str, Path]] = {}
    docs = sorted(p for p in folder.rglob(f"seed*/{split}.*{stored_plans.SUFFIX}") if _split_of(p) == split)
    if not docs:
        raise GenplanError(f"no stored plans of split {split!r} (<model>/seed<seed>/{split}.<strategy>"
                           f"{stored_plans.SUFFIX}) under this folder", folder)
    for path in docs:
        for name, entry in stored_plans.read(path)["problems"].items():
            sha = entry.get("sha256") if isinstance(entry, dict) else None
            if not isinstance(sha, str) or len(sha) != 64:
                raise GenplanError(f"problem {name!r} has no SHA-256", path)
            if name in found and found[name][0] != sha:
                raise GenplanError(f"problem {name!r} was evaluated from two different files ({found[name][1]} "
                                   "says another SHA-256): the plans table's problems cannot be told", path)
            found.setdefault(name, (sha, path))
    return {name: sha for name, (sha, _) in found.items()}


def _split_of(path: Path) -> str | None:
    try:
        return parse_evaluation_path(path.with_name(path.name.removesuffix(stored_plans.SUFFIX) + ".csv"))["split"]
    except ValueError:
        return None


def hashes_from_folder(benchmark_dir: str | Path, split: str) -> dict[str, str]:
    """problem -> SHA-256 of each problem file of `split` in a benchmark folder's manifest."""
    from genplan.formats import manifest

    rows = manifest.read(Path(benchmark_dir), split)
    if not rows:
        raise GenplanError(f"no problems of split {split!r} in the manifest", Path(benchmark_dir) / "manifest.csv")
    return {r["problem"]: stored_plans.sha256(r["path"]) for r in rows}


def add_hashes(table_path: str | Path, sums: dict[str, str], source: str) -> str:
    """The plans table's text with `problem_sha256` from `sums` (named `source` in errors)."""
    table = read_table(table_path)
    if not table:
        raise GenplanError("plans table without rows", table_path)
    absent = sorted({r["problem"] for r in table} - set(sums))
    if absent:
        raise GenplanError(f"{len(absent)} problem(s) of the table have no SHA-256 in {source}, e.g. {absent[:3]}",
                           table_path)
    out = []
    for line, r in enumerate(table, 2):
        have = r.get(HASH) or ""
        if have and have != sums[r["problem"]]:
            raise GenplanError(f"row {line} ({r['problem']}): its problem_sha256 {have[:12]}... is not the "
                               f"{sums[r['problem']][:12]}... of {source}", table_path)
        out.append({**r, HASH: sums[r["problem"]]})
    columns = list(table[0]) + ([HASH] if HASH not in table[0] else [])
    return csv_text(out, columns)
