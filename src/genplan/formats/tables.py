"""Writing tables: long CSV plus a Markdown rendering (no numbers are computed here)."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from genplan import atomic
from genplan.errors import GenplanError


def csv_text(rows: list[dict], columns) -> str:
    """CSV text of `rows` with exactly `columns` (other keys ignored)."""
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(columns), lineterminator="\n", extrasaction="ignore")
    writer.writeheader()
    writer.writerows(rows)
    return buf.getvalue()


def read_csv(path: str | Path, what: str = "table") -> list[dict]:
    """The rows of a CSV file with a header; GenplanError naming the file (and `what` it should be)
    when it is missing, unreadable, not UTF-8 text or not CSV."""
    path = Path(path)
    if not path.is_file():
        raise GenplanError(f"{what} not found", path)
    try:
        with open(path, newline="", encoding="utf-8") as fh:
            return list(csv.DictReader(fh))
    except UnicodeDecodeError as exc:
        raise GenplanError(f"{what} is not UTF-8 text (byte at offset {exc.start})", path) from None
    except csv.Error as exc:
        raise GenplanError(f"{what} is not a CSV file: {exc}", path) from None
    except OSError as exc:
        raise GenplanError(f"cannot read the {what}: {exc.strerror or exc}", path) from None


def write_csv(path: str | Path, rows: list[dict], columns: list[str]) -> None:
    atomic.write_text(path, csv_text(rows, columns))


def markdown(rows: list[dict], columns: list[str], headers: list[str] | None = None) -> str:
    headers = headers or columns
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    for r in rows:
        lines.append("| " + " | ".join(str(r.get(c, "")) for c in columns) + " |")
    return "\n".join(lines) + "\n"


def compress_ints(values) -> str:
    """`1, 3-5, 8` for a set of integers."""
    vals = sorted(set(int(v) for v in values))
    parts, i = [], 0
    while i < len(vals):
        j = i
        while j + 1 < len(vals) and vals[j + 1] == vals[j] + 1:
            j += 1
        parts.append(str(vals[i]) if i == j else f"{vals[i]}-{vals[j]}")
        i = j + 1
    return ", ".join(parts)
