"""Papers' tables and figures, built only from the pipeline's result files (evaluation CSVs,
plans tables, training summaries) and the published numbers, so that they can be regenerated
from committed results without running anything else.

    build_report("state-centric", Path("results"), Path("results"))

Shared code: `collect` (reading result files), `aggregate` (coverage over seeds), `render`
(Markdown and LaTeX), `figures`, `published`; one module per paper under `papers/`; the reports
and their output files in `registry`.
"""

from __future__ import annotations

from pathlib import Path

from genplan.report.registry import REPORTS, builder


def build_report(paper: str, results: Path, out_dir: Path, published: str | Path | None = None) -> list[Path]:
    """Write one paper's tables and figures under `out_dir`/tables and `out_dir`/figures."""
    return builder(paper)(Path(results), Path(out_dir), published)


__all__ = ["REPORTS", "build_report"]
