"""The figures and the HTML report as a person sees them, without a browser: the
leaderboard's figures built from the committed leaderboard table fit a screen and no two of their
texts cover each other; every committed figure is at most about two screens; the rows each system
shows are its best configuration; the report's summary page renders from the committed results.
The browser's screenshot is perf/report_check.py's."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import matplotlib.pyplot as plt
import pytest

from genplan.report import leaderboard_figure as lf
from genplan.report import legibility

REPO = Path(__file__).resolve().parents[1]
BOARD = REPO / "results" / "tables" / "leaderboard.csv"


@pytest.fixture(scope="module")
def board() -> list[dict]:
    return lf.read_rows(BOARD)


@pytest.mark.parametrize("name", ["leaderboard", "leaderboard-quality"])
def test_leaderboard_figures_fit_a_screen_and_read(board, name):
    fig = lf.figures(board)[name]
    width, height = legibility.pixels(fig, lf.DPI)
    assert width <= legibility.SCREEN[0] and height <= legibility.MAX_SIZE[1], (width, height)
    assert legibility.overlaps(fig) == []
    assert legibility.cut_off(fig) == []
    plt.close("all")


def test_the_coverage_figure_is_one_screen(board):
    width, height = legibility.pixels(lf.figures(board)["leaderboard"], lf.DPI)
    plt.close("all")
    assert height <= legibility.SCREEN[1] and width <= legibility.SCREEN[0], (width, height)


def test_the_checks_find_crowded_and_cut_texts():
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.set_xticks(range(20), [f"a long tick label {i}" for i in range(20)])
    ax.set_title("a title far wider than the three inches of this figure, cut at both ends")
    assert len(legibility.overlaps(fig)) > 20
    assert "a title far wider than the three inches of this figure, cut at both ends" in legibility.cut_off(fig)
    plt.close(fig)


def test_every_committed_figure_is_at_most_two_screens():
    pngs = sorted((REPO / "results" / "figures").glob("*.png"))
    assert pngs
    too_big = {p.name: legibility.png_pixels(p) for p in pngs
               if any(n > m for n, m in zip(legibility.png_pixels(p), legibility.MAX_SIZE))}
    assert too_big == {}


def _row(system, variant, model, strategy, domain, split, solved, problems, seeds=1, ipc=None):
    return {"benchmark": "paper", "domain": domain, "split": split, "system": system, "variant": variant,
            "model": model, "strategy": strategy, "coverage": solved / (problems * seeds), "n_solved": solved,
            "n_problems": problems, "n_seeds": seeds, "quality": 1.0 if solved else None,
            "ipc_score": solved / (problems * seeds) if ipc is None else ipc, "median_time_s": 1.0 if solved else None}


def test_each_system_shows_its_best_configuration_by_mean_coverage_over_every_cell():
    rows = [  # two cells; a configuration run on one cell only counts 0 on the other
        _row("fast_downward", "lama_first", "", "lama_first", "blocks", "validation", 2, 2),
        _row("fast_downward", "lama_first", "", "lama_first", "blocks", "extrapolation", 1, 2),
        _row("fast_downward", "gbfs_ff", "", "gbfs_ff", "blocks", "extrapolation", 1, 1),  # A*'s failures only
        _row("wl_lstm", "delta", "m1", "greedy", "blocks", "validation", 2, 2),
        _row("wl_lstm", "delta", "m1", "greedy", "blocks", "extrapolation", 1, 2),  # mean 0.75
        _row("wl_lstm", "state", "m2", "beam", "blocks", "extrapolation", 2, 2),  # 1.0 on its one cell: mean 0.5
        _row("wl_lstm", "state", "m2", "greedy", "blocks", "validation", 1, 2, seeds=3),
        _row("wl_lstm", "state", "m2", "greedy", "blocks", "extrapolation", 3, 2, seeds=3),  # mean 1/3
    ]
    lines = lf.lines(rows)
    assert [(line.label, line.mean) for line in lines] == [("FD LAMA-first", 0.75), ("m1 · greedy", 0.75)]
    assert [r["variant"] for r in lines[0].cells.values()] == ["lama_first", "lama_first"]
    assert lf.columns(rows) == [("blocks", "validation"), ("blocks", "extrapolation")]
    assert lf.Metric("coverage", "viridis", None).text(rows[7]) == "3/6"  # seeds pooled
    ties = [{**rows[3], "coverage": 1.0, "ipc_score": 0.5}, {**rows[4], "coverage": 0.0, "ipc_score": 0.0},
            rows[5]]  # both mean 0.5: the higher IPC score (1.0 against 0.5) wins
    assert [line.label for line in lf.lines(ties)] == ["m2 · beam"]


def test_learned_beside_classical_per_cell():
    rows = [_row("fast_downward", "astar_lmcut", "", "astar_lmcut", "blocks", "extrapolation", 1, 4),
            _row("fast_downward", "lama_first", "", "lama_first", "blocks", "extrapolation", 3, 4),
            _row("fast_downward", "gbfs_ff", "", "gbfs_ff", "blocks", "extrapolation", 2, 2),
            _row("wl_lstm", "delta", "m1", "greedy", "blocks", "extrapolation", 2, 4),
            _row("heuristic", "ridge", "h", "gbfs", "blocks", "extrapolation", 4, 4)]
    out = lf.learned_vs_classical(rows)
    assert out == [{"benchmark": "paper", "domain": "blocks", "split": "extrapolation", "classical": "FD LAMA-first",
                    "classical_solved": "3/4", "classical_coverage": "0.7500", "learned": "h · gbfs",
                    "learned_solved": "4/4", "learned_coverage": "1.0000", "learned_minus_classical": "+0.2500"}]
    assert lf.learned_vs_classical(rows[:3]) == []  # no learned planner on the benchmark: no rows


def test_figures_from_the_csv_alone(tmp_path, board):
    lf.coverage_figure(board, tmp_path / "figures" / "leaderboard")
    for name in ("leaderboard.png", "leaderboard.svg", "leaderboard-quality.png"):
        assert (tmp_path / "figures" / name).stat().st_size > 10_000
    ours, committed = (p / "tables" / "learned-vs-classical.csv" for p in (tmp_path, REPO / "results"))
    assert ours.read_text() == committed.read_text()
    with pytest.raises(FileNotFoundError, match="no-such.csv"):
        lf.read_rows(tmp_path / "no-such.csv")


@pytest.mark.slow
def test_the_html_report_opens_on_the_summary(tmp_path):
    snakemake = Path(sys.executable).with_name("snakemake")
    if not snakemake.exists() and not shutil.which("snakemake"):
        pytest.skip("snakemake is not installed")
    out = tmp_path / "report.html"
    res = subprocess.run([str(snakemake if snakemake.exists() else "snakemake"), "--configfile",
                          "workflow/configs/paper-cpu.yaml", "--report", str(out)],
                         cwd=REPO, capture_output=True, text=True, check=False)
    assert res.returncode == 0, res.stderr[-3000:]
    html = out.read_text()
    assert "genplan: results at a glance" in html and "System Message" not in html
    for part in ("Which planner solves what", "Learned against classical planners",
                 "Ours beside the published numbers", "1. ours beside the published"):
        assert part in html, part
