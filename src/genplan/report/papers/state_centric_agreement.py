"""How far our Table 1 coverage sits from the published numbers, per decoder: over the test cells
with a published mean, how many are within a tolerance (0.10), the mean absolute and signed
difference, and every cell outside the tolerance listed for explanation.

Besides each decoder run, a `faithful` decoder stands for the reference code as written: its
`reference-nostatics` cell where that was run, else its `reference-allsplits` cell (an FSF model
with the reference's slot sizing) where that was run, its `reference` cell elsewhere (where they
are the same decoder: FSF never embeds static atoms, Blocksworld has none; or where the twin was
not run, which the listing shows in its `run as` column). Built from Table 1's rows only.

Two kinds of cells are kept apart from the count:
- refused cells (the model refused every problem: an FSF encoder with fewer slots than the
  problems have objects) are not measurements: they are counted as `refused`, never as a 0 that
  agrees; `within_counting_refused` says what the count would be if they were (the count this
  table printed before refusals were set apart);
- a published number with a note (genplan.report.published) is compared as printed, and where the
  note gives the value of the authors' own result files, `within_against_authors` counts against
  that value instead; every noted cell is listed."""

from __future__ import annotations

from collections import defaultdict

from genplan.report import render
from genplan.report.aggregate import ALL_SPLITS, BEAM_MODES, TEST_SPLITS
from genplan.report.notes import MARK
from genplan.report.published import authors_value

TOLERANCE = 0.10
FAITHFUL = "faithful"
DECODER_ORDER = {d: i for i, d in enumerate((FAITHFUL, *BEAM_MODES))}
FAITHFUL_ORDER = ("reference-nostatics", "reference" + ALL_SPLITS, "reference")  # the first run is faithful's
SUMMARY_COLUMNS = ["benchmark", "decoder", "cells", "refused", "compared", "within_tolerance",
                   "within_counting_refused", "within_against_authors", "noted", "tolerance", "mean_abs_diff",
                   "mean_diff"]
CELL_COLUMNS = ["benchmark", "decoder", "status", "domain", "split", "system", "variant", "run_as", "n_seeds", "ours",
                "published", "diff", "authors", "authors_diff", "published_note"]
OUTSIDE, REFUSED, NOTED = "outside", "refused", "noted"


def _cells(t1: list[dict]) -> dict[tuple, dict]:
    """(benchmark, decoder, domain, split, system, variant) -> Table 1 row, faithful included."""
    cells = {}
    for r in t1:
        if r["beam_mode"] and r["split"] in TEST_SPLITS and r["published_mean"] not in ("", None):
            cells[(r["benchmark"], r["beam_mode"], r["domain"], r["split"], r["system"], r["variant"])] = r
    for bench, beam, dom, split, system, variant in list(cells):
        if beam in ("reference", "reference" + ALL_SPLITS):
            chosen = next(cells[k] for k in ((bench, b, dom, split, system, variant) for b in FAITHFUL_ORDER) if k in cells)
            cells[(bench, FAITHFUL, dom, split, system, variant)] = chosen
    return cells


def _within(diff: float, tolerance: float) -> bool:
    return abs(diff) <= tolerance + 1e-9


def _cell(key: tuple, r: dict) -> dict:
    ours, published = float(r["ours_mean"]), float(r["published_mean"])
    note = r.get("published_note", "")
    authors = authors_value(note)
    return {"key": key, "row": r, "refused": r.get("refused") == "all", "diff": ours - published, "note": note,
            "authors": authors, "authors_diff": None if authors is None else ours - authors}


def agreement(t1: list[dict], tolerance: float = TOLERANCE) -> tuple[list[dict], list[dict]]:
    """(summary rows per benchmark and decoder, rows of the cells listed: outside the tolerance,
    refused, or with a noted published number)."""
    by_decoder: dict[tuple, list[dict]] = defaultdict(list)
    for key, r in _cells(t1).items():
        by_decoder[key[:2]].append(_cell(key, r))
    summary, listed = [], []
    for (bench, decoder), cells in sorted(by_decoder.items(), key=lambda kv: (kv[0][0], DECODER_ORDER.get(kv[0][1], 9))):
        measured = [c for c in cells if not c["refused"]]
        diffs = [c["diff"] for c in measured]
        against_authors = [c["diff"] if c["authors"] is None else c["authors_diff"] for c in measured]
        summary.append({"benchmark": bench, "decoder": decoder, "cells": len(cells), "refused": len(cells) - len(measured),
                        "compared": len(measured), "within_tolerance": sum(_within(d, tolerance) for d in diffs),
                        "within_counting_refused": sum(_within(c["diff"], tolerance) for c in cells),
                        "within_against_authors": sum(_within(d, tolerance) for d in against_authors),
                        "noted": sum(bool(c["note"]) for c in cells), "tolerance": tolerance,
                        "mean_abs_diff": f"{sum(map(abs, diffs)) / len(diffs):.4f}" if diffs else "",
                        "mean_diff": f"{sum(diffs) / len(diffs):+.4f}" if diffs else ""})
        cells.sort(key=lambda c: (c["key"][2], TEST_SPLITS.index(c["key"][3]), c["key"][4], c["key"][5]))
        for c in cells:
            status = REFUSED if c["refused"] else OUTSIDE if not _within(c["diff"], tolerance) else NOTED if c["note"] else None
            if status is None:
                continue
            k, r = c["key"], c["row"]
            listed.append({"benchmark": bench, "decoder": decoder, "status": status, "domain": k[2], "split": k[3],
                           "system": k[4], "variant": k[5], "run_as": r["beam_mode"], "n_seeds": r["n_seeds"],
                           "ours": r["ours_mean"], "published": r["published_mean"], "diff": f"{c['diff']:+.4f}",
                           "authors": "" if c["authors"] is None else f"{c['authors']:.4f}",
                           "authors_diff": "" if c["authors"] is None else f"{c['authors_diff']:+.4f}",
                           "published_note": c["note"]})
    return summary, listed


def _pub(c: dict) -> str:
    return render.num(float(c["published"])) + (MARK if c["published_note"] else "")


def _authors(c: dict) -> str:
    return "–" if c["authors"] == "" else f"{float(c['authors']):.2f} ({float(c['authors_diff']):+.2f})"


def agreement_md(summary: list[dict], listed: list[dict]) -> str:
    intro = ("# State-centric Table 1: how far ours sits from the published coverage\n\n"
             f"Test cells (interpolation, extrapolation) with a published mean; a cell agrees when "
             f"|ours - published| <= {TOLERANCE:.2f}. `faithful` is the reference code as written: "
             "`reference-nostatics` where run, else `reference-allsplits` (FSF slots sized on every split, the "
             "reference's sizing) where run, `reference` elsewhere (`run as` says which). Published "
             "numbers are means over 3 seeds; ours over the seeds run (`seeds`). On the generated "
             "benchmark the published numbers were measured on other instances.\n\n"
             "A `refused` cell is one where the model refused every problem (an FSF encoder whose slots, sized "
             "on the training and validation problems, are fewer than the problem's objects): its 0 is not a "
             "measurement, so it is neither counted as agreeing nor in the differences; `if refused counted as 0` "
             "is the count as this table gave it before. "
             f"`against the authors' files`: the count with each published number marked {MARK} replaced by "
             "the value its note gives from the authors' own result files, where the note gives one.\n\n")
    head = ["benchmark", "decoder", "cells", "refused", "compared", f"within {TOLERANCE:.2f}", "if refused counted as 0",
            "against the authors' files", f"noted ({MARK})", "mean |diff|", "mean diff"]
    body = [[s["benchmark"], s["decoder"], s["cells"], s["refused"], s["compared"], s["within_tolerance"],
             s["within_counting_refused"], s["within_against_authors"], s["noted"],
             render.num(float(s["mean_abs_diff"])) if s["mean_abs_diff"] else "–",
             f"{float(s['mean_diff']):+.2f}" if s["mean_diff"] else "–"] for s in summary]
    cells_head = ["benchmark", "decoder", "domain", "split", "model", "run as", "seeds", "ours", "published", "diff",
                  "authors' files (diff)"]

    def table(status: str) -> str:
        rows = [[c["benchmark"], c["decoder"], c["domain"], c["split"], f"{c['system']} {c['variant']}", c["run_as"],
                 c["n_seeds"], "refused" if status == REFUSED else render.num(float(c["ours"])), _pub(c),
                 "–" if status == REFUSED else f"{float(c['diff']):+.2f}", _authors(c)]
                for c in listed if c["status"] == status]
        return render.md(cells_head, rows) if rows else "None.\n"

    notes = "".join(dict.fromkeys(f"- {MARK} {c['domain']} {c['split']} {c['system']} {c['variant']}: "
                                  f"{c['published_note']}\n" for c in listed if c["published_note"]))
    return (intro + render.md(head, body) + f"\n## Cells outside {TOLERANCE:.2f}\n\n" + table(OUTSIDE)
            + "\n## Refused cells (not counted)\n\n" + table(REFUSED)
            + f"\n## Cells within {TOLERANCE:.2f} whose published number has a note\n\n" + table(NOTED)
            + ("\n## Notes on the published numbers\n\n" + notes if notes else ""))
