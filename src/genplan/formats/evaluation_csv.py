"""The evaluation CSV (`<split>.<strategy>.csv`, one row per problem, the same columns for every family):
its columns and its reader, which refuses a file that is not a whole evaluation. Written by
genplan.evaluation.split."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from genplan.errors import GenplanError

COLUMNS = [
    "benchmark", "domain", "split", "system", "variant", "model", "seed", "strategy",
    "problem", "size", "num_objects", "horizon", "solved", "reason", "val", "plan_length",
    "best_known", "quality", "time", "steps", "model_calls", "counters",
]


def read_evaluation(path: str | Path) -> list[dict]:
    """Rows of one evaluation CSV; GenplanError names the file when columns are missing (an
    evaluation of an older genplan: rerun its evaluation), and when it is not a whole evaluation
    (a report must never count a damaged file): empty, without rows, cut short (no final newline, a row short of fields, counters
    that are not JSON), or with a `solved` other than yes or no (a report would count it unsolved); and
    when a problem has two rows, rows are of two jobs, or of problems its split does not have
    (genplan.formats.row_set: every report would count them as the split's)."""
    from genplan.formats import row_set

    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise GenplanError("evaluation CSV not found", path) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise GenplanError(f"cannot read the evaluation CSV: {exc}", path) from None
    if not text.endswith("\n"):
        raise GenplanError("evaluation CSV is empty or cut short (no final newline): rerun its evaluation", path)
    try:
        rows = list(csv.DictReader(io.StringIO(text, newline="")))
    except csv.Error as exc:  # a field past csv's size limit
        raise GenplanError(f"evaluation CSV is not a CSV file: {exc}", path) from None
    missing = set(COLUMNS) - set(rows[0]) if rows else set()
    if missing:
        raise GenplanError(f"evaluation CSV lacks columns {sorted(missing)} (made by an older genplan? "
                           "rerun its evaluation rule)", path)
    if not rows:
        raise GenplanError("evaluation CSV without rows (an evaluation has one row per problem)", path)
    for line, r in enumerate(rows, 2):
        if None in r or any(r[c] is None for c in COLUMNS):
            raise GenplanError(f"row {line} ({r.get('problem')}) has {len(r) - (None in r)} fields, not "
                               f"{len(COLUMNS)}: the CSV is cut short or damaged (rerun its evaluation)", path)
        if r["solved"] not in ("yes", "no"):
            raise GenplanError(f"row {line} ({r['problem']}): solved={r['solved']!r}, not yes or no", path)
        try:
            counters = json.loads(r["counters"] or "{}")
        except (json.JSONDecodeError, RecursionError):  # RecursionError: nested thousands deep
            counters = None
        if not isinstance(counters, dict):  # the reports read it as a mapping
            raise GenplanError(f"row {line} ({r['problem']}): counters are not a JSON object: the CSV is cut "
                               "short or damaged (rerun its evaluation)", path) from None
    row_set.check_rows(rows, path)  # one row per problem of the split, of one job
    return rows
