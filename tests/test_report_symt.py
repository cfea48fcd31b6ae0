"""The SymT report from files written here: Table 2's SymT^E and SymT^ED cells from the models
named symt_e / symt_ed (ablations kept out), Table 1's counts from their summaries, the stability
count with and without the contrastive loss, and the ablation table."""

from __future__ import annotations

import csv
import json

from genplan.formats.evaluation_csv import COLUMNS
from genplan.formats.tables import write_csv
from genplan.report import build_report
from genplan.report.registry import outputs

PROBLEMS = ["p1", "p2", "p3", "p4"]


def _rows(model, system, variant, strategy, seed, solved):
    return [{"benchmark": "paper", "domain": "gripper", "split": "extrapolation", "system": system, "variant": variant,
             "model": model, "seed": seed, "strategy": strategy, "problem": p, "size": 4, "num_objects": 8,
             "horizon": 500, "solved": "yes" if i < solved else "no", "reason": "goal" if i < solved else "not_goal",
             "val": "valid" if i < solved else "Goal not satisfied", "plan_length": 5 if i < solved else "",
             "best_known": 5, "quality": "1.0000" if i < solved else "", "time": "0.1", "steps": 5, "model_calls": 5,
             "counters": "{}"} for i, p in enumerate(PROBLEMS)]


def _write(res, model, system, variant, strategy, seed, solved, summary):
    path = res / "evaluation" / "paper" / "gripper" / model / f"seed{seed}" / f"extrapolation.{strategy}.csv"
    write_csv(path, _rows(model, system, variant, strategy, seed, solved), COLUMNS)
    out = res / "models" / "paper" / "gripper" / model / f"seed{seed}" / "summary.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"model": model, "family": "symt", "system": system, "variant": variant, **summary}))


def _read(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def test_symt_rows_stability_and_ablations(tmp_path):
    res = tmp_path / "results"
    on = {"contrastive": True, "object_pool": 64, "decoder_positions": "none"}
    for seed, solved, div in ((1, 4, 0), (2, 2, 0), (3, 3, 1)):
        _write(res, "symt_ed", "symt_ed", "contrastive", "greedy-reground", seed, solved,
               {**on, "parameters": 16_000_000 + seed, "divergences": div})
        _write(res, "symt_e", "symt_e", "contrastive", "heuristic-greedy", seed, 1,
               {**on, "parameters": 7_000_000, "divergences": 0, "decoder_positions": None, "train_examples": 13300,
                "epochs": 20, "best_epoch": 20, "optimizer_steps": 8320, "job_cpu_s": 860.4})
        _write(res, "symt_ed_no_contrastive", "symt_ed", "no_contrastive", "greedy-reground", seed, 0,
               {**on, "contrastive": False, "parameters": 16_000_000, "divergences": 2 if seed < 3 else 0})
    written = build_report("symt", res, res)
    assert sorted(map(str, written)) == sorted(outputs("symt", str(res)))
    cells = {(r["system"], r["variant"]): r for r in _read(res / "tables" / "symt-table2.csv")
             if (r["domain"], r["split"]) == ("gripper", "extrapolation")}
    reground = cells[("symt_ed", "regrounding")]  # seeds 1.0, 0.5, 0.75; the ablation's zeros kept out
    assert (reground["ours_mean"], reground["n_seeds"], reground["published_mean"]) == ("0.7500", "3", "0.79")
    assert cells[("symt_e", "heuristic_greedy")]["ours_mean"] == "0.2500"
    assert cells[("symt_ed", "greedy")]["ours_mean"] == ""  # published, not run
    t1 = {r["system"]: r for r in _read(res / "tables" / "symt-table1.csv")}
    assert t1["symt_ed"]["ours_mean"] == "16000002" and t1["symt_e"]["published_mean"] == "7000000.0"
    stability = {r["contrastive"]: r for r in _read(res / "tables" / "symt-stability.csv")}
    assert (stability["yes"]["runs"], stability["yes"]["diverged_runs"]) == ("6", "1")
    assert (stability["no"]["runs"], stability["no"]["diverged_runs"], stability["no"]["divergence_events"]) == \
        ("3", "2", "4")
    ablations = {(r["model"], r["strategy"]): r for r in _read(res / "tables" / "symt-ablations.csv")}
    assert ablations[("symt_ed_no_contrastive", "greedy-reground")]["coverage_mean"] == "0.0000"
    assert ablations[("symt_ed", "greedy-reground")]["variant"] == "contrastive"
    assert "19 without" in (res / "tables" / "symt-stability.md").read_text()
    assert (res / "figures" / "symt-loss-curves.png").stat().st_size > 0
    trained = (res / "tables" / "symt-table2.md").read_text().split("## Training of these models", 1)[1]
    assert "| paper | symt_e | gripper | 1 | 13,300 | 20 | 20 | 8,320 | 860 |" in trained  # from its summary
    assert "| paper | symt_ed | gripper | 3 | – | – | – | – | – |" in trained  # a summary without the fields
    assert "no_contrastive" not in trained  # Table 2's models only


def test_loss_curves_read_each_models_training_log(tmp_path):
    from genplan.report.collect import training_summaries
    from genplan.report.papers.symt_runs import loss_curves

    res = tmp_path / "results"
    for model, contrastive in (("symt_ed", True), ("symt_ed_no_contrastive", False)):
        _write(res, model, "symt_ed", "contrastive" if contrastive else "no_contrastive", "greedy", 13, 1,
               {"contrastive": contrastive, "architecture": "encoder_decoder", "parameters": 10, "divergences": 0})
        log = res / "models" / "paper" / "gripper" / model / "seed13" / "training.csv"
        log.write_text("epoch,train_loss,pred_loss,att_loss,hid_loss,val_loss,lr,grad_norm,seconds\n"
                       "1,5.0,4.0,,,4.5,0.001,1.0,1.0\n2,4.0,3.0,,,3.5,0.001,1.0,1.0\n")
    import matplotlib

    matplotlib.use("Agg")
    from unittest import mock

    import matplotlib.pyplot as plt

    with mock.patch.object(plt, "close") as close:  # keep the figure to look at its lines
        loss_curves(training_summaries(res, ("symt",)), tmp_path / "curves")
    fig = close.call_args[0][0]
    lines = [ln for ax in fig.axes for ln in ax.get_lines()]
    assert len(lines) == 4  # validation and training prediction loss of both models, on one panel
    assert sorted(ln.get_linestyle() for ln in lines) == ["-", "-", "--", "--"]
    assert [list(ln.get_ydata()) for ln in lines][:1] == [[4.5, 3.5]]
    assert (tmp_path / "curves.png").is_file() and (tmp_path / "curves.pdf").is_file()
