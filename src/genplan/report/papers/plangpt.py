"""The PlanGPT paper's (plangpt-icaps24, Rossetti et al., ICAPS 2024) Table 1 (coverage of CE- and
CES-trained models under greedy, multibeam and top-p decoding), Table 2 (top-p with CES on IPC
problems), Table 3 (coverage and IPC scores of every planner run, beside PlanGPT's and a GNN policy's:
genplan.report.papers.plangpt_table3) and Figure 3 (validation loss and validation coverage per epoch, with the epochs where
cross-entropy early stopping and Planning Coverage Early Stopping keep their weights).

Ours come from the evaluation CSVs and training logs of the `plangpt` family under one results
root; the published numbers were measured on PlanGPT's own test sets (T_set: 6,000+ generated
problems per domain; IPC problems), not on these instances, and the tables say so. Mapping:
`greedy` -> Greedy, `multibeam10` -> Multibeam (N = 10, the most probable of the 10 beams, as the
paper describes), `topp0.9x10` -> Sampling (P = 0.9, 10 samples, solved when one is valid); the
variant is the training's stop rule (`ce` or `ces`). Table 2 reads our extrapolation split as the
IPC set: the published Blocksworld extrapolation set holds IPC instances; for the other domains it
is only the nearest we have. Coverage is per seed, mean (and population std) over seeds, in %.
"""

from __future__ import annotations

from pathlib import Path

from genplan import atomic
from genplan.formats import tables
from genplan.paths import EVAL_SPLITS
from genplan.report import aggregate, collect, render
from genplan.report.papers import plangpt_table3
from genplan.report.published import Published

PAPER, NAME = "plangpt-icaps24", "plangpt"
DOMAINS = {"blocks": "blocksworld", "gripper": "", "logistics": "logistics", "visitall": "visitall",  # ours -> theirs
           **{d: d for d in ("depots", "driverlog", "floortile", "satellite", "zenotravel")}}  # PlanGPT's other five
DECODERS = [("greedy", "greedy"), ("multibeam10", "multibeam10"), ("topp0.9x10", "topp0.9_x10")]  # ours, theirs
STOPS = ("ce", "ces")
COLUMNS = ["benchmark", "domain", "split", "strategy", "stop", "metric", "ours_mean", "ours_std", "n_seeds",
           "n_problems", "published_mean", "published_split", "published_note"]
NOTE = "published on PlanGPT's own instances, not these"


def coverage(rows: list[dict]) -> dict[tuple, dict]:
    """(benchmark, domain, split, strategy, stop) -> coverage in % over seeds."""
    mine = [r for r in rows if r["system"] == "plangpt"]
    out = {}
    for key, rs in aggregate.group(mine, ("benchmark", "domain", "split", "strategy", "variant")).items():
        seeds = aggregate.group(rs, ("seed",))
        per_seed = [100 * sum(r["solved"] == "yes" for r in s) / len(s) for _, s in sorted(seeds.items())]
        mean, std = aggregate.mean_std(per_seed)
        out[key] = {"mean": mean, "std": std if len(per_seed) > 1 else None, "n_seeds": len(per_seed),
                    "n_problems": max(len(s) for s in seeds.values())}
    return out


def _row(key, cell, pub, pub_split) -> dict:
    bench, dom, split, strategy, stop = key
    return {"benchmark": bench, "domain": dom, "split": split, "strategy": strategy, "stop": stop,
            "metric": "coverage_percent", "ours_mean": "" if cell is None else f"{cell['mean']:.2f}",
            "ours_std": "" if cell is None or cell["std"] is None else f"{cell['std']:.2f}",
            "n_seeds": 0 if cell is None else cell["n_seeds"], "n_problems": "" if cell is None else cell["n_problems"],
            "published_mean": "" if pub is None else pub[0], "published_split": pub_split if pub else "",
            "published_note": NOTE if pub else ""}


def table1_rows(cov: dict, pub: Published) -> list[dict]:
    rows = []
    for bench in sorted({k[0] for k in cov}):
        for dom, theirs in DOMAINS.items():
            for split in EVAL_SPLITS:
                for ours, published in DECODERS:
                    for stop in STOPS:
                        cell = cov.get((bench, dom, split, ours, stop))
                        # T_set: problems of the training distribution; beside our validation and interpolation only
                        near = theirs and split != "extrapolation"
                        p = pub.get("1", theirs, "tset", "plangpt", f"{published}/{stop}", "coverage_percent") if near else None
                        if cell is not None:
                            rows.append(_row((bench, dom, split, ours, stop), cell, p, "tset"))
    return rows


def table2_rows(cov: dict, pub: Published) -> list[dict]:
    rows = []
    for bench in sorted({k[0] for k in cov}):
        for dom, theirs in DOMAINS.items():
            cell = cov.get((bench, dom, "extrapolation", "topp0.9x10", "ces"))
            for ipc in ("ipc", "ipc_minus"):
                p = pub.get("2", theirs, ipc, "plangpt", "topp/ces", "coverage_percent") if theirs else None
                if cell is not None or p is not None:
                    rows.append(_row((bench, dom, "extrapolation", "topp0.9x10", "ces"), cell, p, ipc))
    return rows


def _cell(row) -> str:
    if row is None:
        return "–"
    ours = "–" if row["ours_mean"] == "" else render.mean_std(float(row["ours_mean"]),
                                                                 float(row["ours_std"]) if row["ours_std"] else None, 1)
    return f"{ours} ({render.num(float(row['published_mean']), 1) if row['published_mean'] != '' else '–'})"


def table1_md(rows: list[dict]) -> str:
    index = {(r["benchmark"], r["domain"], r["split"], r["strategy"], r["stop"]): r for r in rows}
    headers = ["domain", "split"] + [f"{o} {s.upper()}" for o, _ in DECODERS for s in STOPS]
    out = ["# PlanGPT Table 1: coverage (%) with CE and CES training under each decoding, ours (published)\n"]
    for bench in sorted({r["benchmark"] for r in rows}):
        body = [[dom, split] + [_cell(index.get((bench, dom, split, o, s))) for o, _ in DECODERS for s in STOPS]
                for dom in DOMAINS for split in EVAL_SPLITS
                if any((bench, dom, split, o, s) in index for o, _ in DECODERS for s in STOPS)]
        out += [f"\n## Benchmark {bench}; published: PlanGPT's T_set ({NOTE}); – : not run or not published\n\n",
                render.md(headers, body)]
    return "".join(out)


def table2_md(rows: list[dict]) -> str:
    headers = ["benchmark", "domain", "our split", "ours", "published IPC", "published IPC⁻"]
    index = {(r["benchmark"], r["domain"], r["published_split"] or "ipc"): r for r in rows}
    body = []
    for bench, dom in sorted({(r["benchmark"], r["domain"]) for r in rows}):
        a, b = index.get((bench, dom, "ipc")), index.get((bench, dom, "ipc_minus"))
        first = a or b
        ours = "–" if first is None or first["ours_mean"] == "" else render.num(float(first["ours_mean"]), 1)
        body.append([bench, dom, "extrapolation", ours] + [
            "–" if r is None or r["published_mean"] == "" else render.num(float(r["published_mean"]), 1) for r in (a, b)])
    return ("# PlanGPT Table 2: coverage (%) of top-p sampling (P 0.9, 10 samples) with CES on IPC problems\n\n"
            "Ours: the extrapolation split (Blocksworld's published extrapolation set is IPC instances; for the "
            f"other domains it is our nearest set). Published: {NOTE}.\n\n" + render.md(headers, body))


def training_curves(results: Path) -> list[dict]:
    """Per PlanGPT training run: its log rows (epoch, train_loss, val_loss, val_coverage), the epoch
    cross-entropy early stopping keeps (lowest validation loss), the one CES keeps (highest
    validation coverage, the first of ties) and the one whose weights the run kept (its summary's
    `best_epoch`: with `train.keep: last` the last epoch, whatever the two criteria say)."""
    runs = []
    for s in collect.training_summaries(results, ("plangpt",)):
        rows = [r for r in collect.training_log(s) if r.get("val_loss")]
        if not rows:
            continue
        ce = min(rows, key=lambda r: float(r["val_loss"]))
        cov = [r for r in rows if r.get("val_coverage")]
        ces = max(cov, key=lambda r: (float(r["val_coverage"]), -int(r["epoch"]))) if cov else None
        runs.append({"benchmark": s["benchmark"], "domain": s["domain"], "model": s["model"], "seed": s["seed"],
                     "stop": s.get("stop", ""), "rows": rows, "ce_epoch": int(ce["epoch"]),
                     "ces_epoch": None if ces is None else int(ces["epoch"]),
                     "kept_epoch": s.get("best_epoch")})
    return runs


def figure3(runs: list[dict], stem: Path) -> list[Path]:
    """Validation loss (left) and validation coverage (right) per epoch; black x: CE's stop, red
    star: CES's, as PlanGPT Figure 3 marks them; a ring: the epoch whose weights the run kept."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax_l, ax_c) = plt.subplots(1, 2, figsize=(11, 4))
    for run in runs:
        label = f"{run['benchmark']}/{run['domain']} {run['model']} s{run['seed']}"
        ep = [int(r["epoch"]) for r in run["rows"]]
        loss = [float(r["val_loss"]) for r in run["rows"]]
        line, = ax_l.plot(ep, loss, label=label)
        ce_i = ep.index(run["ce_epoch"])
        ax_l.plot(ep[ce_i], loss[ce_i], "kx", ms=9)
        if run["kept_epoch"] in ep:  # the weights the run planned with (keep: last may differ from CE's stop)
            kept_i = ep.index(run["kept_epoch"])
            ax_l.plot(ep[kept_i], loss[kept_i], "o", mfc="none", color=line.get_color(), ms=10)
        cov = [(int(r["epoch"]), 100 * float(r["val_coverage"])) for r in run["rows"] if r.get("val_coverage")]
        if cov:
            ax_c.plot([e for e, _ in cov], [c for _, c in cov], color=line.get_color(), label=label)
            ces = dict(cov).get(run["ces_epoch"])
            ax_c.plot(run["ces_epoch"], ces, "r*", ms=11)
            if run["ce_epoch"] in dict(cov):
                ax_c.plot(run["ce_epoch"], dict(cov)[run["ce_epoch"]], "kx", ms=9)
    ax_l.set(xlabel="epoch", ylabel="validation loss (plan tokens)",
             title="Cross-entropy (x: CE stop, o: weights kept)")
    ax_c.set(xlabel="epoch", ylabel="validation coverage (%)", title="Coverage (*: CES stop, x: CE stop)")
    ax_c.legend(fontsize=6, loc="best")
    fig.tight_layout()
    from genplan.report.figures import save

    return save(fig, stem, dpi=120)


def build(results: Path, out_dir: Path, published_path=None) -> list[Path]:
    pub = Published.load(PAPER, published_path)
    cov = coverage(collect.evaluation_rows(results))
    t1, t2 = table1_rows(cov, pub), table2_rows(cov, pub)
    written = []
    for name, rows, md in (("table1", t1, table1_md(t1)), ("table2", t2, table2_md(t2))):
        stem = out_dir / "tables" / f"{NAME}-{name}"
        tables.write_csv(stem.with_suffix(".csv"), rows, COLUMNS)
        atomic.write_text(stem.with_suffix(".md"), md)
        written += [stem.with_suffix(".csv"), stem.with_suffix(".md")]
    runs = training_curves(results)
    curve_rows = [{"benchmark": r["benchmark"], "domain": r["domain"], "model": r["model"], "seed": r["seed"],
                   "stop": r["stop"], "epochs": len(r["rows"]), "ce_epoch": r["ce_epoch"],
                   "ces_epoch": "" if r["ces_epoch"] is None else r["ces_epoch"],
                   "kept_epoch": "" if r["kept_epoch"] is None else r["kept_epoch"]} for r in runs]
    stops = out_dir / "tables" / f"{NAME}-figure3-stops.csv"
    tables.write_csv(stops, curve_rows,
                     ["benchmark", "domain", "model", "seed", "stop", "epochs", "ce_epoch", "ces_epoch", "kept_epoch"])
    written.append(stops)
    written += figure3(runs, out_dir / "figures" / f"{NAME}-figure3")
    return written + plangpt_table3.build(results, out_dir, pub)
