"""The plans table (`<split>.csv` of the plans stage): its columns, its reader, and the checks every
consumer makes of it: rows of the split's problems only, planned from the files of those names now
(`problem_sha256`), and the best-known lengths it gives. Written by genplan.stages.plans."""

from __future__ import annotations

import logging
from pathlib import Path

from genplan.errors import GenplanError

# `problem_sha256`: the SHA-256 of the problem file each row was planned from (problems
# regenerated with another seed keep their names; a table of the old ones must not pass for the new ones)
HASH = "problem_sha256"


# `time` is a run's wall-clock seconds; `cpu_time` (CPU seconds of its whole process group) and
# `peak_memory_mb` are what the resource protocol measured (genplan.limits), empty in tables made before it
MEASURES = ("cpu_time", "peak_memory_mb", "expansions")


COLUMNS = ("problem", "config", "status", "plan_length", "time", "valid", "reason", "plan_file", HASH, *MEASURES)


REQUIRED = COLUMNS[:8]  # a table made before the hash and measure columns (the committed ones) is read without them


def read_table(path: str | Path) -> list[dict]:
    """A plans table's rows; GenplanError naming the file when missing, not UTF-8 or not CSV."""
    from genplan.formats.tables import read_csv

    return read_csv(path, "plans table")


def check_split_problems(table: list[dict], problems: set[str], split: str, path: str | Path) -> None:
    """GenplanError naming the plans table when it names a problem that is not one of the split's
    `problems`: another domain's or split's table (its rows would join nothing: blank qualities,
    or zero trajectories, and exit 0)."""
    foreign = sorted({r.get("problem") for r in table} - problems)
    if foreign:
        raise GenplanError(f"not this split's plans table: {len(foreign)} problem(s) not in split {split!r} "
                           f"of the benchmark, e.g. {foreign[:3]}", path)


def with_hashes(table: list[dict], rows: list[dict]) -> list[dict]:
    """The table's rows, each with the SHA-256 of its problem's file (`rows`: the manifest's, with paths;
    blank for a file that cannot be read)."""
    from genplan.resume import file_sha256

    sums = {r["problem"]: file_sha256(r["path"]) or "" for r in rows}
    # the measures are blank in rows of no planner run (reference plans, skipped or malformed problems)
    return [{**dict.fromkeys(MEASURES, ""), **r, HASH: sums.get(r["problem"], "")} for r in table]


def check_problem_hashes(table: list[dict], rows: list[dict], path: str | Path) -> None:
    """GenplanError naming the plans table (and the problem file) when a row's `problem_sha256` is
    not the SHA-256 of the problem file of that name now: the problems were regenerated or edited
    after planning, and the table's plans and best-known lengths belong to other problems. Rows
    without a hash (a table made before the column existed) cannot be checked: a warning names the
    table and the command that adds the hashes (`genplan plans-hashes`)."""
    from genplan.resume import file_sha256

    files = {r["problem"]: r["path"] for r in rows}
    unhashed = [r.get("problem") for r in table if not r.get(HASH) and r.get("problem") in files]
    if unhashed:  # its lengths are taken for whatever problems now have these names: said, loudly
        split = rows[0]["split"] if rows else "<split>"
        logging.getLogger("genplan").warning(
            "%s: made before the problem_sha256 column (%d row(s) without it, e.g. %r): its plans and best-known "
            "lengths cannot be told from other problems' of the same names. Add the SHA-256 of the files it was "
            "planned from: genplan plans-hashes --table %s --split %s --evaluations <the folder of this split's "
            "evaluations> --out <new table> (or --benchmark-dir <a pinned import>), or rerun the plans stage",
            path, len(unhashed), unhashed[0], path, split)
    sums: dict[str, str | None] = {}
    for r in table:
        want, name = r.get(HASH), r.get("problem")
        if not want or name not in files:
            continue
        if name not in sums:
            sums[name] = file_sha256(files[name])
        if sums[name] != want:
            raise GenplanError(f"made from other problems: {name!r} was planned from a file of SHA-256 {want[:12]}..., "
                               f"but {files[name]} now has {str(sums[name])[:12]}... (regenerated or edited since "
                               "planning: rerun the plans stage for this split)", path)


def best_known_lengths(table: list[dict]) -> dict[str, int]:
    """Shortest VAL-valid plan per problem over every planner run (A*, GBFS, LAMA, reference)."""
    best: dict[str, int] = {}
    for r in table:
        if r["valid"] == "yes":
            n = int(r["plan_length"])
            best[r["problem"]] = min(n, best.get(r["problem"], n))
    return best
