"""Which problems an evaluation CSV's rows may be: one row per problem of its split, of one job.

An evaluation CSV is one (benchmark, domain, model, seed, split, strategy) job with one row per
problem of the split (genplan.evaluation.split). A row repeated, a row of another job, or a row of a
problem the split does not have would be counted by every report as if it were the split's: a
one-problem split's row three times read "3 solved of 3". Every reader of evaluation CSVs
(genplan.formats.evaluation_csv.read_evaluation) refuses them naming the file; `genplan validate --evaluation`
also asks for a row of every problem of the split (`missing_rows`).

The split's problems are its benchmark folder's manifest (`manifest.csv`: problem, split, ...);
for a CSV in a results layout whose problems folder is not there (problem files are not committed),
the split's plans table, which has rows of every problem of the split.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from genplan.errors import GenplanError

JOB = ("benchmark", "domain", "model", "seed", "split", "strategy")  # one value in every row of a CSV


def check_rows(rows: list[dict], path: str | Path) -> None:
    """GenplanError naming the CSV when a problem has more than one row, rows disagree on the job's
    columns, a column disagrees with the file's name (<split>.<strategy>.csv in seed<seed>), or a
    row names a problem that the split does not have (where the split's problems can be found)."""
    first: dict[str, int] = {}
    for line, r in enumerate(rows, 2):
        if r["problem"] in first:
            raise GenplanError(f"problem {r['problem']!r} has rows {first[r['problem']]} and {line}: an evaluation "
                               "has one row per problem (a row repeated or two evaluations joined?)", path)
        first[r["problem"]] = line
    for column in JOB:
        values = sorted({r[column] for r in rows})
        if len(values) > 1:
            raise GenplanError(f"rows of more than one job: column {column} holds {values[:4]} (an evaluation is "
                               "one job's)", path)
    named = _named_by_path(path)
    for column, want in named.items():
        if rows and rows[0][column] != want:
            raise GenplanError(f"column {column} is {rows[0][column]!r}, the file's name says {want!r}", path)
    problems = split_problems(path, rows[0]) if rows else None
    if problems is not None:
        foreign = sorted(set(first) - problems)
        if foreign:
            raise GenplanError(f"{len(foreign)} row(s) of problems that split {rows[0]['split']!r} does not have, "
                               f"e.g. {foreign[:3]}", path)


def missing_rows(rows: list[dict], problems: set[str]) -> list[str]:
    """The split's problems that have no row."""
    return sorted(problems - {r["problem"] for r in rows})


def _named_by_path(path: str | Path) -> dict[str, str]:
    from genplan.paths import parse_evaluation_path

    try:
        where = parse_evaluation_path(Path(path))
    except ValueError:
        return {}
    return {k: str(where[k]) for k in ("split", "strategy", "seed") if where.get(k) is not None}


def manifest_problems(benchmark_dir: str | Path, split: str) -> set[str] | None:
    """The problems of `split` in a benchmark folder's manifest, or None where it has none."""
    manifest = Path(benchmark_dir) / "manifest.csv"
    if not manifest.is_file():
        return None
    rows = list(csv.DictReader(io.StringIO(manifest.read_text(encoding="utf-8"), newline="")))
    return {r["problem"] for r in rows if r.get("split") == split}


def split_problems(path: str | Path, row: dict) -> set[str] | None:
    """The problems of the row's split for a CSV in a results layout (the manifest, else the plans
    table), or None where neither can be found (a CSV moved elsewhere)."""
    from genplan.formats import stored_plans
    from genplan.paths import Layout

    root = stored_plans.results_root(Path(path).absolute())
    if root is None:
        return None
    layout = Layout(str(root))
    found = manifest_problems(layout.problems(row["benchmark"], row["domain"]), row["split"])
    if found is not None:
        return found
    table = Path(layout.plans_table(row["benchmark"], row["domain"], row["split"]))
    if not table.is_file():
        return None
    with table.open(encoding="utf-8", newline="") as fh:
        return {r["problem"] for r in csv.DictReader(fh) if r.get("problem")}
