"""The leaderboard's figures, each one screen, and the learned-vs-classical table, built
from the leaderboard's rows only (the rows of tables/leaderboard.csv; `read_rows` reads that file
back, so they need nothing else):

- figures/leaderboard.{png,pdf,svg}: coverage as colour and the solved count as text, one heatmap
  per benchmark: a row per system, columns the (domain, split) cells and the row's mean (the SVG is
  drawn inline on the HTML report's summary page, workflow/report/workflow.rst); a benchmark of more
  than MAX_CELLS cells (the IPC 2023 benchmark: ten domains, three levels) in several panels, whole
  domains each, the mean in the last;
- figures/leaderboard-quality.{png,pdf}: the same rows and cells, plan quality (best-known length /
  plan length, mean over the solved problems) and the median seconds per solved problem;
- tables/learned-vs-classical.csv: per cell, the best learned configuration beside the best classical.

A row is a system's best configuration (variant, model and strategy) on the benchmark: the one with
the highest mean coverage over all the benchmark's cells, a cell it did not run counting 0 (ties:
the higher IPC score, then the more cells run, then the name); rows are ordered by that mean. Fast
Downward's configurations are planners of their own, one row each (eager GBFS + FF, run on every
problem, included), except GBFS + FF: it runs only where A* + LM-cut found no plan, so its row is not
a coverage of the split by one planner. Every
configuration, strategy and seed count stays in the CSV and the Markdown table."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib import colors

from genplan import atomic
from genplan.formats import tables
from genplan.paths import Layout

FD = "fast_downward"
FD_NAMES = {"astar_lmcut": "FD A* + LM-cut", "lama_first": "FD LAMA-first", "gbfs_ff_eager": "FD eager GBFS + hFF"}
SPLIT_ORDER = {"validation": 0, "interpolation": 1, "extrapolation": 2, "easy": 3, "medium": 4, "hard": 5, "test": 6}
SPLIT_SHORT = {"validation": "val", "interpolation": "interp", "extrapolation": "extrap", "medium": "med"}
MAX_CELLS = 16  # a benchmark with more (domain, split) cells is drawn in several panels, whole domains each
NUMBERS = ("coverage", "quality", "ipc_score", "median_time_s")
DPI = 100
ROW_IN, COL_IN, LABEL_IN, HEAD_IN = 0.27, 0.62, 2.9, 0.72  # inches: a row, a column, row labels, a panel's header
NOT_RUN = "#e6e6e6"
TITLE_IN = 0.07  # inches per character of a panel's title (9 pt): a narrow figure is widened to its titles


@dataclass
class Line:
    """One row of a heatmap: a system's chosen configuration and its leaderboard row per cell."""

    label: str
    mean: float  # mean coverage over the benchmark's cells, a cell not run counting 0
    cells: dict[tuple[str, str], dict]  # (domain, split) -> leaderboard row


def _float(value) -> float | None:
    return None if value in ("", None) else float(value)


def _normal(row: dict) -> dict:
    """A leaderboard row with its numbers as numbers (the CSV's are text)."""
    out = dict(row)
    for key in NUMBERS:
        out[key] = _float(row.get(key))
    for key in ("n_solved", "n_problems", "n_seeds"):
        out[key] = int(float(row[key]))
    return out


def read_rows(path: Path) -> list[dict]:
    """The rows of a leaderboard CSV (tables/leaderboard.csv), numbers as numbers."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no leaderboard table (run `genplan report leaderboard`)")
    with open(path, newline="") as fh:
        return [_normal(r) for r in csv.DictReader(fh)]


def _split_key(split: str) -> tuple:
    size = int(split[4:]) if split.startswith("size") and split[4:].isdigit() else 0
    return SPLIT_ORDER.get(split, 3), size, split


def columns(rows: list[dict]) -> list[tuple[str, str]]:
    """The (domain, split) cells of one benchmark's rows: domains by name, splits in their order."""
    return sorted({(r["domain"], r["split"]) for r in rows}, key=lambda c: (c[0], _split_key(c[1])))


def _system(r: dict) -> str:
    return f"{FD}:{r['variant']}" if r["system"] == FD else r["system"]


def _label(r: dict) -> str:
    if r["system"] == FD:
        return FD_NAMES.get(r["variant"], f"FD {r['variant']}")
    return f"{r['model'] or r['system']} · {r['strategy']}"


def lines(rows: list[dict]) -> list[Line]:
    """One benchmark's heatmap rows: each system's best configuration, best first (module doc)."""
    cols = columns(rows)
    configs: dict[tuple, dict] = {}
    for r in rows:
        if r["system"] == FD and r["variant"] not in FD_NAMES:
            continue  # GBFS + FF: run on A*'s failures only
        configs.setdefault((_system(r), _label(r)), {})[(r["domain"], r["split"])] = r
    best: dict[str, tuple] = {}
    for (system, label), cells in sorted(configs.items()):  # by name: the first of equals wins
        mean = sum(c["coverage"] for c in cells.values()) / len(cols)
        rank = (mean, sum(c["ipc_score"] or 0.0 for c in cells.values()), len(cells))
        if system not in best or rank > best[system][0]:
            best[system] = (rank, Line(label, mean, cells))
    return sorted((line for _, line in best.values()), key=lambda line: (-line.mean, line.label))


def _by_benchmark(rows: list[dict]) -> dict[str, list[dict]]:
    """Rows by benchmark, the benchmark with the most systems first (then by name)."""
    out: dict[str, list[dict]] = {}
    for r in rows:
        out.setdefault(r["benchmark"], []).append(r)
    return dict(sorted(out.items(), key=lambda kv: (-len({_system(r) for r in kv[1]}), kv[0])))


def _ink(cmap, norm, value: float) -> str:
    """Black or white text, whichever reads on the cell's colour."""
    red, green, blue, _ = cmap(norm(value))
    return "black" if 0.299 * red + 0.587 * green + 0.114 * blue > 0.5 else "white"


def _fmt_time(seconds: float) -> str:
    return f"{seconds:.2f}" if seconds < 1 else f"{seconds:.1f}" if seconds < 100 else f"{seconds:.0f}"


@dataclass
class Metric:
    """What a heatmap shows: the row key, its colour scale and the text of a cell."""

    key: str
    cmap: str
    norm: colors.Normalize

    def text(self, row: dict) -> str:
        if self.key == "coverage":
            return f"{row['n_solved']}/{row['n_problems'] * row['n_seeds']}"
        value = row[self.key]
        return "–" if value is None else (f"{value:.2f}" if self.key == "quality" else _fmt_time(value))


def _time_norm(rows: list[dict]) -> colors.Normalize:
    times = [r["median_time_s"] for r in rows if r["median_time_s"]]
    low, high = (min(times), max(times)) if times else (0.01, 1.0)
    return colors.LogNorm(vmin=min(low, 0.01), vmax=max(high, 10 * low, 1.0))


def _header(ax, cols: list[tuple[str, str]], extra: str | None) -> None:
    """Split names as the top ticks, each domain's name centred above its splits, white rules
    between domains."""
    labels = [SPLIT_SHORT.get(s, s) for _, s in cols] + ([extra] if extra else [])
    ax.set_xticks(range(len(labels)), labels, fontsize=7)
    ax.xaxis.tick_top()
    ax.tick_params(length=0)
    domains = [d for d, _ in cols]
    start = 0
    for i in range(1, len(domains) + 1):
        if i == len(domains) or domains[i] != domains[start]:
            ax.annotate(domains[start], ((start + i - 1) / 2, 1), xycoords=("data", "axes fraction"),
                        xytext=(0, 14), textcoords="offset points", ha="center", va="bottom",
                        fontsize=_fits(domains[start], (i - start) * COL_IN), fontweight="bold")
            ax.axvline(i - 0.5, color="white", linewidth=3)
            start = i


def _fits(name: str, span_in: float, size: float = 8) -> float:
    """The font size (at most `size`) at which a bold name fits `span_in` inches (a domain with one cell)."""
    return min(size, round(0.9 * span_in * 72 / (0.65 * max(1, len(name))), 1))


def _cell(ax, x: int, y: int, face, text: str, ink: str, **font) -> None:
    ax.add_patch(plt.Rectangle((x - 0.5, y - 0.5), 1, 1, facecolor=face, edgecolor="white", linewidth=0.5))
    ax.text(x, y, text, ha="center", va="center", color=ink, **{"fontsize": 7, **font})


def _panel(ax, cax, lines_: list[Line], cols: list[tuple[str, str]], metric: Metric, mean: bool) -> None:
    """One heatmap: a row per line, a column per cell (and the lines' means), its colour bar in `cax`."""
    cmap = plt.get_cmap(metric.cmap)
    ax.set_xlim(-0.5, len(cols) + mean - 0.5)
    ax.set_ylim(len(lines_) - 0.5, -0.5)
    for y, line in enumerate(lines_):
        for x, cell in enumerate(cols):
            row = line.cells.get(cell)
            value = None if row is None else row[metric.key]
            if value is None:
                _cell(ax, x, y, NOT_RUN, "not run" if row is None else metric.text(row), "#555555", fontsize=6)
            else:
                _cell(ax, x, y, cmap(metric.norm(value)), metric.text(row), _ink(cmap, metric.norm, value))
        if mean:
            _cell(ax, len(cols), y, cmap(metric.norm(line.mean)), f"{line.mean:.2f}",
                  _ink(cmap, metric.norm, line.mean), fontweight="bold")
    ax.set_yticks(range(len(lines_)), [line.label for line in lines_], fontsize=7.5)
    ax.tick_params(axis="y", length=0)
    _header(ax, cols, "mean" if mean else None)
    for side in ax.spines.values():
        side.set_visible(False)
    plt.colorbar(plt.cm.ScalarMappable(norm=metric.norm, cmap=cmap), cax=cax).ax.tick_params(labelsize=6)


def _figure(panels: list[tuple[list[Line], list[tuple[str, str]], Metric, str, bool]]):
    """Heatmap panels stacked, laid out in inches: every row and column the same size in every
    panel, a header (title, domains, splits) above each."""
    grid = max(len(cols) + mean for _, cols, _, _, mean in panels)
    width = max(LABEL_IN + COL_IN * grid + 0.9, max(TITLE_IN * len(title) for *_, title, _ in panels) + 0.3)
    heights = [HEAD_IN + ROW_IN * max(1, len(ls)) for ls, *_ in panels]
    height = sum(heights) + 0.3  # the last colour bar's bottom tick label below its panel
    fig = plt.figure(figsize=(width, height))
    top = height
    for (ls, cols, metric, title, mean), h in zip(panels, heights):
        top -= h
        body = h - HEAD_IN
        ax = fig.add_axes((LABEL_IN / width, top / height, COL_IN * (len(cols) + mean) / width, body / height))
        cax = fig.add_axes(((LABEL_IN + COL_IN * grid + 0.15) / width, top / height, 0.12 / width, body / height))
        fig.text(0.1 / width, (top + h - 0.12) / height, title, fontsize=9, va="top")
        if ls:
            _panel(ax, cax, ls, cols, metric, mean)
        else:
            ax.set_axis_off()
            cax.set_axis_off()
            ax.text(0.5, 0.5, "no rows", ha="center", transform=ax.transAxes)
    return fig


def chunks(cols: list[tuple[str, str]]) -> list[list[tuple[str, str]]]:
    """A benchmark's cells in parts of at most MAX_CELLS (a domain with more: a part of its own), whole
    domains each, as even as whole domains allow; one part when they fit."""
    if len(cols) <= MAX_CELLS:
        return [cols]
    domains: dict[str, list] = {}
    for cell in cols:
        domains.setdefault(cell[0], []).append(cell)
    target = -(-len(cols) // -(-len(cols) // MAX_CELLS))  # ceil(cells / ceil(cells / MAX_CELLS))
    parts: list[list] = [[]]
    for cells in domains.values():
        if parts[-1] and len(parts[-1]) + len(cells) > target:
            parts.append([])
        parts[-1] += cells
    return parts


def figures(rows: list[dict], budgets: dict[str, str] | None = None) -> dict[str, plt.Figure]:
    """The leaderboard's figures by name (`leaderboard`, `leaderboard-quality`) from its rows; `budgets`:
    benchmark -> its declared per-problem budget ("60 s"), named in its panels' titles."""
    rows = [_normal(r) for r in rows]
    coverage, quality = [], []
    time = Metric("median_time_s", "magma_r", _time_norm(rows))
    cover = Metric("coverage", "YlGnBu", colors.Normalize(0, 1))
    qual = Metric("quality", "viridis", colors.Normalize(0, 1))
    at = {bench: f" at {text} per problem" for bench, text in (budgets or {}).items()}
    for bench, rs in _by_benchmark(rows).items():
        ls, cols = lines(rs), columns(rs)
        parts = chunks(cols)
        for i, part in enumerate(parts):
            more = ("" if len(parts) == 1 else f" ({i + 1} of {len(parts)})") + at.get(bench, "")
            coverage.append((ls, part, cover, (f"benchmark {bench}{more}: coverage, solved / attempted (seeds pooled), "
                                               f"of each system's best configuration; mean over the {len(cols)} "
                                               "cells, a cell not run counting 0"), i == len(parts) - 1))
            quality.append((ls, part, qual, (f"benchmark {bench}{more}: plan quality, best-known length / plan "
                                             "length, mean over the solved problems (–: none solved)"), False))
        for i, part in enumerate(parts):
            more = ("" if len(parts) == 1 else f" ({i + 1} of {len(parts)})") + at.get(bench, "")
            title = f"benchmark {bench}{more}: median seconds per solved problem (–: none solved)"
            quality.append((ls, part, time, title, False))
    return {"leaderboard": _figure(coverage), "leaderboard-quality": _figure(quality)}


def learned_vs_classical(rows: list[dict]) -> list[dict]:
    """Per benchmark, domain and split: the best classical planner (Fast Downward's A* + LM-cut or
    LAMA-first) beside the best learned configuration there, each by coverage (ties: the higher IPC
    score, then the name), and learned minus classical coverage. A benchmark without a learned
    planner has no rows."""
    rows = [_normal(r) for r in rows]
    out = []
    for bench, rs in _by_benchmark(rows).items():
        if all(r["system"] == FD for r in rs):
            continue
        for dom, split in columns(rs):
            here = sorted((r for r in rs if (r["domain"], r["split"]) == (dom, split)), key=_label)
            best = {}
            for kind, keep in (("classical", lambda r: r["variant"] in FD_NAMES), ("learned", lambda r: True)):
                pool = [r for r in here if (r["system"] == FD) == (kind == "classical") and keep(r)]
                best[kind] = max(pool, key=lambda r: (r["coverage"], r["ipc_score"] or 0.0), default=None)
            row = {"benchmark": bench, "domain": dom, "split": split}
            for kind, r in best.items():
                row.update({kind: "" if r is None else _label(r),
                            f"{kind}_solved": "" if r is None else f"{r['n_solved']}/{r['n_problems'] * r['n_seeds']}",
                            f"{kind}_coverage": "" if r is None else f"{r['coverage']:.4f}"})
            both = all(best.values())
            row["learned_minus_classical"] = (f"{best['learned']['coverage'] - best['classical']['coverage']:+.4f}"
                                              if both else "")
            out.append(row)
    return out


COMPARISON = ["benchmark", "domain", "split", "classical", "classical_solved", "classical_coverage", "learned",
              "learned_solved", "learned_coverage", "learned_minus_classical"]


def save(fig: plt.Figure, stem: Path, exts=("png", "pdf")) -> list[Path]:
    """Write the figure as `stem`.<ext> for each of `exts`, byte-identical for the same rows (no
    dates in the PDF or SVG, a fixed SVG id salt); close it."""
    out = []
    for ext in exts:
        path = stem.with_suffix(f".{ext}")
        with atomic.output_file(path) as tmp, matplotlib.rc_context({"svg.hashsalt": "genplan",
                                                                      "svg.fonttype": "none"}):
            fig.savefig(tmp, format=ext, dpi=DPI, metadata={"png": None, "pdf": {"CreationDate": None},
                                                            "svg": {"Date": None}}[ext])
        out.append(path)
    plt.close(fig)
    return out


def coverage_figure(rows: list[dict], stem: Path, budgets: dict[str, str] | None = None) -> list[Path]:
    """Write the leaderboard's figures beside `stem` (<root>/figures/leaderboard): leaderboard.{png,pdf,svg}
    (the SVG for the HTML report's summary page, workflow/report/workflow.rst), leaderboard-quality.{png,pdf},
    and the learned-vs-classical table (<root>/tables/learned-vs-classical.csv); return their paths.
    `budgets`: as `figures` takes them."""
    figs = figures(rows, budgets)
    out = save(figs["leaderboard"], stem, ("png", "pdf", "svg"))
    out += save(figs["leaderboard-quality"], stem.with_name("leaderboard-quality"))
    path = Path(Layout(str(stem.parent.parent)).table("learned-vs-classical", "csv"))
    tables.write_csv(path, learned_vs_classical(rows), COMPARISON)
    return out + [path]
