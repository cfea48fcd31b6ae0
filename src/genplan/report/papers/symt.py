"""The SymT paper's (symt-aaai26) Table 2, coverage of the sequence models on every domain and split
under each decoding, and Table 1's parameter counts, with the published numbers beside ours.

Ours come from the evaluation CSVs (one row per problem, VAL's verdict) and the training
summaries under one results root; a published cell of a system we have not run reads "–" on our
side. Strategies map to the paper's decodings: `greedy` -> greedy, `greedy-applicable` ->
applicability, `greedy-reground` -> regrounding, `heuristic-greedy` -> SymT^E's heuristic_greedy.
Coverage is the fraction solved per seed, mean and population std over seeds, as the paper.

SymT rows come from the models named `symt_e` and `symt_ed` (the paper's configuration); every
other model of the symt family is an ablation, reported with them in `symt-ablations` beside the
training-stability count `symt-stability` (genplan.report.papers.symt_runs). Table 1 counts the
parameters of PlanGPT and of those two models from their training summaries.
"""

from __future__ import annotations

from pathlib import Path

from genplan import atomic
from genplan.formats import tables
from genplan.paths import EVAL_SPLITS
from genplan.report import aggregate, collect, render
from genplan.report.notes import MARK
from genplan.report.published import Published

PAPER, NAME = "symt-aaai26", "symt"
VARIANTS = {"greedy": "greedy", "greedy-applicable": "applicability", "greedy-reground": "regrounding",
            "heuristic-greedy": "heuristic_greedy"}
MAIN = {"symt_e", "symt_ed"}  # the symt models of Table 2 (by name); other symt models are ablations
SYSTEMS = [("plangpt", "greedy"), ("plangpt", "applicability"), ("plangpt", "regrounding"),
           ("symt_e", "heuristic_greedy"), ("symt_ed", "greedy"), ("symt_ed", "applicability"),
           ("symt_ed", "regrounding")]
DOMAINS = ("blocks", "gripper", "logistics", "visitall")
COLUMNS = ["benchmark", "domain", "split", "system", "variant", "metric", "ours_mean", "ours_std", "n_seeds",
           "n_problems", "published_mean", "published_std"]
T2_COLUMNS = COLUMNS + ["published_note"]  # a published number's note (genplan.report.published: `note`)


def _cells(rows: list[dict]) -> dict[tuple, dict]:
    """(benchmark, domain, split, system, variant) -> coverage over seeds."""
    mine = [{**r, "variant": VARIANTS[r["strategy"]]} for r in rows
            if r["system"] in {s for s, _ in SYSTEMS} and r["strategy"] in VARIANTS
            and not (r["system"] == "plangpt" and r.get("variant") == "ces")  # SymT trained PlanGPT with CE
            and (r["system"] == "plangpt" or r["model"] == r["system"])]
    out = {}
    for key, rs in aggregate.group(mine, ("benchmark", "domain", "split", "system", "variant")).items():
        seeds = aggregate.group(rs, ("seed",))
        per_seed = [sum(r["solved"] == "yes" for r in srs) / len(srs) for _, srs in sorted(seeds.items())]
        mean, std = aggregate.mean_std(per_seed)
        out[key] = {"mean": mean, "std": std if len(per_seed) > 1 else None, "n_seeds": len(per_seed),
                    "n_problems": max(len(srs) for srs in seeds.values())}
    return out


def table2_rows(cells: dict, pub: Published) -> list[dict]:
    rows = []
    for bench in sorted({k[0] for k in cells}):
        for dom in DOMAINS:
            for split in EVAL_SPLITS:
                for system, variant in SYSTEMS:
                    c = cells.get((bench, dom, split, system, variant))
                    p = pub.get("2", dom, split, system, variant, "coverage")
                    if c is None and p is None:
                        continue
                    rows.append({"benchmark": bench, "domain": dom, "split": split, "system": system,
                                 "variant": variant, "metric": "coverage",
                                 "ours_mean": "" if c is None else f"{c['mean']:.4f}",
                                 "ours_std": "" if c is None or c["std"] is None else f"{c['std']:.4f}",
                                 "n_seeds": 0 if c is None else c["n_seeds"],
                                 "n_problems": "" if c is None else c["n_problems"],
                                 "published_mean": "" if p is None else p[0],
                                 "published_std": "" if p is None or p[1] is None else p[1],
                                 "published_note": pub.note("2", dom, split, system, variant, "coverage")})
    return rows


def _f(value):
    return None if value in ("", None) else float(value)


def table2_md(rows: list[dict]) -> tuple[str, str]:
    headers = ["domain", "split"] + [f"{s} {v}" for s, v in SYSTEMS]
    md, tex = ["# SymT Table 2: coverage, ours mean±std over seeds (published mean±std)\n"], []
    for bench in sorted({r["benchmark"] for r in rows}):
        index = {(r["domain"], r["split"], r["system"], r["variant"]): r for r in rows if r["benchmark"] == bench}
        body, noted = [], {}
        for dom in DOMAINS:
            for split in EVAL_SPLITS:
                cells = [index.get((dom, split, s, v)) for s, v in SYSTEMS]
                if not any(cells):
                    continue
                body.append([dom, split] + ["–" if c is None else _t2_cell(c, noted) for c in cells])
        note = "" if bench == "paper" else ", published numbers measured on the papers' instances, not these"
        caption = f"Coverage, benchmark {bench}{note}; – on our side: not run" + (
            f"; {MARK} a published number with a note, below" if noted else "")
        notes = "".join(f"- {MARK} {label}: {text}\n" for label, text in noted.items())
        md += [f"\n## {caption}\n\n", render.md(headers, body), "\n" + notes if notes else ""]
        tail = [f"{MARK} {label}: {text}." for label, text in noted.items()]
        tex.append(render.tex(headers, body, " ".join([caption + ("." if noted else ""), *tail])))
    return "".join(md), "\n".join(tex)


def _t2_cell(c: dict, noted: dict) -> str:
    """`ours (published)`, the published number marked † where it has a note (kept in `noted`)."""
    mark = ""
    if c.get("published_note"):
        noted[f"{c['domain']} {c['split']} {c['system']} {c['variant']}"] = c["published_note"]
        mark = MARK
    return (f"{render.mean_std(_f(c['ours_mean']), _f(c['ours_std']))} "
            f"({render.mean_std(_f(c['published_mean']), _f(c['published_std']))}{mark})")


def training_md(summaries: list[dict]) -> str:
    """How each Table 2 model was trained, per benchmark and domain (a configuration may train a
    model differently per domain: `domain_settings`): states drawn an epoch, epochs run, the epoch
    whose weights were kept, optimiser steps and the job's CPU seconds, from its training summary
    ("–" where the summary predates the field)."""
    mine = sorted((s for s in summaries if s.get("family") == "symt" and s.get("model") in MAIN),
                  key=lambda s: (s["benchmark"], s["model"], aggregate.domain_rank(s["domain"]), s["domain"],
                                 int(s["seed"])))
    if not mine:
        return ""
    body = [[s["benchmark"], s["model"], s["domain"], s["seed"], render.num(s.get("train_examples"), 0),
             s.get("epochs", "–"), s.get("best_epoch", "–"), render.num(s.get("optimizer_steps"), 0),
             render.num(s.get("job_cpu_s"), 0)] for s in mine]
    headers = ["benchmark", "model", "domain", "seed", "states an epoch", "epochs run", "weights of epoch",
               "optimiser steps", "training CPU-s"]
    return ("\n## Training of these models (their summaries, "
            "`models/<benchmark>/<domain>/<model>/seed<N>/summary.json`)\n\n" + render.md(headers, body))


def table1_rows(summaries: list[dict], pub: Published) -> list[dict]:
    """Parameter counts of our sequence models (from their training summaries) beside Table 1's."""
    rows = []
    mine = [s for s in summaries if s["family"] == "plangpt"]
    mine += [s for s in summaries if s.get("family") == "symt" and s.get("model") in MAIN and s.get("system") in MAIN]
    for (bench, system), ss in sorted(aggregate.group(mine, ("benchmark", "system")).items()):
        p = pub.get("1", "", "", system, "", "parameters")
        counts = [float(s["parameters"]) for s in ss]
        mean, std = aggregate.mean_std(counts)
        rows.append({"benchmark": bench, "domain": "", "split": "", "system": system, "variant": "",
                     "metric": "parameters", "ours_mean": f"{mean:.0f}", "ours_std": f"{std:.0f}",
                     "n_seeds": len(ss), "n_problems": "", "published_mean": "" if p is None else p[0],
                     "published_std": ""})
    return rows


def build(results: Path, out_dir: Path, published_path=None) -> list[Path]:
    from genplan.report.papers import symt_runs

    pub = Published.load(PAPER, published_path)
    evaluations = collect.evaluation_rows(results)
    t2 = table2_rows(_cells(evaluations), pub)
    stem = out_dir / "tables" / f"{NAME}-table2"
    tables.write_csv(stem.with_suffix(".csv"), t2, T2_COLUMNS)
    md, tex = table2_md(t2)
    summaries = collect.training_summaries(results, ("plangpt", "symt"))
    atomic.write_text(stem.with_suffix(".md"), md + training_md(summaries))
    atomic.write_text(stem.with_suffix(".tex"), tex)
    t1 = table1_rows(summaries, pub)
    stem1 = out_dir / "tables" / f"{NAME}-table1"
    tables.write_csv(stem1.with_suffix(".csv"), t1, COLUMNS)
    body = [[r["benchmark"], r["system"], render.num(float(r["ours_mean"]), 0), r["n_seeds"],
             render.num(_f(r["published_mean"]), 0)] for r in t1]
    atomic.write_text(stem1.with_suffix(".md"), "# SymT Table 1: parameters, ours (mean over trained models) "
                      "beside the published\n\n" + render.md(["benchmark", "system", "ours", "models", "published"], body))
    written = [stem.with_suffix(s) for s in (".csv", ".md", ".tex")] + [stem1.with_suffix(s) for s in (".csv", ".md")]
    for name, rows, columns, md in (
            ("stability", symt_runs.stability_rows(summaries), symt_runs.STABILITY_COLUMNS, symt_runs.stability_md),
            ("ablations", symt_runs.ablation_rows(evaluations, summaries), symt_runs.ABLATION_COLUMNS,
             symt_runs.ablations_md)):
        stem_x = out_dir / "tables" / f"{NAME}-{name}"
        tables.write_csv(stem_x.with_suffix(".csv"), rows, columns)
        atomic.write_text(stem_x.with_suffix(".md"), md(rows))
        written += [stem_x.with_suffix(".csv"), stem_x.with_suffix(".md")]
    written += symt_runs.loss_curves(summaries, out_dir / "figures" / f"{NAME}-loss-curves")
    return written
