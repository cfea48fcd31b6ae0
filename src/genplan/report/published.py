"""The published numbers (`published_results.csv`, one number a row) and look-ups into them."""

from __future__ import annotations

import csv
import io
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

    def get(self, table: str, domain: str, split: str, system: str, variant: str, metric: str):
        """(mean, std) as floats (std None when not published), or None. A system published under
        one variant only (Fast Downward's `astar_lmcut_60s`) matches any variant of ours."""
        row = self.index.get((table, domain, split, system, variant, metric))
        if row is None:
            same = [r for k, r in self.index.items() if k[:4] == (table, domain, split, system) and k[5] == metric]
            row = same[0] if len(same) == 1 else None
        if row is None or row["mean"] == "":
            return None
        return float(row["mean"]), (float(row["std"]) if row["std"] != "" else None)
