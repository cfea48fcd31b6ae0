"""Marks on the published numbers that carry a note in `published_results.csv` (a printed value
the authors' own files contradict, a value read from their files, ...): the cell shows `†` and the
note is printed below the table, so no table prints such a number without a word."""

from __future__ import annotations

from genplan.report.published import Published

MARK = "†"


class Marks:
    """Collects the notes of the published numbers one table shows, in the order they are shown."""

    def __init__(self, pub: Published, table: str, metric: str = "coverage"):
        self.pub, self.table, self.metric = pub, table, metric
        self.noted: dict[str, str] = {}

    def mark(self, domain: str, split: str, system: str, variant: str, table: str | None = None,
             metric: str | None = None) -> str:
        """`†` when the published number of this cell has a note (recorded for `md`), else ""; the
        table and metric default to the ones given at construction."""
        note = self.pub.note(table or self.table, domain, split, system, variant, metric or self.metric)
        if not note:
            return ""
        self.noted[" ".join(x for x in (domain, split, system, variant) if x)] = note
        return MARK

    def md(self) -> str:
        """The notes as a Markdown list to print below the table ("" when none)."""
        if not self.noted:
            return ""
        return "\n" + "".join(f"- {MARK} {label}: {note}\n" for label, note in self.noted.items())

    def text(self) -> str:
        """The notes as one sentence (a LaTeX caption's tail; "" when none)."""
        return " ".join(f"{MARK} {label}: {note}." for label, note in self.noted.items())
