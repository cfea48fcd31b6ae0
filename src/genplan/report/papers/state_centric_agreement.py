"""How far our Table 1 coverage sits from the published numbers, per decoder: over the test cells
with a published mean, how many are within a tolerance (0.10), the mean absolute and signed
difference, and every cell outside the tolerance listed for explanation.

Besides each decoder run, a `faithful` decoder stands for the reference code as written: its
`reference-nostatics` cell where that was run, its `reference` cell elsewhere (where they are the
same decoder: FSF never embeds static atoms, Blocksworld has none; or where the `-nostatics` twin
was not run, which the listing shows in its `decoder` column). Built from Table 1's rows only."""

from __future__ import annotations

from collections import defaultdict

from genplan.report import render
from genplan.report.aggregate import BEAM_MODES, TEST_SPLITS

TOLERANCE = 0.10
FAITHFUL = "faithful"
DECODER_ORDER = {d: i for i, d in enumerate((FAITHFUL, *BEAM_MODES))}
SUMMARY_COLUMNS = ["benchmark", "decoder", "cells", "within_tolerance", "tolerance", "mean_abs_diff", "mean_diff"]
CELL_COLUMNS = ["benchmark", "decoder", "domain", "split", "system", "variant", "run_as", "n_seeds", "ours",
                "published", "diff"]


def _cells(t1: list[dict]) -> dict[tuple, dict]:
    """(benchmark, decoder, domain, split, system, variant) -> Table 1 row, faithful included."""
    cells = {}
    for r in t1:
        if r["beam_mode"] and r["split"] in TEST_SPLITS and r["published_mean"] not in ("", None):
            cells[(r["benchmark"], r["beam_mode"], r["domain"], r["split"], r["system"], r["variant"])] = r
    for (bench, beam, dom, split, system, variant), r in list(cells.items()):
        if beam == "reference":
            twin = cells.get((bench, "reference-nostatics", dom, split, system, variant))
            cells[(bench, FAITHFUL, dom, split, system, variant)] = twin or r
    return cells


def _diff(r: dict) -> float:
    return float(r["ours_mean"]) - float(r["published_mean"])


def agreement(t1: list[dict], tolerance: float = TOLERANCE) -> tuple[list[dict], list[dict]]:
    """(summary rows per benchmark and decoder, rows of the cells outside the tolerance)."""
    by_decoder: dict[tuple, list[tuple]] = defaultdict(list)
    for key, r in _cells(t1).items():
        by_decoder[key[:2]].append((key, r, _diff(r)))
    summary, outside = [], []
    for (bench, decoder), cells in sorted(by_decoder.items(), key=lambda kv: (kv[0][0], DECODER_ORDER.get(kv[0][1], 9))):
        diffs = [d for _, _, d in cells]
        summary.append({"benchmark": bench, "decoder": decoder, "cells": len(diffs),
                        "within_tolerance": sum(abs(d) <= tolerance + 1e-9 for d in diffs), "tolerance": tolerance,
                        "mean_abs_diff": f"{sum(map(abs, diffs)) / len(diffs):.4f}",
                        "mean_diff": f"{sum(diffs) / len(diffs):+.4f}"})
        cells.sort(key=lambda c: (c[0][2], TEST_SPLITS.index(c[0][3]), c[0][4], c[0][5]))
        outside += [{"benchmark": bench, "decoder": decoder, "domain": k[2], "split": k[3], "system": k[4],
                     "variant": k[5], "run_as": r["beam_mode"], "n_seeds": r["n_seeds"], "ours": r["ours_mean"],
                     "published": r["published_mean"], "diff": f"{d:+.4f}"}
                    for k, r, d in cells if abs(d) > tolerance + 1e-9]
    return summary, outside


def agreement_md(summary: list[dict], outside: list[dict]) -> str:
    intro = ("# State-centric Table 1: how far ours sits from the published coverage\n\n"
             f"Test cells (interpolation, extrapolation) with a published mean; a cell agrees when "
             f"|ours - published| <= {TOLERANCE:.2f}. `faithful` is the reference code as written: "
             "`reference-nostatics` where run, `reference` elsewhere (`run as` says which). Published "
             "numbers are means over 3 seeds; ours over the seeds run (`seeds`). On the generated "
             "benchmark the published numbers were measured on other instances.\n\n")
    head = ["benchmark", "decoder", "cells", f"within {TOLERANCE:.2f}", "mean |diff|", "mean diff"]
    body = [[s["benchmark"], s["decoder"], s["cells"], s["within_tolerance"], render.num(float(s["mean_abs_diff"])),
             f"{float(s['mean_diff']):+.2f}"] for s in summary]
    cells_head = ["benchmark", "decoder", "domain", "split", "model", "run as", "seeds", "ours", "published", "diff"]
    cells = [[c["benchmark"], c["decoder"], c["domain"], c["split"], f"{c['system']} {c['variant']}", c["run_as"],
              c["n_seeds"], render.num(float(c["ours"])), render.num(float(c["published"])),
              f"{float(c['diff']):+.2f}"] for c in outside]
    return (intro + render.md(head, body) + f"\n## Cells outside {TOLERANCE:.2f}\n\n"
            + (render.md(cells_head, cells) if cells else "None.\n"))
