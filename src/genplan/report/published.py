"""The published numbers (`published_results.csv`, one number a row) and look-ups into them.

A row's `note` (optional column) says why a printed number should be read with care, e.g. that
the authors' own result files give another value (`... the authors' result files give 0.67±0.47`,
`... plan_generation_report.csv gives 57/219 = 0.26`); `authors_value` reads that value out."""

from __future__ import annotations

import csv
import io
import re
from importlib import resources
from pathlib import Path

from genplan.errors import GenplanError


class Published:
    """Rows of one paper; `get` finds the number of a table cell (mean, std; None when absent)."""

    def __init__(self, rows: list[dict], paper: str):
        self.rows = [r for r in rows if r["paper"] == paper]
        self.index = {(r["table"], r["domain"], r["split"], r["system"], r["variant"], r["metric"]): r
                      for r in self.rows}

    @classmethod
    def load(cls, paper: str, path: str | Path | None = None) -> "Published":
        if path is None:
            text = (resources.files("genplan") / "data" / "published_results.csv").read_text()
        else:
            if not Path(path).is_file():
                raise GenplanError("published results file not found", path)
            text = Path(path).read_text()
        rows = list(csv.DictReader(io.StringIO(text)))
        need = {"paper", "table", "domain", "split", "system", "variant", "metric", "mean", "std"}
        if not rows or need - set(rows[0]):
            raise GenplanError(f"not a published results file (columns {sorted(need)})", path or "published_results.csv")
        return cls(rows, paper)

    def _find(self, table: str, domain: str, split: str, system: str, variant: str, metric: str) -> dict | None:
        row = self.index.get((table, domain, split, system, variant, metric))
        if row is None:
            same = [r for k, r in self.index.items() if k[:4] == (table, domain, split, system) and k[5] == metric]
            row = same[0] if len(same) == 1 else None
        return row

    def get(self, table: str, domain: str, split: str, system: str, variant: str, metric: str):
        """(mean, std) as floats (std None when not published), or None. A system published under
        one variant only (Fast Downward's `astar_lmcut_60s`) matches any variant of ours."""
        row = self._find(table, domain, split, system, variant, metric)
        if row is None or row["mean"] == "":
            return None
        return float(row["mean"]), (float(row["std"]) if row["std"] != "" else None)

    def note(self, table: str, domain: str, split: str, system: str, variant: str, metric: str) -> str:
        """The published number's note ("" when none, or no such number), found as `get` finds it."""
        row = self._find(table, domain, split, system, variant, metric)
        return "" if row is None or row["mean"] == "" else (row.get("note") or "").strip()


# "the authors' result files give 0.67±0.47", "the authors' plan_generation_report.csv gives 9/18 = 0.50"
_AUTHORS = re.compile(r"authors'[^;:]*?\bgives?\s+(?:(\d+)\s*/\s*(\d+)\s*=\s*)?(\d+(?:\.\d+)?)")


def authors_value(note: str) -> float | None:
    """The value the authors' own result files give, where a note says so (a fraction's exact value
    where it gives one: `57/219 = 0.26` -> 0.2603), else None."""
    m = _AUTHORS.search(note or "")
    if m is None:
        return None
    if m.group(1):
        return int(m.group(1)) / int(m.group(2))
    return float(m.group(3))
