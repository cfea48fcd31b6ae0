"""The state-centric Table 1's columns of the systems that are not transition models: PlanGPT
(greedy, applicability-filtered, regrounding), SymT^E (greedy heuristic guidance) and SymT^ED
(the same three decodings), as the paper copies them from the SymT paper. Ours come from the same
evaluation CSVs as SymT Table 2 (genplan.report.papers.symt: CE-trained PlanGPT, every seed), so
the two tables can never disagree; a published cell of a family we have not run reads "–"."""

from __future__ import annotations

from genplan.paths import EVAL_SPLITS
from genplan.report.notes import Marks
from genplan.report.papers import symt
from genplan.report.published import Published

SYSTEMS = symt.SYSTEMS


def table1_rows(evals: list[dict], pub: Published, row) -> list[dict]:
    """Table 1 rows (the state-centric COLUMNS, made by `row`) of every cell we ran."""
    out = []
    for (bench, dom, split, system, variant), c in sorted(symt._cells(evals).items()):
        p = pub.get("1", dom, split, system, variant, "coverage")
        out.append(row(bench, dom, split, system, variant, c["mean"], c["std"], c["n_seeds"], c["n_problems"], p, "",
                       note=pub.note("1", dom, split, system, variant, "coverage")))
    return out


def grids(rows: list[dict], pub: Published, domains, cell) -> list[tuple]:
    """One grid per benchmark with a sequence model: ours (published) per domain and split, a
    published number with a note marked (the notes below the grid)."""
    index = {(r["benchmark"], r["domain"], r["split"], r["system"], r["variant"]): r for r in rows
             if (r["system"], r["variant"]) in SYSTEMS}
    headers = ["domain", "split"] + [f"{s} {v}" for s, v in SYSTEMS]
    out = []
    for bench in sorted({k[0] for k in index}):
        marks = Marks(pub, "1")
        body = [[dom, split] + [cell(index.get((bench, dom, split, s, v)), pub.get("1", dom, split, s, v, "coverage"),
                                     mark=marks.mark(dom, split, s, v))
                                for s, v in SYSTEMS]
                for dom in domains for split in EVAL_SPLITS
                if any((bench, dom, split, s, v) in index for s, v in SYSTEMS)]
        if body:
            caption = (f"Coverage of the sequence models, benchmark {bench} (validation selected their checkpoints): "
                       "ours mean±std over seeds (published mean±std" +
                       (")" if bench == "paper" else ", measured on the papers' instances, not these)"))
            out.append((caption, headers, body, marks))
    return out

