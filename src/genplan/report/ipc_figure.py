"""Problems solved against time per planner on the IPC 2023 learning track: the cumulative
coverage curve of every planner run (genplan.report.ipc_scores), all domains pooled, one panel for
all the levels run and, where more than one was run, one per level; a log time axis to the largest
declared budget or solve time (a dashed line at each budget: a plan found past it counts as solved
in the tables' coverage, with an agile score of 0). A learned planner's curve is the mean over its
seeds (each seed's solved problems weighted 1 / seeds). Sized and labelled as the leaderboard's
figures are (one screen, no texts covering one another: genplan.report.legibility)."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from genplan.report import ipc_scores
from genplan.report.leaderboard_figure import save

PANEL_IN = (5.6, 3.4)  # inches per panel
LEGEND_IN = 0.28  # inches per legend row
MIN_WIDTH_IN = 9.0  # the legend's two columns of long labels


def _curves(runs: list[ipc_scores.Run]) -> dict[str, tuple[np.ndarray, np.ndarray, int, list[float]]]:
    """planner -> (sorted solve times, mean solved by each time, problems per seed, budgets)."""
    times: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    problems: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    budgets: dict[str, set] = defaultdict(set)
    for run in runs:
        times[run.planner][run.seed] += [max(t, 1e-3) for solved, _, _, t in run.scores.values() if solved]
        problems[run.planner][run.seed] += len(run.scores)
        budgets[run.planner] |= {run.budget} - {None}
    out = {}
    for planner, seeds in times.items():
        x = np.sort(np.concatenate([np.asarray(ts, dtype=float) for ts in seeds.values()]))
        y = np.arange(1, len(x) + 1) / len(problems[planner])  # each seed's problem weighs 1 / seeds
        out[planner] = (x, y, max(problems[planner].values()), sorted(budgets[planner]))
    return out


def _label(planner: str, budgets: list[float], n: int) -> str:
    budget = "/".join(f"{b:g}" for b in budgets) or "no"
    return f"{planner} ({budget} s budget, of {n})"


def _panel(ax, runs: list[ipc_scores.Run], title: str, colours: dict[str, str]) -> None:
    curves = _curves(runs)
    budgets = sorted({b for *_, bs in curves.values() for b in bs})
    end = max(budgets + [x[-1] for x, *_ in curves.values() if len(x)] or [1.0])
    for planner, (x, y, n, bs) in sorted(curves.items()):  # flat from the last solve to the largest budget
        xs = np.concatenate([[x[0] if len(x) else 1e-3], x, [end]])
        ys = np.concatenate([[0], y, [y[-1] if len(y) else 0]])
        ax.step(xs, ys, where="post", color=colours[planner], label=_label(planner, bs, n), linewidth=1.5)
    for b in budgets:
        ax.axvline(b, color="0.5", linestyle="--", linewidth=0.8)
    ax.set_xscale("log")
    ax.set_xlim(1e-2, end * 1.5)
    ax.set_ylim(bottom=0)
    ax.set_title(title, fontsize=9)
    ax.set_xlabel("seconds per problem (log; dashed: budget)", fontsize=8)
    ax.set_ylabel("problems solved", fontsize=8)
    ax.tick_params(labelsize=7)
    ax.grid(True, which="major", linewidth=0.3)


def figure(runs: list[ipc_scores.Run]) -> plt.Figure:
    """The figure of the module doc (a note in place of the curves when there are no runs)."""
    levels = [lv for lv in ipc_scores.LEVELS if any(r.level == lv for r in runs)]
    panels = [(f"{'+'.join(levels) or 'no'} level{'s' * (len(levels) > 1)}, all domains", runs)]
    if len(levels) > 1:
        panels += [(f"level {lv}, all domains", [r for r in runs if r.level == lv]) for lv in levels]
    planners = sorted({r.planner for r in runs})
    palette = plt.get_cmap("tab10" if len(planners) <= 10 else "tab20")
    colours = {p: palette(i) for i, p in enumerate(planners)}
    ncols = 2 if len(panels) > 1 else 1
    nrows = (len(panels) + ncols - 1) // ncols
    legend_rows = (len(planners) + 1) // 2
    size = (max(PANEL_IN[0] * ncols, MIN_WIDTH_IN), PANEL_IN[1] * nrows + 0.6 + LEGEND_IN * legend_rows)
    fig = plt.figure(figsize=size, layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel()
    if not runs:
        axes[0].set_axis_off()
        axes[0].text(0.5, 0.5, f"no results of benchmark {ipc_scores.BENCHMARK} yet", ha="center", va="center")
        return fig
    for ax, (title, rs) in zip(axes, panels):
        _panel(ax, rs, title, colours)
    for ax in axes[len(panels):]:
        ax.set_axis_off()
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=min(2, len(labels)), fontsize=7, frameon=False)
    fig.suptitle(f"IPC 2023 learning track ({ipc_scores.BENCHMARK}): problems solved against time per planner, "
                 "mean over seeds", fontsize=10)
    return fig


def coverage_time(runs: list[ipc_scores.Run], stem: Path) -> list[Path]:
    """Write the figure as `stem`.png and `stem`.pdf; return their paths."""
    return save(figure(runs), stem, ("png", "pdf"))
