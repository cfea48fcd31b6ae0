"""The published numbers (`published_results.csv`, one number a row) and look-ups into them.

A row's `note` (optional column) says why a printed number should be read with care, e.g. that
the authors' own result files give another value (`... the authors' result files give 0.67±0.47`,
`... plan_generation_report.csv gives 57/219 = 0.26`); `authors_value` reads that value out.
A cell that another paper prints too, with another number (the state-centric Table 1 copies SymT's
Table 2 and once differs from it), gets a note naming both sources (`Published.note`), found from
the file, so that no table prints either number without a word."""

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
        self.others = [r for r in rows if r["paper"] != paper and r["mean"] != ""]

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
        if row is None or row["mean"] == "":
            return ""
        return "; ".join(n for n in ((row.get("note") or "").strip(), self._disagreement(row)) if n)

    def _disagreement(self, row: dict) -> str:
        """"" unless another paper prints the same cell (domain, split, system, variant, metric) with
        another mean or std; then a note naming both papers, tables and numbers."""
        cell = ("domain", "split", "system", "variant", "metric")
        other = [r for r in self.others if all(r[k] == row[k] for k in cell) and _value(r) != _value(row)]
        if not other:
            return ""
        printed = [f"{r['paper']} Table {r['table']} prints {_shown(r)}" for r in (row, *other)]
        return "the papers disagree on this number: " + ", ".join(printed)


def _value(row: dict) -> tuple:
    return float(row["mean"]), (float(row["std"]) if row["std"] != "" else None)


def _shown(row: dict) -> str:
    mean, std = _value(row)
    return f"{mean:.2f}" + ("" if std is None else f"±{std:.2f}")


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


# The IPC 2023 learning track's published anchors (data/ipc2023_anchors.csv), as the benchmark
# folder's README states them (../shared/benchmarks/ipc2023-learning/README.md): per domain (out of
# 90 problems) and in total (`total`, out of 900: the published sum, not our sum of the rounded
# per-domain values), the IPC quality scores of LAMA, FDSS, GOFAI and Muninn and WL-GOOSE's coverage,
# each row with its budget, memory, hardware and source.
ANCHOR_COLUMNS = ("domain", "system", "metric", "value", "out_of", "budget_s", "memory", "hardware", "source")
ANCHOR_METRICS = ("ipc_quality", "coverage")


def ipc2023_anchors(path: str | Path | None = None) -> list[dict]:
    """The anchors' rows, `value`, `out_of` and `budget_s` as numbers; GenplanError naming the file for
    missing columns, an unknown metric or a value that is not a number."""
    name = path or "ipc2023_anchors.csv"
    text = Path(path).read_text() if path else (resources.files("genplan") / "data" / "ipc2023_anchors.csv").read_text()
    rows = list(csv.DictReader(io.StringIO(text)))
    if not rows or set(ANCHOR_COLUMNS) - set(rows[0]):
        raise GenplanError(f"not an anchors file (columns {list(ANCHOR_COLUMNS)})", name)
    try:
        for r in rows:
            if r["metric"] not in ANCHOR_METRICS:
                raise ValueError(f"metric {r['metric']!r} is not one of {ANCHOR_METRICS}")
            r.update(value=float(r["value"]), out_of=int(r["out_of"]), budget_s=float(r["budget_s"]))
    except ValueError as exc:
        raise GenplanError(f"bad anchor row {r}: {exc}", name) from None
    return rows
