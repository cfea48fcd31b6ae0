"""`genplan report`: a paper's tables and figures from the result files (genplan.report)."""

from __future__ import annotations

import sys
from pathlib import Path

from genplan.cli import writes
from genplan.cli.types import Command, arg


def cmd_report(a) -> int:
    """Refuses a results root that is not a folder (a typo wrote empty tables before), or one without any
    evaluation CSV, before writing anything; names what a partial root lacks (genplan.report.completeness)."""
    from genplan.errors import GenplanError
    from genplan.paths import Layout
    from genplan.report import build_report

    if not Path(a.results).is_dir():
        raise GenplanError("--results: no such results folder (nothing was written)", a.results)
    if not Layout(a.results).evaluation_files():  # header-only tables, or a bare max() error, before
        raise GenplanError("--results: no evaluation CSVs (evaluation/<benchmark>/<domain>/<model>/seed<seed>/"
                           "<split>.<strategy>.csv): nothing to report (nothing was written)", a.results)
    from genplan.report.completeness import warnings

    for line in warnings(Path(a.results)):  # the tables are still written, from what there is
        print(f"genplan: WARNING: {line}", file=sys.stderr)
    build_report(a.paper, Path(a.results), Path(a.out_dir or a.results), a.published)
    return 0


PARTS = ("tables", "figures")  # what the report writes under --out-dir, named files each, never the folder


def _report_reads(a, results: str):
    """What a report reads: everything under --results but the folders reports write."""
    root = Path(results)
    for entry in sorted(root.iterdir()) if root.is_dir() else ():
        if entry.name not in PARTS:
            yield "results", entry, entry.is_dir()


COMMANDS = (
    Command("report", cmd_report, "a paper's tables and figures from the result files", (
        arg("paper", path=writes.NOT_PATH, help="the report to build: one of genplan.report.registry.REPORTS (state-centric, "
            "symt, plangpt, diffusion, leaderboard, ipc2023, budget)"),
        arg("--results", default="results", path=writes.PathArg("root", also=_report_reads),
            help="the results root to read"),
        arg("--out-dir", default=None, path=writes.under(*PARTS, default=lambda a: a.results),
            help="where tables/ and figures/ go (default: --results)"),
        arg("--published", default=None, path=writes.READ, help="published_results.csv (default: the packaged copy)"))),
)
