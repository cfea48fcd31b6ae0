"""The leaderboard's figure: coverage on the extrapolation split, one panel per (benchmark,
domain), one bar per system (Fast Downward's configurations and every learned model and
strategy), sorted by coverage; built from the leaderboard's rows only."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from genplan import atomic  # noqa: E402


def _label(r: dict) -> str:
    if r["system"] == "fast_downward":
        return f"FD {r['variant']}"
    return f"{r['model'] or r['system']} / {r['strategy']}"


def coverage_figure(rows: list[dict], stem: Path, split: str = "extrapolation") -> list[Path]:
    sel = [r for r in rows if r["split"] == split]
    panels = sorted({(r["benchmark"], r["domain"]) for r in sel})
    n = max(1, len(panels))
    height = max(2.0, 0.28 * max((sum((r["benchmark"], r["domain"]) == p for r in sel) for p in panels), default=1))
    fig, axes = plt.subplots(n, 1, figsize=(9, height * n + 0.6), squeeze=False)
    for ax, (bench, dom) in zip(axes[:, 0], panels):
        rs = sorted((r for r in sel if (r["benchmark"], r["domain"]) == (bench, dom)), key=lambda r: r["coverage"])
        colours = ["#777777" if r["system"] == "fast_downward" else
                   "#1f77b4" if r["system"] == "learned_heuristic" else "#ff7f0e" for r in rs]
        ax.barh([_label(r) for r in rs], [r["coverage"] for r in rs], color=colours)
        ax.set_xlim(0, 1)
        ax.set_title(f"{bench} / {dom}: {split} coverage", fontsize=9)
        ax.tick_params(axis="y", labelsize=7)
    if not panels:
        axes[0, 0].text(0.5, 0.5, f"no {split} results", ha="center")
    axes[-1, 0].set_xlabel("fraction of problems solved (VAL-valid plan)")
    fig.tight_layout()
    out = []
    for ext in ("png", "pdf"):
        path = stem.with_suffix(f".{ext}")
        with atomic.output_file(path) as tmp:  # no creation date: the same rows, the same PDF
            fig.savefig(tmp, format=ext, dpi=120, metadata={"CreationDate": None} if ext == "pdf" else None)
        out.append(path)
    plt.close(fig)
    return out
