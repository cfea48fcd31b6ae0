"""The budget curves' figure (genplan.report.budget): coverage against the measured training
CPU-minutes (log x), one line per split, a panel per domain (columns) and strategy (rows), and a last
row with the validation loss of the weights kept. Points are the budget models (mean over seeds);
a model without a measured CPU time or without the cell is not drawn (never a 0)."""

from __future__ import annotations

import math
from collections import defaultdict
from pathlib import Path
from statistics import mean

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FormatStrFormatter, LogLocator, NullFormatter  # noqa: E402

from genplan.paths import SPLITS  # noqa: E402
from genplan.report.figures import save  # noqa: E402

STYLE = {"train": ("tab:gray", "s"), "validation": ("tab:blue", "o"), "interpolation": ("tab:green", "^"),
         "extrapolation": ("tab:red", "v")}


def _points(runs: list[dict], value) -> list[tuple[float, float]]:
    """(mean CPU-minutes, mean value) per model with a CPU time, over its seeds with a value, by CPU-minutes;
    NaN for a model without the value (the line breaks there: no point is made up); [] when none has one."""
    cpu, by = defaultdict(list), defaultdict(list)
    for r in runs:
        if r["cpu_min"] is not None:
            cpu[r["model"]].append(r["cpu_min"])
            if value(r) is not None:
                by[r["model"]].append(value(r))
    if not by:
        return []
    return sorted((mean(xs), mean(by[m]) if by[m] else math.nan) for m, xs in cpu.items())


def _minutes_axis(ax) -> None:
    """Log x in plain minutes (1, 2, 5, 10, ...), no minor labels."""
    ax.set_xscale("log")
    ax.xaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
    ax.xaxis.set_major_formatter(FormatStrFormatter("%g"))
    ax.xaxis.set_minor_formatter(NullFormatter())


def _coverage(split: str, strategy: str):
    def value(run: dict):
        got = run["cells"].get((split, strategy))
        return got[0] / got[1] if got and got[1] else None
    return value


def draw(runs: list[dict], cells: list[tuple[str, str]], title: str, stem: Path) -> list[Path]:
    """`stem`.png and `stem`.pdf (figures.save); `cells`: the (split, strategy) columns of the table."""
    domains = sorted({r["domain"] for r in runs})
    strategies = sorted({st for _, st in cells})
    nrows, ncols = len(strategies) + 1, max(1, len(domains))
    fig, axes = plt.subplots(nrows, ncols, figsize=(max(6.0, 4.2 * ncols), 2.6 * nrows), squeeze=False,
                             sharex="col")
    if not domains:
        for ax in axes.ravel():
            ax.set_axis_off()
        axes[0, 0].text(0.5, 0.5, f"{title}: no budget model run yet", ha="center", va="center")
        fig.suptitle(f"Budget curve, {title}", fontsize=10)
        return save(fig, stem)
    splits = [s for s in SPLITS if any(sp == s for sp, _ in cells)] + sorted({sp for sp, _ in cells} - set(SPLITS))
    for j, dom in enumerate(domains):
        mine = [r for r in runs if r["domain"] == dom]
        for i, strategy in enumerate(strategies):
            ax = axes[i, j]
            drawn = False
            for split in splits:
                pts = _points(mine, _coverage(split, strategy))
                if pts:
                    color, marker = STYLE.get(split, ("black", "x"))
                    ax.plot(*zip(*pts), marker=marker, color=color, label=split)
                    drawn = True
            if not drawn:
                ax.text(0.5, 0.5, "not run", ha="center", va="center", transform=ax.transAxes, fontsize=8)
            _minutes_axis(ax)
            ax.set_ylim(-0.03, 1.03)
            ax.set_title(f"{dom}, {strategy}", fontsize=9)
            ax.set_ylabel("coverage")
            if drawn and i == 0 and j == 0:
                ax.legend(fontsize=7)
        ax = axes[-1, j]
        pts = _points(mine, lambda r: r["val_loss"])
        if pts:
            ax.plot(*zip(*pts), marker="o", color="tab:purple")
        else:
            ax.text(0.5, 0.5, "not run", ha="center", va="center", transform=ax.transAxes, fontsize=8)
        _minutes_axis(ax)
        ax.set_title(f"{dom}, validation loss of the weights kept", fontsize=9)
        ax.set_ylabel("validation loss")
        ax.set_xlabel("training CPU-minutes (measured)")
    fig.suptitle(f"Budget curve, {title}:\ncoverage per split, validation loss, against training CPU time",
                 fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.5 / fig.get_figheight()))
    return save(fig, stem)
