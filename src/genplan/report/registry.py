"""The reports, the files each writes and the results each reads, in one place: the workflow makes
one report rule per entry from here (workflow/rules/report.smk), and each report's `build`
returns exactly its outputs (tested). Importing this module is cheap (no matplotlib): Snakemake
reads it when it parses the workflow.

An entry (`Report`) names its rule, its build module, its tables and figures, and what it reads:
the evaluation CSVs of the models of `reads` (family -> what else of each model: its training
`summaries` and `logs`; `ALL`: every registered family), and the plans tables (with anytime LAMA's
beside them) of `plans` splits: `every` evaluation split (genplan.paths.EVAL_SPLITS) or the
`evaluated` ones (the config's evaluation.splits), and (`bounds`) the problems folders of the benchmarks
that ship best known costs (`BOUNDED`: their upper_bounds.csv). A report runs where the config has a
model of one of its `subjects` (one without subjects: in every configuration) and, for one with
`benchmarks`, only where the config runs one of them (`runs`). A model named `<name>_b<NNN>` (`BUDGET_MODEL`)
is a point of a budget curve (workflow/configs/budget-cpu.yaml), no paper's configuration: it counts only
for a report with `budget`, which runs only where the config has one (the papers' configurations have
none: their DAGs are as before)."""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass

from genplan.benchmarks import BUILTIN
from genplan.paths import Layout

ALL = "*"  # in `reads`: every registered family
SUMMARIES, LOGS = "summaries", "logs"
BUDGET_MODEL = re.compile(r"_b\d{3}$")  # <family>_b<nominal CPU-minutes>: a point of a budget curve


@dataclass(frozen=True)
class Report:
    rule: str  # the workflow's rule
    module: str  # its `build(results, out_dir, published)`
    category: str  # its heading in `snakemake --report`
    tables: list[tuple[str, str]]  # (name, extension) under <root>/tables/
    figures: list[tuple[str, str]]  # (name, extension) under <root>/figures/
    reads: dict[str, tuple[str, ...]]  # family (or ALL) -> SUMMARIES and/or LOGS beside the evaluation CSVs
    subjects: tuple[str, ...] = ()  # it runs where the config has a model of one of these families (): always
    plans: str | None = None  # the plans tables of `every` evaluation split or of the `evaluated` ones
    benchmarks: tuple[str, ...] = ()  # it runs only where the config has one of these benchmarks (): any
    bounds: bool = False  # it reads the best known costs of the BOUNDED benchmarks
    budget: bool = False  # it reads the budget curves' models (BUDGET_MODEL) and runs only where there is one


# the papers' reports: their tables set our numbers beside the papers' published ones, measured on the
# papers' instances or our generated ones; a configuration of other benchmarks only (ipc2023) never builds them
PAPERS_BENCHMARKS = ("generated", "paper")
# benchmarks whose problems folder ships upper_bounds.csv (genplan.paths.Layout.upper_bounds): ipc2023
BOUNDED = tuple(name for name, bench in BUILTIN.items() if bench.bounds)
# the benchmarks scored as the IPC scores (coverage, quality against the best known cost, agile): ipc2023
AGILE = tuple(name for name, bench in BUILTIN.items() if "agile" in bench.scoring)


_SC = "state-centric"
BUDGET_SYSTEMS = ("symt_e", "symt_ed", "plangpt", "diffusion")  # the budget report's systems (summary `system`)
REPORTS = {
    # Tables 1 and 3, Figures 2-4, the quality, decoders, agreement and statics tables. Table 1 copies
    # the sequence models' columns from SymT's; Table 3 reads the transition summaries.
    _SC: Report(
        rule="report_state_centric", module="genplan.report.papers.state_centric",
        category="2. State-centric transition models",
        tables=[(f"{_SC}-table{n}", ext) for n in (1, 3) for ext in ("md", "tex", "csv")]
        + [(f"{_SC}-{name}", ext) for name in ("quality", "decoders", "agreement") for ext in ("md", "csv")]
        + [(f"{_SC}-agreement-cells", "csv")]
        + [(f"{_SC}-statics", ext) for ext in ("md", "csv")] + [(f"{_SC}-statics-verdict", "csv")]
        + [(f"{_SC}-best-known", "csv")],
        figures=[(f"{_SC}-figure{n}", ext) for n in (2, 3, 4) for ext in ("png", "pdf")],
        reads={"transition": (SUMMARIES,), "plangpt": (), "symt": ()}, subjects=("transition",), plans="every", benchmarks=PAPERS_BENCHMARKS),
    # SymT's Table 2 (coverage of the sequence models under each decoding) and Table 1 (parameter
    # counts), the stability and ablation tables and the loss curves.
    "symt": Report(
        rule="report_symt", module="genplan.report.papers.symt", category="3. SymT",
        tables=[("symt-table2", ext) for ext in ("csv", "md", "tex")] + [("symt-table1", ext) for ext in ("csv", "md")]
        + [(f"symt-{name}", ext) for name in ("stability", "ablations") for ext in ("csv", "md")],
        figures=[("symt-loss-curves", ext) for ext in ("png", "pdf")],
        reads={"plangpt": (SUMMARIES,), "symt": (SUMMARIES,)}, subjects=("plangpt", "symt"), benchmarks=PAPERS_BENCHMARKS),
    # Plan diffusion's Table 1 (beside PlanGPT greedy and SymT^ED greedy), Table 2 (an unmasking
    # trace committed under <results>/traces/, from `genplan solve --trace`), Figure 4 (coverage and
    # time per plan against T on Blocksworld interpolation, both schedules).
    "diffusion": Report(
        rule="report_diffusion", module="genplan.report.papers.diffusion", category="5. Plan diffusion",
        tables=[("diffusion-table1", ext) for ext in ("csv", "md", "tex")] + [("diffusion-table2", "md"),
                                                                              ("diffusion-figure4", "csv")],
        figures=[("diffusion-figure4", ext) for ext in ("png", "pdf")],
        reads={"diffusion": (), "plangpt": (), "symt": ()}, subjects=("diffusion",), benchmarks=PAPERS_BENCHMARKS),
    # PlanGPT's Table 1 (CE vs CES under greedy, multibeam and top-p decoding), Table 2 (top-p with
    # CES on the extrapolation split, against the IPC sets), Table 3 (coverage, IPC agile and quality
    # of PlanGPT, the learned heuristic and the plans tables' planners on the interpolation split) and Figure 3 (validation loss and
    # coverage per epoch with both stop points).
    "plangpt": Report(
        rule="report_plangpt", module="genplan.report.papers.plangpt", category="4. PlanGPT",
        tables=[(f"plangpt-table{n}", ext) for n in (1, 2, 3) for ext in ("csv", "md")]
        + [("plangpt-figure3-stops", "csv")],
        figures=[("plangpt-figure3", ext) for ext in ("png", "pdf")],
        reads={"plangpt": (SUMMARIES, LOGS), "heuristic": ()}, subjects=("plangpt",), plans="evaluated",
        benchmarks=PAPERS_BENCHMARKS),
    # One leaderboard for every system of the pipeline: coverage, quality against the best
    # known plan, median time, model size, training time and device; and the state-centric Table 4
    # (model sizes) from the same numbers. Its figures (genplan.report.leaderboard_figure): coverage,
    # and quality with median time, of each system's best configuration per benchmark, domain and split
    # (the SVG for the HTML report's summary page), and the best learned beside the best classical planner.
    "leaderboard": Report(
        rule="leaderboard", module="genplan.report.leaderboard", category="1. Leaderboard",
        tables=[("leaderboard", ext) for ext in ("md", "csv")] + [("model-sizes", ext) for ext in ("md", "csv")]
        + [("learned-vs-classical", "csv")],
        figures=[("leaderboard", ext) for ext in ("png", "pdf", "svg")] + [("leaderboard-quality", ext)
                                                                         for ext in ("png", "pdf")],
        reads={ALL: (SUMMARIES,)}, plans="evaluated", bounds=True),
    # The IPC 2023 learning track: coverage, IPC quality and agile score per domain, level and
    # planner (Fast Downward's configurations and every learned model) beside the published anchors, and
    # problems solved against time (genplan.report.papers.ipc2023).
    "ipc2023": Report(
        rule="report_ipc2023", module="genplan.report.papers.ipc2023", category="6. IPC 2023 learning track",
        tables=[(f"ipc2023-{name}", ext) for name in ("coverage", "levels", "domains", "learned-vs-lama")
                for ext in ("csv", "md")] + [("ipc2023-lab", "md"), ("ipc2023-errors", "md"), ("ipc2023-taskwise", "csv")],
        figures=[("ipc2023-coverage-time", ext) for ext in ("png", "pdf")],
        reads={ALL: ()}, plans="evaluated", benchmarks=AGILE, bounds=True),
    # Budget curves: per sequence system, coverage on the training, validation and test splits
    # and the validation loss of the models trained at increasing budgets (`<family>_b<minutes>`) against
    # the measured training CPU-minutes (genplan.report.budget).
    "budget": Report(
        rule="report_budget", module="genplan.report.budget", category="7. Budget curves",
        tables=[(f"budget-{s}", ext) for s in BUDGET_SYSTEMS for ext in ("csv", "md")],
        figures=[(f"budget-{s}", ext) for s in BUDGET_SYSTEMS for ext in ("png", "pdf")],
        reads={"symt": (SUMMARIES,), "plangpt": (SUMMARIES,), "diffusion": (SUMMARIES,)},
        subjects=("symt", "plangpt", "diffusion"), budget=True),
}


def _report(paper: str) -> Report:
    if paper not in REPORTS:
        raise ValueError(f"Unknown value {paper=}. Must be from {list(REPORTS)}")
    return REPORTS[paper]


def outputs(paper: str, root: str = "results") -> list[str]:
    """Every file the paper's report writes under the results root `root`."""
    rep, lay = _report(paper), Layout(root)
    return [lay.table(n, e) for n, e in rep.tables] + [lay.figure(n, e) for n, e in rep.figures]


def is_budget_model(name: str) -> bool:
    """Whether a model entry's name makes it a point of a budget curve (BUDGET_MODEL)."""
    return bool(BUDGET_MODEL.search(name))


def runs(paper: str, benchmarks, families, budget_families=()) -> bool:
    """Whether the report runs in a configuration of these benchmarks and model families (module doc):
    `families` those of the models other than the budget curves' points, `budget_families` those of
    the budget points (`split_budget` divides a config's models so)."""
    rep = _report(paper)
    if rep.benchmarks and not set(rep.benchmarks) & set(benchmarks):
        return False
    mine = set(budget_families) if rep.budget else set(families)
    if rep.budget and not mine:
        return False
    return not rep.subjects or bool(set(rep.subjects) & mine)


def split_budget(models: dict) -> tuple[set[str], set[str]]:
    """The families of a config's model entries (name -> entry), the budget curves' points apart:
    (families of the others, families of the budget points), `runs`' last two arguments."""
    others = {e["family"] for m, e in models.items() if not is_budget_model(m)}
    return others, {e["family"] for m, e in models.items() if is_budget_model(m)}


def bounds_inputs(paper: str, root: str, benchmarks, domains) -> list[str]:
    """The problems folders (holding upper_bounds.csv) the report reads: of the BOUNDED benchmarks among
    `benchmarks`, every domain, for a report with `bounds`; else none."""
    if not _report(paper).bounds:
        return []
    lay = Layout(root)
    return [lay.problems(b, d) for b in benchmarks if b in BOUNDED for d in domains]


def builder(paper: str):
    return importlib.import_module(_report(paper).module).build
