"""The plan-diffusion paper's tables and figure, ours beside the published numbers, from committed
files only (evaluation CSVs and unmasking traces under one results root):

- Table 1: coverage and quality on validation and interpolation (and, beyond the paper,
  extrapolation), diffusion (`unmask-T20`, the model's variant as published: `confidence_remask`)
  beside PlanGPT greedy (CE-trained) and SymT^ED greedy (contrastive) from our own runs where they
  exist; our other diffusion models (the Beta schedule, the symmetry-aware denoiser) and T = 20
  samplers (applicability-aware, blocks, Gumbel) as extra columns with the strategy named. Coverage: fraction solved per seed; quality:
  the sum of best-known / length over solved problems divided by all problems (so quality equals
  coverage when every plan is optimal, as in the paper); mean and population std over seeds.
- Table 2: the unmasking trace of one Blocksworld problem at T = 20 (`genplan solve --trace`,
  committed under ``<root>/traces/<benchmark>/blocks/<model>/seed<seed>/<problem>.unmask-T20.json``),
  each step's revealed tokens in bold, the #<MASK> and #<PAD> columns as the paper's.
- Table 3 (problem sizes) is our dataset-statistics table (`results/tables/dataset-statistics.md`).
- Figure 4: coverage and time per plan against T on Blocksworld interpolation, mean and std over
  seeds, one curve per diffusion variant (uniform and Beta schedules); its numbers also as CSV.
"""

from __future__ import annotations

import json
from pathlib import Path

from genplan import atomic
from genplan.formats import tables
from genplan.report import aggregate, collect, render
from genplan.report.published import Published

PAPER, NAME = "plan-diffusion", "diffusion"
DOMAINS = ("blocks", "gripper", "visitall", "logistics")  # the paper's order
SPLITS = ("validation", "interpolation", "extrapolation")
MAIN = "unmask-T20"
# our baselines: (system, the model's variant, strategy), reported as the paper's variant `greedy`:
# PlanGPT trained with CE (as SymT Table 2 counts it), SymT^ED with both contrastive losses
BASELINES = (("plangpt", "ce", "greedy"), ("symt_ed", "contrastive", "greedy"))
COLUMNS = ["benchmark", "domain", "split", "system", "variant", "strategy", "metric", "ours_mean", "ours_std",
           "n_seeds", "n_problems", "published_mean", "published_std"]
FIG_COLUMNS = ["benchmark", "variant", "model", "steps", "coverage_mean", "coverage_std", "time_mean", "time_std",
               "n_seeds", "n_problems"]


def _per_seed(rows: list[dict]) -> tuple[list[float], list[float], list[float], int]:
    """Coverage, quality and mean time per plan, one value per seed; and the problem count."""
    cov, qual, time = [], [], []
    seeds = aggregate.group(rows, ("seed",))
    for _, srs in sorted(seeds.items()):
        n = len(srs)
        cov.append(sum(r["solved"] == "yes" for r in srs) / n)
        qual.append(sum(float(r["quality"]) for r in srs if r["solved"] == "yes" and r["quality"] not in ("", None)) / n)
        times = [float(r["time"]) for r in srs if r["time"] not in ("", None)]
        time.append(sum(times) / len(times) if times else float("nan"))
    return cov, qual, time, max(len(s) for s in seeds.values())


def _stat(values: list[float]) -> tuple[float, float | None]:
    mean, std = aggregate.mean_std(values)
    return mean, (std if len(values) > 1 else None)


def _fmt(x) -> str:
    return "" if x is None else f"{x:.4f}"


def _table1_strategy(strategy: str) -> bool:
    """Table 1 shows T = 20 (the paper's Table 2 setting) in every sampler variant; other T are
    Figure 4's."""
    from genplan.planners.strategies import parse

    s = parse(strategy)
    return s.kind.startswith("unmask") and s["steps"] == 20


def table1_rows(rows: list[dict], pub: Published) -> list[dict]:
    out = []
    mine = []
    for r in rows:
        if (r["system"], r["variant"], r["strategy"]) in BASELINES:
            mine.append({**r, "variant": "greedy"})
        elif r["system"] == "diffusion" and _table1_strategy(r["strategy"]):
            mine.append(r)
    groups = aggregate.group(mine, ("benchmark", "domain", "split", "system", "variant", "strategy"))
    benches = sorted({k[0] for k in groups}) or ["paper"]
    for bench in benches:
        for dom in DOMAINS:
            for split in SPLITS:
                cells = [(s, "greedy", strat) for s, _, strat in BASELINES]
                found = {(k[3], k[4], k[5]) for k in groups if k[:3] == (bench, dom, split) and k[3] == "diffusion"}
                cells += sorted(found | {("diffusion", "confidence_remask", MAIN)}, key=lambda c: (c[1], c[2] != MAIN, c[2]))
                for system, variant, strategy in cells:
                    rs = groups.get((bench, dom, split, system, variant, strategy))
                    main = system != "diffusion" or (variant == "confidence_remask" and strategy == MAIN)
                    stats = _per_seed(rs) if rs else None
                    for i, metric in enumerate(("coverage", "quality")):
                        p = pub.get("1", dom, split, system, variant, metric) if main else None
                        if stats is None and p is None:
                            continue
                        mean, std = _stat(stats[i]) if stats else (None, None)
                        out.append({"benchmark": bench, "domain": dom, "split": split, "system": system,
                                    "variant": variant, "strategy": strategy, "metric": metric,
                                    "ours_mean": _fmt(mean), "ours_std": _fmt(std),
                                    "n_seeds": len(stats[0]) if stats else 0, "n_problems": stats[3] if stats else "",
                                    "published_mean": "" if p is None else p[0],
                                    "published_std": "" if p is None or p[1] is None else p[1]})
    return out


def _f(value):
    return None if value in ("", None) else float(value)


def _cell(r: dict | None) -> str:
    if r is None:
        return "–"
    ours = render.mean_std(_f(r["ours_mean"]), _f(r["ours_std"]))
    pub = render.mean_std(_f(r["published_mean"]), _f(r["published_std"]))
    return ours if r["published_mean"] == "" else f"{ours} ({pub})"


def table1_md(rows: list[dict]) -> tuple[str, str]:
    md, tex = ["# Plan diffusion, Table 1: coverage and quality, ours mean±std over seeds (published mean±std)\n"], []
    for bench in sorted({r["benchmark"] for r in rows}):
        index = {(r["domain"], r["split"], r["system"], r["variant"], r["strategy"], r["metric"]): r
                 for r in rows if r["benchmark"] == bench}
        cols = sorted({k[2:5] for k in index}, key=lambda c: (c[0] != "plangpt", c[0] != "symt_ed", c[1], c[2] != MAIN, c[2]))
        headers = ["domain", "split"] + [f"{s} {v} [{st}] {m}" for s, v, st in cols for m in ("coverage", "quality")]
        for splits, title in ((SPLITS[:2], "validation and interpolation (the paper's Table 1)"),
                              (SPLITS[2:], "extrapolation (not in the paper)")):
            body = []
            for dom in DOMAINS:
                for split in splits:
                    cells = [index.get((dom, split, *c, m)) for c in cols for m in ("coverage", "quality")]
                    if any(cells):
                        body.append([dom, split] + [_cell(c) for c in cells])
            if not body:
                continue
            note = "" if bench == "paper" else ", published numbers measured on the papers' instances, not these"
            caption = f"Benchmark {bench}, {title}{note}; – : not run"
            md += [f"\n## {caption}\n\n", render.md(headers, body)]
            tex.append(render.tex(headers, body, caption))
    md.append("\nProblem sizes (the paper's Table 3): see `dataset-statistics.md`.\n")
    return "".join(md), "\n".join(tex)


def trace_files(results: Path) -> list[Path]:
    return sorted((results / "traces").glob(f"*/blocks/*/seed*/*.{MAIN}.json"))


def _short(tokens: list[str], new: set[int]) -> str:
    """The sequence up to its last token that is neither <mask> nor <pad> (then ...), newly
    revealed tokens in bold."""
    last = max([i for i, t in enumerate(tokens) if t not in ("<mask>", "<pad>")] + [0])
    shown = [f"**{t}**" if i in new else t for i, t in enumerate(tokens[:last + 2])]
    return ", ".join(shown) + (", ..." if last + 2 < len(tokens) else "")


def table2_md(results: Path) -> str:
    files = trace_files(results)
    head = "# Plan diffusion, Table 2: the unmasking trace of a Blocksworld problem at T = 20\n\n"
    if not files:
        return head + ("No trace committed. Make one with `genplan solve --model <diffusion model.ckpt> "
                       "<domain.pddl> <a 4-block problem> --strategy unmask-T20 --trace "
                       f"<root>/traces/<benchmark>/blocks/<model>/seed<seed>/<problem>.{MAIN}.json`.\n")
    out = [head]
    for path in files:
        doc = json.loads(path.read_text())
        names = {"<start>": "<BOS>", "<end>": "<EOS>", "<pad>": "<PAD>", "<mask>": "<MASK>"}
        out.append(f"## {doc['problem']} ({doc['num_objects']} objects), model {doc['model']} seed {doc['seed']}, "
                   f"{doc['plan_positions']} plan positions\n\n")
        body = [[r["step"], _short([names.get(t, t) for t in r["tokens"]], set(r["new"])).replace("<", "&lt;"),
                 r["mask"], r["pad"]] for r in doc["steps"]]
        out.append(render.md(["step", "token sequence (new in bold)", "#MASK", "#PAD"], body) + "\n")
    return "".join(out)


def figure4_rows(rows: list[dict]) -> list[dict]:
    from genplan.planners.strategies import parse

    sel = []
    for r in rows:
        if r["system"] == "diffusion" and r["domain"] == "blocks" and r["split"] == "interpolation":
            s = parse(r["strategy"])
            if s.kind == "unmask" and s["blocks"] == 1 and s["tau"] == 0:
                sel.append({**r, "steps": s["steps"]})
    out = []
    for (bench, variant, model, steps), rs in sorted(aggregate.group(sel, ("benchmark", "variant", "model", "steps")).items()):
        cov, _, time, n = _per_seed(rs)
        (cm, cs), (tm, ts) = _stat(cov), _stat(time)
        out.append({"benchmark": bench, "variant": variant, "model": model, "steps": steps, "coverage_mean": _fmt(cm),
                    "coverage_std": _fmt(cs), "time_mean": _fmt(tm), "time_std": _fmt(ts), "n_seeds": len(cov),
                    "n_problems": n})
    return out


def figure4(rows: list[dict], stem: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 3.6))
    for (bench, variant, model), rs in sorted(aggregate.group(rows, ("benchmark", "variant", "model")).items()):
        rs = sorted(rs, key=lambda r: r["steps"])
        x = [r["steps"] for r in rs]
        for ax, key in ((a1, "coverage"), (a2, "time")):
            m = [float(r[f"{key}_mean"]) for r in rs]
            s = [float(r[f"{key}_std"] or 0.0) for r in rs]
            ax.plot(x, m, marker="o", label=f"{model} ({variant}, {bench})")
            ax.fill_between(x, [a - b for a, b in zip(m, s)], [a + b for a, b in zip(m, s)], alpha=0.2)
    a1.set(xlabel="denoising steps T", ylabel="coverage", title="Blocksworld interpolation")
    a2.set(xlabel="denoising steps T", ylabel="time per plan (s)")
    if rows:
        a1.legend(fontsize=7)
    else:
        a1.text(0.5, 0.5, "no diffusion evaluations", ha="center", transform=a1.transAxes)
    fig.tight_layout()
    from genplan.report.figures import save

    return save(fig, stem)


def build(results: Path, out_dir: Path, published_path=None) -> list[Path]:
    pub = Published.load(PAPER, published_path)
    rows = collect.evaluation_rows(results)
    t1 = table1_rows(rows, pub)
    stem = out_dir / "tables" / f"{NAME}-table1"
    tables.write_csv(stem.with_suffix(".csv"), t1, COLUMNS)
    md, tex = table1_md(t1)
    atomic.write_text(stem.with_suffix(".md"), md)
    atomic.write_text(stem.with_suffix(".tex"), tex)
    t2 = out_dir / "tables" / f"{NAME}-table2.md"
    atomic.write_text(t2, table2_md(results))
    f4 = figure4_rows(rows)
    f4_csv = out_dir / "tables" / f"{NAME}-figure4.csv"
    tables.write_csv(f4_csv, f4, FIG_COLUMNS)
    figs = figure4(f4, out_dir / "figures" / f"{NAME}-figure4")
    return [stem.with_suffix(s) for s in (".csv", ".md", ".tex")] + [t2, f4_csv] + figs
