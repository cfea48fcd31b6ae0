"""Papers' tables and figures, built only from the pipeline's result files (evaluation CSVs,
plans tables, training summaries) and the published numbers, so that they can be regenerated
from committed results without running anything else.

    build_report("state-centric", Path("results"), Path("results"))
"""

from __future__ import annotations

from pathlib import Path

from genplan.report.papers import state_centric

REPORTS = {"state-centric": state_centric.build}


def build_report(paper: str, results: Path, out_dir: Path, published: str | Path | None = None) -> list[Path]:
    """Write one paper's tables and figures under `out_dir`/tables and `out_dir`/figures."""
    if paper not in REPORTS:
        raise ValueError(f"Unknown value {paper=}. Must be from {list(REPORTS)}")
    return REPORTS[paper](Path(results), Path(out_dir), published)
