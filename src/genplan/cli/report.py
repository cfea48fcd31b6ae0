"""`genplan report`: a paper's tables and figures from the result files (genplan.report)."""

from __future__ import annotations

from pathlib import Path

from genplan.cli.types import Command, arg


def cmd_report(a) -> int:
    """Refuses a results root that is not a folder (a typo wrote empty tables before), or one without any
    evaluation CSV, before writing anything."""
    from genplan.errors import GenplanError
    from genplan.paths import Layout
    from genplan.report import build_report

    if not Path(a.results).is_dir():
        raise GenplanError("--results: no such results folder (nothing was written)", a.results)
    if not Layout(a.results).evaluation_files():  # header-only tables, or a bare max() error, before
        raise GenplanError("--results: no evaluation CSVs (evaluation/<benchmark>/<domain>/<model>/seed<seed>/"
                           "<split>.<strategy>.csv): nothing to report (nothing was written)", a.results)
    build_report(a.paper, Path(a.results), Path(a.out_dir or a.results), a.published)
    return 0


COMMANDS = (
    Command("report", cmd_report, "a paper's tables and figures from the result files", (
        arg("paper", help="the report to build: one of genplan.report.registry.REPORTS (state-centric, "
            "symt, plangpt, diffusion, leaderboard, ipc2023, budget)"),
        arg("--results", default="results", help="the results root to read"),
        arg("--out-dir", default=None, help="where tables/ and figures/ go (default: --results)"),
        arg("--published", default=None, help="published_results.csv (default: the packaged copy)"))),
)
