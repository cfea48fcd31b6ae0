"""The reports and the files each writes, in one place: the workflow's report rules take their
outputs from here, and each report's `build` returns exactly these (tested). Importing this
module is cheap (no matplotlib): Snakemake reads it when it parses the workflow."""

from __future__ import annotations

import importlib

from genplan.paths import Layout

_SC = "state-centric"
REPORTS = {
    _SC: {
        "module": "genplan.report.papers.state_centric",
        "tables": [(f"{_SC}-table{n}", ext) for n in (1, 3) for ext in ("md", "tex", "csv")]
        + [(f"{_SC}-{name}", ext) for name in ("quality", "decoders", "agreement") for ext in ("md", "csv")]
        + [(f"{_SC}-agreement-cells", "csv")]
        + [(f"{_SC}-statics", ext) for ext in ("md", "csv")] + [(f"{_SC}-statics-verdict", "csv")],
        "figures": [(f"{_SC}-figure{n}", ext) for n in (2, 3, 4) for ext in ("png", "pdf")],
    },
    "symt": {
        "module": "genplan.report.papers.symt",
        "tables": [("symt-table2", ext) for ext in ("csv", "md", "tex")] + [("symt-table1", ext) for ext in ("csv", "md")]
        + [(f"symt-{name}", ext) for name in ("stability", "ablations") for ext in ("csv", "md")],
        "figures": [("symt-loss-curves", ext) for ext in ("png", "pdf")],
    },
    "diffusion": {
        "module": "genplan.report.papers.diffusion",
        "tables": [("diffusion-table1", ext) for ext in ("csv", "md", "tex")] + [("diffusion-table2", "md"),
                                                                                 ("diffusion-figure4", "csv")],
        "figures": [("diffusion-figure4", ext) for ext in ("png", "pdf")],
    },
    "plangpt": {
        "module": "genplan.report.papers.plangpt",
        "tables": [(f"plangpt-table{n}", ext) for n in (1, 2) for ext in ("csv", "md")] + [("plangpt-figure3-stops", "csv")],
        "figures": [("plangpt-figure3", ext) for ext in ("png", "pdf")],
    },
    "leaderboard": {  # every system on the same instances, and the state-centric Table 4 (model sizes)
        "module": "genplan.report.leaderboard",
        "tables": [("leaderboard", ext) for ext in ("md", "csv")] + [("model-sizes", ext) for ext in ("md", "csv")],
        "figures": [("leaderboard", ext) for ext in ("png", "pdf")],
    },
}


def _report(paper: str) -> dict:
    if paper not in REPORTS:
        raise ValueError(f"Unknown value {paper=}. Must be from {list(REPORTS)}")
    return REPORTS[paper]


def outputs(paper: str, root: str = "results") -> list[str]:
    """Every file the paper's report writes under the results root `root`."""
    rep, lay = _report(paper), Layout(root)
    return [lay.table(n, e) for n, e in rep["tables"]] + [lay.figure(n, e) for n, e in rep["figures"]]


def builder(paper: str):
    return importlib.import_module(_report(paper)["module"]).build
