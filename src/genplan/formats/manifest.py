"""The manifest of a benchmark folder: one row a problem (problem, split, file, size, ...)."""

from __future__ import annotations

import csv
from pathlib import Path

from genplan.errors import GenplanError
from genplan.formats.tables import csv_text
from genplan.paths import ALL_SPLITS, SPLITS  # noqa: F401 (SPLITS: readers of manifests import it from here)

COLUMNS = ("problem", "split", "file", "size", "num_objects", "seed", "canonical")


def check_split(name: str) -> str:
    if name not in ALL_SPLITS:
        raise ValueError(f"Unknown value {name=}. Must be from {list(ALL_SPLITS)}")
    return name


def to_csv(rows: list[dict]) -> str:
    return csv_text(rows, COLUMNS)


def read(benchmark_dir: str | Path, split: str | None = None) -> list[dict]:
    """Rows of `<benchmark_dir>/manifest.csv`, optionally of one split; paths made absolute."""
    benchmark_dir = Path(benchmark_dir)
    path = benchmark_dir / "manifest.csv"
    if not path.is_file():
        raise GenplanError("manifest.csv missing: not a benchmark folder made by genplan", path)
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    if rows and set(COLUMNS) - set(rows[0]):
        raise GenplanError(f"manifest lacks columns {sorted(set(COLUMNS) - set(rows[0]))}", path)
    if split is not None:
        check_split(split)
        rows = [r for r in rows if r["split"] == split]
    for r in rows:
        r["path"] = benchmark_dir / r["file"]
        r["size"] = int(r["size"])
        r["num_objects"] = int(r["num_objects"])
    return rows


def incomplete(benchmark_dir: str | Path) -> str | None:
    """Why an existing benchmark folder is not a whole one (None where it is): no domain.pddl, no
    manifest.csv, or a problem file its manifest names missing. A workflow takes an existing problems
    folder as its rule's finished output; a folder holding only what a results root commits (a
    manifest, best known costs) would send planning to a folder without problems."""
    benchmark_dir = Path(benchmark_dir)
    for name in ("domain.pddl", "manifest.csv"):
        if not (benchmark_dir / name).is_file():
            return f"no {name}"
    try:
        rows = read(benchmark_dir)
    except (GenplanError, csv.Error, KeyError, ValueError) as exc:
        return f"its manifest is not readable ({exc})"
    missing = [r["file"] for r in rows if not r["path"].is_file()]
    return f"{len(missing)} problem file(s) its manifest names are missing, e.g. {missing[0]}" if missing else None
