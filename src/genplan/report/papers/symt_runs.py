"""SymT's training stability and ablations (SymT paper, Section 6 "Results - Training Stability",
Appendix E), from committed files only:

- stability: every training summary of the symt family (and PlanGPT's, which never has the
  contrastive loss), grouped by whether the contrastive loss was on (`contrastive` in the
  summary); how many runs diverged (the shared loop's `divergences` > 0) and how many divergence
  episodes there were. The paper states 1 diverged run with the contrastive loss and 19 without,
  over all its runs (hyperparameter tuning included); that sentence has no row in
  published_results.csv, so it is quoted in the table's text, not put in a cell;
- ablations: coverage (fraction VAL-valid per seed, mean and std over seeds) of every symt model
  (the Table 2 models `symt_e` / `symt_ed` and the named ablations: no contrastive loss, L_att or
  L_hid only, object-pool size, learned decoder positions) per domain, split and strategy, with
  how each was trained, read from its summaries;
- loss curves: per domain, the training prediction loss and the validation loss per epoch of every
  symt model, from the `training.csv` beside each summary, the contrastive models solid and the
  others dashed (the paper: "losses plateau for SymT^E models without the contrastive term").
"""

from __future__ import annotations

from genplan.report import aggregate, collect

STABILITY_COLUMNS = ["benchmark", "family", "contrastive", "runs", "diverged_runs", "divergence_events"]
ABLATION_COLUMNS = ["benchmark", "domain", "split", "model", "system", "variant", "strategy", "object_pool",
                    "decoder_positions", "coverage_mean", "coverage_std", "n_seeds", "n_problems"]


def stability_rows(summaries: list[dict]) -> list[dict]:
    runs = [s for s in summaries if s.get("family") in ("symt", "plangpt") and "divergences" in s]
    rows = []
    for (bench, fam, contrastive), ss in sorted(aggregate.group(
            [{**s, "contrastive": "yes" if s.get("contrastive") else "no"} for s in runs],
            ("benchmark", "family", "contrastive")).items()):
        rows.append({"benchmark": bench, "family": fam, "contrastive": contrastive, "runs": len(ss),
                     "diverged_runs": sum(int(s["divergences"]) > 0 for s in ss),
                     "divergence_events": sum(int(s["divergences"]) for s in ss)})
    return rows


def ablation_rows(evaluations: list[dict], summaries: list[dict]) -> list[dict]:
    trained = {(s["benchmark"], s["domain"], s.get("model")): s for s in summaries if s.get("family") == "symt"}
    mine = [r for r in evaluations if r["system"] in ("symt_e", "symt_ed")]
    rows = []
    for (bench, dom, split, model, strategy), rs in sorted(aggregate.group(
            mine, ("benchmark", "domain", "split", "model", "strategy")).items()):
        seeds = aggregate.group(rs, ("seed",))
        per_seed = [sum(r["solved"] == "yes" for r in srs) / len(srs) for _, srs in sorted(seeds.items())]
        mean, std = aggregate.mean_std(per_seed)
        s = trained.get((bench, dom, model), {})
        rows.append({"benchmark": bench, "domain": dom, "split": split, "model": model, "system": rs[0]["system"],
                     "variant": rs[0]["variant"], "strategy": strategy, "object_pool": s.get("object_pool", ""),
                     "decoder_positions": s.get("decoder_positions") or "",
                     "coverage_mean": f"{mean:.4f}", "coverage_std": f"{std:.4f}" if len(per_seed) > 1 else "",
                     "n_seeds": len(per_seed), "n_problems": max(len(srs) for srs in seeds.values())})
    return rows


def stability_md(rows: list[dict]) -> str:
    from genplan.report import render

    body = [[r["benchmark"], r["family"], r["contrastive"], str(r["runs"]), str(r["diverged_runs"]),
             str(r["divergence_events"])] for r in rows]
    return ("# SymT training stability: runs that diverged, with and without the contrastive loss\n\n"
            "A divergence is a non-finite loss or gradient, or a loss spike (genplan.training.loop). The paper "
            "(Section 6) reports, over all its runs, 1 diverged run with the contrastive loss and 19 without.\n\n"
            + render.md(["benchmark", "family", "contrastive", "runs", "diverged runs", "divergence episodes"], body))


def ablations_md(rows: list[dict]) -> str:
    from genplan.report import render

    body = [[r["benchmark"], r["domain"], r["split"], r["model"], r["variant"], r["strategy"], str(r["object_pool"]),
             r["decoder_positions"] or "–",
             render.mean_std(float(r["coverage_mean"]), float(r["coverage_std"]) if r["coverage_std"] else None),
             str(r["n_seeds"])] for r in rows]
    return ("# SymT ablations: coverage of every symt model (mean±std over seeds)\n\n"
            "variant: contrastive (w2, w3 > 0), att_only, hid_only, no_contrastive; object_pool: object tokens; "
            "decoder_positions: none (NoPE) or learned.\n\n"
            + render.md(["benchmark", "domain", "split", "model", "variant", "strategy", "object pool",
                         "decoder positions", "coverage", "seeds"], body))


def loss_curves(summaries: list[dict], stem) -> list:
    """SymT^E (MSE) and SymT^ED (CE) rows, one column per domain: train prediction loss (thin) and
    validation loss (thick) against the epoch, per model and seed."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from genplan.report.figures import save

    runs = [s for s in summaries if s.get("family") == "symt"]
    domains = sorted({s["domain"] for s in runs}) or ["-"]
    archs = [("encoder", "SymT^E: MSE on h"), ("encoder_decoder", "SymT^ED: plan-token CE")]
    fig, axes = plt.subplots(2, len(domains), figsize=(3.2 * len(domains), 5.6), squeeze=False)
    colours: dict[str, str] = {}
    for s in sorted(runs, key=lambda s: (s["benchmark"], s["domain"], s["model"], s["seed"])):
        rows = [r for r in collect.training_log(s) if r.get("val_loss")]
        if not rows:
            continue
        ax = axes[0 if s.get("architecture") == "encoder" else 1, domains.index(s["domain"])]
        colour = colours.setdefault(s["model"], f"C{len(colours) % 10}")
        style = "-" if s.get("contrastive") else "--"
        epochs = [int(r["epoch"]) for r in rows]
        label = f"{s['model']} s{s['seed']}"
        ax.plot(epochs, [float(r["val_loss"]) for r in rows], style, color=colour, lw=2, label=label + " val")
        if all(r.get("pred_loss") for r in rows):
            ax.plot(epochs, [float(r["pred_loss"]) for r in rows], style, color=colour, lw=0.8, alpha=0.7)
    for i, (_arch, title) in enumerate(archs):
        for j, dom in enumerate(domains):
            ax = axes[i, j]
            ax.set_title(f"{dom}: {title}", fontsize=8)
            ax.set_xlabel("epoch", fontsize=7)
            ax.tick_params(labelsize=7)
            if ax.lines:
                ax.legend(fontsize=6)
    fig.suptitle("SymT loss curves: validation (thick) and training prediction loss (thin); "
                 "contrastive solid, without dashed", fontsize=9)
    fig.tight_layout()
    return save(fig, stem)
