"""The state-centric paper's Table 1 (coverage), Table 3 (model sizes), Figures 2-4 (coverage on
the validation, interpolation and extrapolation splits, appendix C.1) and our quality table
(plan length against the best-known length, time per problem), with the published numbers beside.

Table 1 is reported for every beam mode run: `reference` (the paper's decoder, defect 1, the idling beam, included),
`pooled` (ours), their `-nostatics` twins (inference states without static atoms: defect 2, statics at training only), and
their `-allsplits` twins (an FSF model whose slots were sized on every split's object counts, the
reference's sizing: its training summary says `fsf_slots: all_splits`); `variant` is the
prediction mode as published, `beam_mode` says which decoder. In Markdown and LaTeX the paper's
table comes first (each model under the reference code's decoder as written, and the sequence
models), every decoder's own grid after a heading (genplan.report.papers.state_centric_table1).
The validation split selected the checkpoints, so it is reported apart from the test splits."""

from __future__ import annotations

from pathlib import Path

from genplan import atomic
from genplan.domains import DOMAINS
from genplan.formats import tables
from genplan.planners import strategies
from genplan.report import aggregate, collect, figures, render
from genplan.report.best_known import COLUMNS as BEST_KNOWN_COLUMNS
from genplan.report.best_known import best_known, table_rows
from genplan.report.notes import MARK, Marks
from genplan.report.papers import state_centric_agreement as agreement
from genplan.report.papers import state_centric_others as others
from genplan.report.papers import state_centric_quality as quality
from genplan.report.papers import state_centric_statics as statics
from genplan.report.papers import state_centric_table1 as table1
from genplan.report.published import Published

PAPER = "state-centric-icaps26"
NAME = "state-centric"
SYSTEMS = table1.SYSTEMS  # column order of the paper's Table 1 (names, not numbers)
BEAM_MODES, TEST_SPLITS = aggregate.BEAM_MODES, aggregate.TEST_SPLITS
COLUMNS = ["benchmark", "domain", "split", "system", "variant", "metric", "ours_mean", "ours_std", "n_seeds",
           "n_problems", "published_mean", "published_std", "beam_mode", "role", "refused", "published_note"]


def build(results: Path, out_dir: Path, published_path=None) -> list[Path]:
    pub = Published.load(PAPER, published_path)
    every = collect.evaluation_rows(results)
    summaries = collect.training_summaries(results, ("transition",))
    all_splits = {(s["benchmark"], s["domain"], s["model"]) for s in summaries if s.get("fsf_slots") == "all_splits"}
    drop_statics = {(s["benchmark"], s["domain"], s["model"]) for s in summaries if s.get("wl_statics") is False}
    evals = decoder_rows_of(every, all_splits, drop_statics)
    plans = collect.plans_tables(results)
    cov = aggregate.coverage(evals)
    t1 = table1_rows(cov, plans, pub)
    seq = others.table1_rows(every, pub, _row)  # PlanGPT and SymT columns
    grids, rest = table1.grids(t1, seq, pub, lambda rows: others.grids(rows, pub, DOMAINS, table1.cell))
    written = _write(out_dir / "tables" / f"{NAME}-table1", t1 + seq, COLUMNS, grids, "Table 1", rest)
    t3 = table3_rows(summaries, pub)
    written += _write(out_dir / "tables" / f"{NAME}-table3", t3, COLUMNS[:12] + ["published_source", "published_note"],
                      table3_grids(t3, pub), "Table 3")
    d_rows = decoder_rows(cov, t1)
    tables.write_csv(out_dir / "tables" / f"{NAME}-decoders.csv", d_rows, DECODER_COLUMNS)
    _write_md(out_dir / "tables" / f"{NAME}-decoders.md", decoders_md(d_rows))
    written += [out_dir / "tables" / f"{NAME}-decoders.{s}" for s in ("csv", "md")]
    s_cells = statics.rows(cov)
    s_verdicts = statics.verdicts(s_cells, cov)
    tables.write_csv(out_dir / "tables" / f"{NAME}-statics.csv", s_cells, statics.COLUMNS)
    tables.write_csv(out_dir / "tables" / f"{NAME}-statics-verdict.csv", s_verdicts, statics.VERDICT_COLUMNS)
    _write_md(out_dir / "tables" / f"{NAME}-statics.md", statics.statics_md(s_cells, s_verdicts))
    written += [out_dir / "tables" / f"{NAME}-statics{s}" for s in (".csv", "-verdict.csv", ".md")]
    summary, listed = agreement.agreement(t1)
    tables.write_csv(out_dir / "tables" / f"{NAME}-agreement.csv", summary, agreement.SUMMARY_COLUMNS)
    tables.write_csv(out_dir / "tables" / f"{NAME}-agreement-cells.csv", listed, agreement.CELL_COLUMNS)
    _write_md(out_dir / "tables" / f"{NAME}-agreement.md", agreement.agreement_md(summary, listed))
    written += [out_dir / "tables" / f"{NAME}-agreement{s}" for s in (".csv", "-cells.csv", ".md")]
    best = best_known(plans, every)  # every family's solved plans count, not only the transition models'
    q_rows = quality.quality_rows(evals, plans, best)
    tables.write_csv(out_dir / "tables" / f"{NAME}-quality.csv", q_rows, quality.QUALITY_COLUMNS)
    _write_md(out_dir / "tables" / f"{NAME}-quality.md", quality.quality_md(q_rows, quality.source_rows(plans, best)))
    written += [out_dir / "tables" / f"{NAME}-quality.{s}" for s in ("csv", "md")]
    tables.write_csv(out_dir / "tables" / f"{NAME}-best-known.csv", table_rows(best), BEST_KNOWN_COLUMNS)
    written.append(out_dir / "tables" / f"{NAME}-best-known.csv")  # each problem's best known and its plan set
    for number, split in ((2, "validation"), (3, "interpolation"), (4, "extrapolation")):
        written += figures.coverage_figure(t1, split, out_dir / "figures" / f"{NAME}-figure{number}", SYSTEMS,
                                           lambda d, sp, sy, v: pub.get("1", d, sp, sy, v, "coverage"))
    return written


def decoder_rows_of(rows: list[dict], all_splits: set = frozenset(), drop_statics: set = frozenset()) -> list[dict]:
    """The transition models' rows with a width-3 beam (the paper's decoder), each with `mode`
    (the variant) and `beam_mode` (the decoder: `pooled`, `reference-nostatics`, ...; suffixed
    `-allsplits` for a model of `all_splits`: (benchmark, domain, model) of FSF models whose slots
    were sized on every split; `-dropstatics` for one of `drop_statics`: WL models without static
    atoms at training and inference)."""
    out = []
    names = {s for s, _ in SYSTEMS}
    for r in rows:
        if r["system"] not in names:
            continue
        strategy = strategies.parse(r["strategy"])
        if strategy.kind == "beam" and strategy["width"] == 3:
            key = (r["benchmark"], r["domain"], r["model"])
            suffix = (aggregate.ALL_SPLITS if key in all_splits else aggregate.DROP_STATICS if key in drop_statics
                      else "")
            out.append({**r, "mode": r["variant"], "beam_mode": strategies.beam_mode(strategy) + suffix,
                        "expansions": r["counters"].get("states_expanded", 0)})
    return out


def _write_md(path: Path, text: str) -> None:
    atomic.write_text(path, text)


def _write(stem: Path, rows, columns, grids, title, rest=()) -> list[Path]:
    """The CSV of `rows`, and `grids` in Markdown and LaTeX; `rest` (Table 1's other decoders and
    benchmarks) after a heading of their own (table1.OTHERS)."""
    tables.write_csv(stem.with_suffix(".csv"), rows, columns)
    md = [f"# State-centric {title}: ours beside the published numbers\n"]
    if rest:
        md.append(f"\nThe paper's table first; every other decoder and benchmark after the heading "
                  f"\"{table1.OTHERS}\".\n")
    tex = []
    for i, (caption, headers, body, *notes) in enumerate([*grids, *rest]):  # notes: the grid's Marks
        if rest and i == len(grids):
            md.append(f"\n# {table1.OTHERS}\n")
        md += [f"\n## {caption}\n\n", render.md(headers, body), notes[0].md() if notes else ""]
        tex.append(render.tex(headers, body, " ".join([caption, notes[0].text() if notes else ""]).strip()))
    _write_md(stem.with_suffix(".md"), "".join(md))
    _write_md(stem.with_suffix(".tex"), "\n".join(tex))
    return [stem.with_suffix(s) for s in (".csv", ".md", ".tex")]


def table1_rows(cov: dict[tuple, dict], plans: dict, pub: Published) -> list[dict]:
    """Fast Downward's coverage from the plans tables, and each model's `cov` (aggregate.coverage)."""
    rows = []
    for (bench, dom, split), table in plans.items():
        mean, n = aggregate.planner_coverage(table, "astar_lmcut")
        p = pub.get("1", dom, split, "fast_downward", "astar_lmcut", "coverage")
        note = pub.note("1", dom, split, "fast_downward", "astar_lmcut", "coverage")
        rows.append(_row(bench, dom, split, "fast_downward", "astar_lmcut", mean, None, 1, n, p, "", note=note))
    for (bench, dom, split, system, mode, beam), c in cov.items():
        p = pub.get("1", dom, split, system, mode, "coverage")
        note = pub.note("1", dom, split, system, mode, "coverage")
        rows.append(_row(bench, dom, split, system, mode, c["mean"], c["std"], c["n_seeds"], c["n_problems"], p, beam,
                         refused=c["refused"], note=note))
    return rows


def _row(bench, dom, split, system, variant, mean, std, n_seeds, n_problems, pub, beam, metric="coverage",
         refused="", note=""):
    """One Table 1 (or Table 3) row; `refused`: aggregate.coverage's label, `note`: the published
    number's note."""
    return {"benchmark": bench, "domain": dom, "split": split, "system": system, "variant": variant, "refused": refused,
            "published_note": note,
            "metric": metric, "ours_mean": f"{mean:.4f}", "ours_std": "" if std is None else f"{std:.4f}", "n_seeds": n_seeds,
            "n_problems": n_problems, "published_mean": "" if pub is None else pub[0],
            "published_std": "" if pub is None or pub[1] is None else pub[1], "beam_mode": beam,
            "role": "validation (checkpoint selection)" if split == "validation" else ("test" if split else "")}


def _f(value):
    return None if value in ("", None) else float(value)


def table3_rows(summaries: list[dict], pub: Published) -> list[dict]:
    """One labelled row per model (benchmark, domain, model): its feature dimension, and its LSTM
    parameters or XGBoost tree nodes; mean over its seeds, from the transition models' summaries.
    `system` is the encoding (a dimension) or encoding_learner (a size), `variant` the rest of the
    model's name, so that a twin (`_dropstatics`, `_allsplits`: `twin`) is never pooled with, nor
    mistaken for, the paper's model; only the paper's models are set beside the published numbers."""
    for s in summaries:
        s["encoding"], s["learner"], s["mode"] = (s["model"].split("_") + ["", "", ""])[:3]
    dims = ("feature_dim", "dim", "feature_dimension")
    sizes = {"lstm": ("parameters", ("lstm_parameters", "parameters")),
             "xgb": ("tree_nodes", ("xgb_nodes", "xgb_tree_nodes", "tree_nodes"))}
    dim_rows, size_rows = [], []
    for (bench, dom, model), ss in sorted(aggregate.group(summaries, ("benchmark", "domain", "model")).items()):
        enc, learner, mode = ss[0]["encoding"], ss[0]["learner"], ss[0]["mode"]
        paper = not twin(model)
        dim_rows += _t3(bench, dom, enc, model[len(enc) + 1:], f"{enc}_dim",
                        [collect.summary_value(s, *dims) for s in ss], pub, paper)
        if learner in sizes:
            what, keys = sizes[learner]
            size_rows += _t3(bench, dom, f"{enc}_{learner}", "_".join(x for x in (mode, twin(model)) if x),
                             f"{enc}_{learner}_{what}", [collect.summary_value(s, *keys) for s in ss], pub, paper)
    return dim_rows + size_rows


def twin(model: str) -> str:
    """What a model name adds to the paper's `<encoding>_<learner>_<mode>` (`dropstatics`,
    `allsplits`), or "" for one of the paper's models."""
    return "_".join(model.split("_")[3:])


def _t3(bench, dom, system, variant, metric, values, pub, compare=True) -> list[dict]:
    """The rows of one model's metric: beside each published source where `compare`, else one."""
    values = [float(v) for v in values if isinstance(v, (int, float))]
    if not values:
        return []
    mean, std = aggregate.mean_std(values)
    std = std if len(values) > 1 else None
    sources = [("table 3", pub.get("3", dom, "", "", "", metric), pub.note("3", dom, "", "", "", metric))]
    if metric == "wl_dim":
        sources.append(("appendix E.4", pub.get("E.4", dom, "", "wl", "", metric), pub.note("E.4", dom, "", "wl", "", metric)))
    if not compare:
        sources = [("", None, "")]
    rows = []
    for source, p, note in sources:
        row = _row(bench, dom, "", system, variant, mean, std, len(values), "", p, "", metric, note=note)
        rows.append({**row, "published_source": source if p else "", "role": ""})
    return rows


def table3_grids(rows: list[dict], pub: Published) -> list[tuple]:
    headers = ["domain", "model", "metric", "ours mean±std over seeds", "published", "published in"]
    out = []
    for bench in sorted({r["benchmark"] for r in rows}):
        marks = Marks(pub, "3")
        sel = [[r["domain"], "_".join(x for x in (r["system"], r["variant"]) if x), r["metric"],
                render.mean_std(_f(r["ours_mean"]), _f(r["ours_std"]), 0),
                render.num(_f(r["published_mean"]), 0) + _t3_mark(marks, r), r["published_source"] or "–"]
               for r in rows if r["benchmark"] == bench]
        out.append((f"Feature dimensions and model sizes, benchmark {bench}, one row per model (mean over its seeds); "
                    "the twins (`_dropstatics`, `_allsplits`) are not the paper's models and have no published "
                    "number; the published LSTM count matches a 2x256 LSTM with the state-mode head, the XGBoost "
                    "mode is not stated", headers, sel, marks))
    return out


def _t3_mark(marks: Marks, r: dict) -> str:
    if not r["published_note"]:
        return ""
    if r["published_source"] == "appendix E.4":
        return marks.mark(r["domain"], "", "wl", "", table="E.4", metric=r["metric"])
    return marks.mark(r["domain"], "", "", "", metric=r["metric"])


DECODER_COLUMNS = ["benchmark", "domain", "split", "system", "variant", "n_problems", "published", *BEAM_MODES,
                   *[f"{b}_seeds" for b in BEAM_MODES], "beam_fix", "static_fix", "refused", "published_note"]


def decoder_rows(cov: dict[tuple, dict], t1: list[dict]) -> list[dict]:
    """Coverage of one model under each decoder run (`cov`: aggregate.coverage, mean over its
    seeds), side by side: `beam_fix` = pooled - reference (defect 1, the idling beam), `static_fix` = reference -
    reference-nostatics (defect 2, statics at training only), each a mean over the seeds that both decoders ran; blank when
    not run. Published numbers come from Table 1's rows `t1`."""
    published = {(r["benchmark"], r["domain"], r["split"], r["system"], r["variant"]): r["published_mean"] for r in t1}
    notes = {(r["benchmark"], r["domain"], r["split"], r["system"], r["variant"]): r["published_note"] for r in t1}
    groups = aggregate.group([{"key": k[:5], "beam": k[5], **c} for k, c in cov.items()], ("key",))
    rows = []
    for ((bench, dom, split, system, variant),), rs in groups.items():
        by = {r["beam"]: r for r in rs}

        def diff(a, b, by=by):  # by bound now: ruff's B023 cannot see diff is called in this iteration
            if a not in by or b not in by:
                return ""
            common = sorted(set(by[a]["per_seed"]) & set(by[b]["per_seed"]))
            return f"{sum(by[a]['per_seed'][s] - by[b]['per_seed'][s] for s in common) / len(common):+.4f}" if common else ""

        rows.append({"benchmark": bench, "domain": dom, "split": split, "system": system, "variant": variant,
                     "n_problems": rs[0]["n_problems"], "published": published.get((bench, dom, split, system, variant), ""),
                     **{b: f"{by[b]['mean']:.4f}" if b in by else "" for b in BEAM_MODES},
                     **{f"{b}_seeds": by[b]["n_seeds"] if b in by else "" for b in BEAM_MODES},
                     "beam_fix": diff("pooled", "reference"), "static_fix": diff("reference", "reference-nostatics"),
                     "refused": ";".join(b for b in BEAM_MODES if b in by and by[b]["refused"] == "all"),
                     "published_note": notes.get((bench, dom, split, system, variant), "")})
    order = {s: i for i, s in enumerate(("validation", *TEST_SPLITS))}
    rows.sort(key=lambda r: (r["benchmark"], r["domain"], order.get(r["split"], 9), r["system"], r["variant"]))
    return rows


def _signed(value: str) -> str:
    """A difference of two coverages for reading: two decimals with its sign, – when not run."""
    return f"{float(value):+.2f}" if value else "–"


def _coverage_cell(row: dict, beam: str) -> str:
    """Coverage under one decoder (`refused` when it refused every problem); its seed count when
    fewer seeds ran it than another decoder."""
    if beam in row["refused"].split(";"):
        return "refused"
    most = max(int(row[f"{b}_seeds"]) for b in BEAM_MODES if row[f"{b}_seeds"] != "")
    n = row[f"{beam}_seeds"]
    suffix = f" ({n} seed{'s' if int(n) > 1 else ''})" if n != "" and int(n) < most else ""
    return render.num(_f(row[beam])) + suffix


def decoders_md(rows: list[dict]) -> str:
    modes = [b for b in BEAM_MODES if any(r[b] for r in rows) or b in aggregate.BEAM_MODES[:4]]
    headers = ["benchmark", "domain", "split", "model", "published", *modes, "beam fix", "static-atom fix"]
    body = [[r["benchmark"], r["domain"], r["split"], f"{r['system']} {r['variant']}",
             render.num(_f(r["published"])) + (MARK if r["published_note"] else ""),
             *[_coverage_cell(r, b) for b in modes], _signed(r["beam_fix"]), _signed(r["static_fix"])] for r in rows]
    noted = [r for r in rows if r["published_note"]]
    intro = ("# State-centric decoders side by side: coverage (mean over seeds)\n\n"
             "`reference-nostatics` is the reference's decoder as written (defects 1 and 2), `reference` fixes "
             "the static atoms (defect 2), `pooled` also fixes the beam (defect 1, our default); "
             "`pooled-nostatics` keeps defect 2 only; `-allsplits` (shown where run): an FSF model whose slots "
             "were sized on every split's object counts (the reference's sizing, defect 6); `-dropstatics` (shown where run): a WL "
             "model without static atoms at training and inference alike (`encoder: {statics: false}`). Beam fix = pooled - reference; static-atom fix = "
             "reference - reference-nostatics; each difference is a mean over the seeds both decoders ran. "
             "A decoder run on fewer seeds than another shows its count. A cell with – was not run; `refused`: "
             "the model refused every problem (more objects than its FSF slots). † a published number with a note, "
             "below.\n\n")
    notes = "".join(dict.fromkeys(f"- {MARK} {r['domain']} {r['split']} {r['system']} {r['variant']}: "
                                  f"{r['published_note']}\n" for r in noted))
    return intro + render.md(headers, body) + ("\n" + notes if notes else "")
