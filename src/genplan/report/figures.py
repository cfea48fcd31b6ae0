"""Coverage bar charts (state-centric Figures 2-4: one split each), from Table 1's rows only."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from genplan import atomic  # noqa: E402
from genplan.report.aggregate import DROP_STATICS, domain_rank  # noqa: E402

TITLES = {"validation": "validation split (selected the checkpoints)", "interpolation": "interpolation split",
          "extrapolation": "extrapolation split"}


def _f(value):
    return np.nan if value in ("", None) else float(value)


def coverage_figure(rows: list[dict], split: str, stem: Path, systems: list[tuple[str, str]], published) -> list[Path]:
    """One panel per (benchmark, domain): Fast Downward and the learned systems, bars for the
    published number (`published(domain, split, system, variant)` -> (mean, std) or None) and ours
    with each beam decoder (error bars: std over seeds; Fast Downward has one run, no beam). A bar
    marked R: the model refused every problem of the cell (Table 1's `refused`), not a coverage of 0."""
    sel = [r for r in rows if r["split"] == split]
    # A panel per (benchmark, domain) that has a learned model's result; Fast Downward alone only
    # when no model has been evaluated yet.
    learned = {(r["benchmark"], r["domain"]) for r in sel if r["beam_mode"]}
    panels = sorted(learned or {(r["benchmark"], r["domain"]) for r in sel}, key=lambda p: (p[0], domain_rank(p[1])))
    labels = ["FD"] + [f"{s}\n{m}" for s, m in systems]
    keys = [("fast_downward", "astar_lmcut")] + list(systems)
    series = [("published", None), ("ours, reference beam (FD: our run)", "reference"), ("ours, pooled beam", "pooled")]
    fig, axes = plt.subplots(max(1, len(panels)), 1, figsize=(12, 2.6 * max(1, len(panels))), squeeze=False)
    width = 0.27
    x = np.arange(len(keys))
    any_dropped = False
    for ax, (bench, dom) in zip(axes[:, 0], panels):
        index = {(r["system"], r["variant"], r["beam_mode"]): r for r in sel if (r["benchmark"], r["domain"]) == (bench, dom)}
        for i, (name, beam) in enumerate(series):
            if beam is None:
                means, stds, refused, dropped = [], [], [], []
                for system, variant in keys:
                    p = published(dom, split, system, variant)
                    means.append(p[0] if p else np.nan)
                    stds.append(p[1] if p and p[1] is not None else np.nan)
            else:
                means, stds, refused, dropped = beam_bars(index, keys, beam)
                any_dropped = any_dropped or any(dropped)
            ax.bar(x + (i - 1) * width, np.nan_to_num(means), width, yerr=np.nan_to_num(stds), label=name,
                   color=("0.6", "tab:blue", "tab:orange")[i], capsize=2)
            for j, m in enumerate(means):  # not run, as opposed to a coverage of 0
                if np.isnan(m) and not (beam == "pooled" and keys[j][0] == "fast_downward"):
                    ax.text(x[j] + (i - 1) * width, 0.02, "–", ha="center", va="bottom", fontsize=7)
            for j, r in enumerate(refused):  # every problem refused (FSF slots): not a coverage of 0
                if r:
                    ax.text(x[j] + (i - 1) * width, 0.02, "R", ha="center", va="bottom", fontsize=6, color="tab:red")
            for j, d in enumerate(dropped):  # a WL model without static atoms stands in for the paper's
                if d:
                    ax.text(x[j] + (i - 1) * width, means[j] + 0.02, "S", ha="center", va="bottom", fontsize=6)
        ax.set_title(f"{dom} ({bench})", fontsize=9)
        ax.set_ylim(0, 1.05)
        ax.set_ylabel("coverage")
        ax.set_xticks(x, labels, fontsize=7)
    if not panels:
        axes[0, 0].text(0.5, 0.5, f"no results for the {split} split yet", ha="center", va="center")
        axes[0, 0].set_axis_off()
    else:
        axes[0, 0].legend(fontsize=7, ncol=3, loc="upper right")
    marks = "–: not run; R: every problem refused" + ("; S: WL graphs without static atoms" if any_dropped else "")
    fig.suptitle(f"Satisficing-plan success rate, {TITLES.get(split, split)} ({marks})", fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.3 / fig.get_figheight()))
    return save(fig, stem)


def beam_bars(index: dict, keys: list[tuple[str, str]], beam: str):
    """Means, stds, refused and `dropped` flags of one beam's bars: `index` maps (system, variant,
    beam_mode) to a Table 1 row (Fast Downward's under beam_mode ""; it has no pooled bar). Where a
    learned system has no row with static atoms, its row without them (`<beam>-dropstatics`: the
    configuration's WL representation, as the default's since the statics were decided on evidence, results/tables/state-centric-statics.md) is drawn, flagged."""
    means, stds, refused, dropped = [], [], [], []
    for system, variant in keys:
        fd = system == "fast_downward"
        r = None if fd and beam == "pooled" else index.get((system, variant, "" if fd else beam))
        fallback = None if fd or r else index.get((system, variant, beam + DROP_STATICS))
        r = r or fallback
        means.append(_f(r["ours_mean"]) if r else np.nan)
        stds.append(_f(r["ours_std"]) if r else np.nan)
        refused.append(bool(r) and r.get("refused") == "all")
        dropped.append(fallback is not None)
    return means, stds, refused, dropped


def save(fig, stem: Path, dpi: int = 150) -> list[Path]:
    """`stem`.png and `stem`.pdf, each written atomically (no creation date in the PDF: the same
    results give byte-identical files); the figure is closed."""
    import matplotlib.pyplot as plt

    written = []
    for ext in ("png", "pdf"):
        path = Path(stem).with_suffix(f".{ext}")
        with atomic.output_file(path) as tmp:
            fig.savefig(tmp, format=ext, dpi=dpi, metadata={"CreationDate": None} if ext == "pdf" else None)
        written.append(path)
    plt.close(fig)
    return written
