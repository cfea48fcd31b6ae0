"""The state-centric Table 1's grids (Markdown and LaTeX), in the order a reader looks for them.

First the paper's Table 1: each transition model under the reference code's decoder as written
(`faithful`, the cell genplan.report.papers.state_centric_agreement compares: `reference-nostatics`
where run, else `reference-allsplits`, else `reference`; the grid's caption counts the cells of
each), then the sequence models' columns. After the heading `OTHERS`, every decoder run on a grid of
its own (our fixes and the twins) and every other benchmark: useful, but not the paper's table."""

from __future__ import annotations

from collections import Counter

from genplan.domains import DOMAINS
from genplan.report import aggregate, render
from genplan.report.notes import Marks
from genplan.report.papers.state_centric_agreement import FAITHFUL_ORDER
from genplan.report.published import Published

# Column order of the paper's Table 1 (names, not numbers).
SYSTEMS = [(f"{e}_{l}", m) for e in ("wl", "fsf") for l in ("lstm", "xgb") for m in ("state", "delta")]
BEAM_MODES, TEST_SPLITS = aggregate.BEAM_MODES, aggregate.TEST_SPLITS
PAPER_BENCHMARK = "paper"
OTHERS = "Other decoders and benchmarks: not the paper's Table 1"
ROLES = ((TEST_SPLITS, "test splits"),
         (("validation",), "validation split, reported apart: it selected the checkpoints"))
REFUSED = ("refused: the model refused every problem (more objects than its FSF slots), not a coverage of 0; "
           "† a published number with a note, below")


def grids(rows: list[dict], seq_rows: list[dict], pub: Published, seq_grids) -> tuple[list[tuple], list[tuple]]:
    """(the paper's grids, the others). The paper's: the faithful decoder's grids of the paper's
    benchmark and its sequence models' grid (`seq_grids(rows of one benchmark)`: genplan.report.papers.
    state_centric_others.grids); the others: each decoder's grids, then every other benchmark's.
    Without the paper's benchmark every grid is in the first part and none in the second."""
    first, rest = [], []
    for bench in _benchmarks(rows + seq_rows):
        mine = [r for r in rows if r["benchmark"] == bench]
        lead = faithful_grids(mine, pub) + seq_grids([r for r in seq_rows if r["benchmark"] == bench])
        if bench == PAPER_BENCHMARK:
            first, rest = lead, decoder_grids(mine, pub) + rest
        else:
            rest += lead + decoder_grids(mine, pub)
    return (first, rest) if first else (rest, [])  # no paper benchmark: no heading to set them apart


def _of(bench: str) -> str:
    return f"Coverage, benchmark {bench}"


def _published(bench: str) -> str:
    return "(published mean±std" + (")" if bench == PAPER_BENCHMARK else
                                    ", measured on the papers' instances, not these)")


def _benchmarks(rows: list[dict]) -> list[str]:
    return sorted({r["benchmark"] for r in rows}, key=lambda b: (b != PAPER_BENCHMARK, b))


def cell(row, pub, digits=2, mark="") -> str:
    """`ours (published)`; ours `refused` when the model refused every problem of the cell (never a
    0 that looks measured), the published number followed by `mark` (a noted number: †)."""
    if row is None:
        ours = "–"
    elif row.get("refused") == "all":
        ours = "refused"
    else:
        ours = render.mean_std(_f(row["ours_mean"]), _f(row["ours_std"]), digits)
    return f"{ours} ({render.mean_std(pub[0], pub[1], digits) + mark if pub else '–'})"


def _grid(index: dict, bench: str, splits, doms, beams: tuple, pub: Published, marks: Marks,
          used: Counter) -> list[list[str]]:
    """The body of one grid: Fast Downward's cell and each model's under the first of `beams` run
    for it (counted in `used`); a row where neither we nor the paper have a number is left out."""
    keys = [("fast_downward", "astar_lmcut")] + SYSTEMS
    body = []
    for dom in doms:
        for split in splits:
            found = []
            for s, m in keys:
                beam = "" if s == "fast_downward" else next(
                    (b for b in beams if (bench, dom, split, s, m, b) in index), None)
                if beam:
                    used[beam] += 1
                found.append(index.get((bench, dom, split, s, m, beam)))
            published = [pub.get("1", dom, split, s, m, "coverage") for s, m in keys]
            if all(r is None and p is None for r, p in zip(found, published)):
                continue
            body.append([dom, split] + [cell(r, p, mark=marks.mark(dom, split, s, m))
                                        for r, p, (s, m) in zip(found, published, keys)])
    return body


def _index(rows):
    return {(r["benchmark"], r["domain"], r["split"], r["system"], r["variant"], r["beam_mode"]): r for r in rows}


def _headers():
    return ["domain", "split", "FD A*+LM-cut"] + [f"{s} {m}" for s, m in SYSTEMS]


def decoder_grids(rows: list[dict], pub: Published) -> list[tuple]:
    """One grid per benchmark, decoder run and role (test splits, validation)."""
    index, grids = _index(rows), []
    for bench in _benchmarks(rows):
        beams = _order([r["beam_mode"] for r in rows if r["benchmark"] == bench and r["beam_mode"]], BEAM_MODES)
        doms = _order([r["domain"] for r in rows if r["benchmark"] == bench], DOMAINS)
        for beam in beams or [""]:
            for splits, role in ROLES:
                marks = Marks(pub, "1")
                body = _grid(index, bench, splits, doms, (beam,), pub, marks, Counter())
                if body:
                    caption = (f"{_of(bench)}, {beam or 'no'} beam decoder, {role}: ours mean±std over seeds "
                               f"{_published(bench)}; {REFUSED}")
                    grids.append((caption, _headers(), body, marks))
    return grids


def faithful_grids(rows: list[dict], pub: Published) -> list[tuple]:
    """Per benchmark and role, each model's cell under the reference code's decoder as written: the
    first of FAITHFUL_ORDER run for it (the caption counts the cells run as each); none where no
    reference decoder ran."""
    index, grids = _index(rows), []
    for bench in _benchmarks(rows):
        doms = _order([r["domain"] for r in rows if r["benchmark"] == bench], DOMAINS)
        for splits, role in ROLES:
            marks, used = Marks(pub, "1"), Counter()
            body = _grid(index, bench, splits, doms, FAITHFUL_ORDER, pub, marks, used)
            if body and used:
                run_as = ", ".join(f"`{b}` {used[b]}" for b in FAITHFUL_ORDER if used[b])
                caption = (f"{_of(bench)}, the paper's decoder (the reference code as written: each model's "
                           f"`reference-nostatics` cell where run, else `reference-allsplits`, else `reference`; "
                           f"cells run as {run_as}), {role}: ours mean±std over seeds {_published(bench)}; "
                           f"{REFUSED}")
                grids.append((caption, _headers(), body, marks))
    return grids


def _order(values, preferred) -> list:
    vals = set(values)
    return [v for v in preferred if v in vals] + sorted(vals - set(preferred))


def _f(value):
    return None if value in ("", None) else float(value)
