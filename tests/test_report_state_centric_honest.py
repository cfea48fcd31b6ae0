"""The state-centric report is honest about every cell: refused cells are shown as refused and never agree, published
numbers with a note carry a mark and the note (and the agreement counts against the authors'
files where the note gives their value), and the best-known length is the shortest VAL-valid plan
of any run, learned ones included, so that quality never exceeds 1. Everything is built from
evaluation CSVs and plans tables written here, with the packaged published numbers."""

import csv
import json

import pytest

from genplan.formats.evaluation_csv import COLUMNS as EVAL_COLUMNS
from genplan.formats.plans_table import COLUMNS as PLAN_COLUMNS
from genplan.formats.tables import write_csv
from genplan.report import build_report
from genplan.report.best_known import LEARNED, PLANNER, best_known
from genplan.report.published import Published, authors_value

PAPER = "state-centric-icaps26"

TRANSITION = {"family": "transition"}  # a transition model's summary names its family, system and variant


def _rows(domain, split, model, seed, beam, outcomes):
    """outcomes: problem -> plan length (solved), "refused" or None (not solved)."""
    enc, learner, mode = model.split("_")
    rows = []
    for p, out in outcomes.items():
        ok = isinstance(out, int)
        reason = "goal" if ok else ("refused" if out == "refused" else "horizon")
        rows.append({"benchmark": "paper", "domain": domain, "split": split, "system": f"{enc}_{learner}",
                     "variant": mode, "model": model, "seed": seed, "strategy": f"beam3-{beam}", "problem": p,
                     "size": 9, "num_objects": 9, "horizon": 100, "solved": "yes" if ok else "no", "reason": reason,
                     "val": "valid" if ok else "", "plan_length": out if ok else "", "best_known": 99,
                     "quality": "0.1000" if ok else "", "time": "0.5", "steps": out if ok else 0, "model_calls": "",
                     "counters": json.dumps({"states_expanded": 3})})
    return rows


def _write_eval(res, domain, split, model, beam, outcomes, seeds=("13",)):
    for seed in seeds:
        path = res / "evaluation" / "paper" / domain / model / f"seed{seed}" / f"{split}.beam3-{beam}.csv"
        write_csv(path, _rows(domain, split, model, seed, beam, outcomes), EVAL_COLUMNS)


def _write_plans(res, domain, split, lengths):
    """lengths: problem -> (A* length or None, LAMA length)."""
    plans = []
    for p, (astar, lama) in lengths.items():
        plans.append({"problem": p, "config": "astar_lmcut", "status": "optimal" if astar else "timeout",
                      "plan_length": astar or "", "time": "1.0", "valid": "yes" if astar else ""})
        plans.append({"problem": p, "config": "lama_first", "status": "satisficing", "plan_length": lama,
                      "time": "0.2", "valid": "yes"})
    write_csv(res / "plans" / "paper" / domain / f"{split}.csv", plans, list(PLAN_COLUMNS))


def _read(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def _report(res):
    build_report("state-centric", res, res)
    tables = res / "tables"
    summary = {r["decoder"]: r for r in _read(tables / "state-centric-agreement.csv")}
    return summary, _read(tables / "state-centric-agreement-cells.csv"), tables


def test_a_refused_cell_is_shown_as_refused_and_never_agrees(tmp_path):
    res = tmp_path / "results"
    # blocks extrapolation, published 0.00 for FSF-LSTM state and 0.25 for WL-XGB state
    _write_eval(res, "blocks", "extrapolation", "fsf_lstm_state", "reference", {"p1": "refused", "p2": "refused"},
                seeds=("13", "14", "15"))
    _write_eval(res, "blocks", "extrapolation", "wl_xgb_state", "reference", {"p1": 30, "p2": None})
    _write_plans(res, "blocks", "extrapolation", {"p1": (None, 40), "p2": (None, 50)})
    summary, cells, tables = _report(res)
    s = summary["reference"]
    assert (s["cells"], s["refused"], s["compared"]) == ("2", "1", "1")
    # WL-XGB state: 0.50 against 0.25, outside; the refused 0 would have "agreed" with the published 0.00
    assert (s["within_tolerance"], s["within_counting_refused"]) == ("0", "1")
    assert (s["mean_abs_diff"], s["mean_diff"]) == ("0.2500", "+0.2500")  # the refused cell is not in the differences
    status = {(c["decoder"], c["system"], c["variant"]): c["status"] for c in cells}
    assert status[("reference", "fsf_lstm", "state")] == "refused"
    assert status[("reference", "wl_xgb", "state")] == "outside"
    t1 = {(r["system"], r["variant"], r["beam_mode"]): r for r in _read(tables / "state-centric-table1.csv")}
    assert t1[("fsf_lstm", "state", "reference")]["refused"] == "all"
    assert t1[("wl_xgb", "state", "reference")]["refused"] == ""
    md = (tables / "state-centric-table1.md").read_text()
    assert "| refused (0.00±0.00) |" in md and "| 0.00 (0.00±0.00) |" not in md
    assert "| refused |" in (tables / "state-centric-decoders.md").read_text()
    agreement_md = (tables / "state-centric-agreement.md").read_text()
    assert "## Refused cells (not counted)" in agreement_md and "| refused | 0.00 |" in agreement_md
    quality = {(r["system"], r["variant"]): r for r in _read(tables / "state-centric-quality.csv")}
    assert quality[("fsf_lstm", "state")]["refused"] == "all"


def test_a_partly_refused_cell_is_compared_and_says_how_many_were_refused(tmp_path):
    res = tmp_path / "results"
    _write_eval(res, "blocks", "extrapolation", "fsf_lstm_state", "reference", {"p1": "refused", "p2": None})
    _write_plans(res, "blocks", "extrapolation", {"p1": (None, 40), "p2": (None, 50)})
    summary, _, tables = _report(res)
    assert (summary["reference"]["refused"], summary["reference"]["within_tolerance"]) == ("0", "1")
    t1 = {(r["system"], r["beam_mode"]): r for r in _read(tables / "state-centric-table1.csv")}
    assert t1[("fsf_lstm", "reference")]["refused"] == "1/2"


def test_authors_value_is_read_from_the_notes():
    assert authors_value("as printed; the authors' result files give 0.67±0.47 (seeds 14 and 15)") == 0.67
    assert authors_value("as printed; the authors' result files give 0.00 for all three seeds") == 0.0
    assert authors_value("as printed; the authors' plan_generation_report.csv gives 57/219 = 0.26") == 57 / 219
    assert authors_value("as printed; 0.26 is not a multiple of 1/18; the authors' x.csv gives 9/18 = 0.50") == 0.5
    assert authors_value("unreadable in the paper text; value from the authors' result files") is None
    assert authors_value("") is None


def test_the_packaged_published_numbers_carry_the_notes():
    pub = Published.load(PAPER)
    noted = {("gripper", "interpolation", "wl_lstm", "delta"): 0.67, ("gripper", "interpolation", "wl_xgb", "state"): 0.0,
             ("visitall", "extrapolation", "fast_downward", "astar_lmcut"): 57 / 219,
             ("logistics", "extrapolation", "fast_downward", "astar_lmcut"): 0.5}
    for (dom, split, system, variant), authors in noted.items():
        assert authors_value(pub.note("1", dom, split, system, variant, "coverage")) == pytest.approx(authors)
    assert pub.note("1", "blocks", "interpolation", "wl_lstm", "state", "coverage") == ""


def test_noted_published_numbers_are_marked_and_counted_against_the_authors_files(tmp_path):
    res = tmp_path / "results"
    # gripper interpolation WL-LSTM delta: printed 0.00, the authors' files 0.67; ours 2/3
    _write_eval(res, "gripper", "interpolation", "wl_lstm_delta", "reference", {"p1": 5, "p2": 7, "p3": None})
    _write_plans(res, "gripper", "interpolation", {"p1": (5, 5), "p2": (7, 9), "p3": (11, 11)})
    summary, cells, tables = _report(res)
    s = summary["reference"]
    assert (s["cells"], s["within_tolerance"], s["within_against_authors"], s["noted"]) == ("1", "0", "1", "1")
    (cell,) = [c for c in cells if c["decoder"] == "reference"]
    assert (cell["status"], cell["published"], cell["authors"], cell["authors_diff"]) == ("outside", "0.0", "0.6700", "-0.0033")
    md = (tables / "state-centric-agreement.md").read_text()
    assert "| 0.00† |" in md and "0.67 (-0.00)" in md
    assert "the paper seems to have swapped this cell with WL-XGB state" in md
    t1 = (tables / "state-centric-table1.md").read_text()
    assert "| 0.67 (0.00±0.00†) |" in t1 and "- † gripper interpolation wl_lstm delta: as printed;" in t1
    assert "- † gripper interpolation fast_downward" not in t1  # only noted numbers get a note
    assert "(0.00$\\pm$0.00$^\\dagger$)" in (tables / "state-centric-table1.tex").read_text()
    assert "0.00†" in (tables / "state-centric-decoders.md").read_text()


def test_best_known_counts_learned_plans_and_ties_go_to_the_planner():
    plans = {("paper", "blocks", "extrapolation"): [
        {"problem": "p1", "config": "lama_first", "valid": "yes", "plan_length": "132"},
        {"problem": "p2", "config": "astar_lmcut", "valid": "yes", "plan_length": "20"},
        {"problem": "p2", "config": "lama_first", "valid": "no", "plan_length": "4"}]}  # rejected by VAL: not a plan
    evals = [{"benchmark": "paper", "domain": "blocks", "split": "extrapolation", "problem": p, "system": "wl_xgb",
              "variant": "delta", "solved": solved, "plan_length": n}
             for p, solved, n in (("p1", "yes", "52"), ("p2", "yes", "20"), ("p3", "no", ""))]
    best = best_known(plans, evals)
    b1, b2 = best[("paper", "blocks", "extrapolation", "p1")], best[("paper", "blocks", "extrapolation", "p2")]
    assert (b1.length, b1.kind, b1.source) == (52, LEARNED, "wl_xgb delta")
    assert (b2.length, b2.kind, b2.source) == (20, PLANNER, "astar_lmcut")
    assert ("paper", "blocks", "extrapolation", "p3") not in best


def test_quality_never_exceeds_one_and_says_where_the_best_known_came_from(tmp_path):
    res = tmp_path / "results"
    # p1: LAMA-first's 132 steps, the learned plan 52 (as probBLOCKS-17-0); p2: A* optimal 20
    _write_eval(res, "blocks", "extrapolation", "wl_xgb_delta", "pooled", {"p1": 52, "p2": 20})
    _write_eval(res, "blocks", "extrapolation", "wl_xgb_delta", "reference", {"p1": 104, "p2": 40})
    _write_plans(res, "blocks", "extrapolation", {"p1": (None, 132), "p2": (20, 20)})
    build_report("state-centric", res, res)
    rows = {(r["system"], r["variant"], r["beam_mode"]): r
            for r in _read(res / "tables" / "state-centric-quality.csv")}
    assert float(rows[("wl_xgb", "delta", "pooled")]["mean_quality"]) == 1.0  # was (132/52 + 1) / 2 = 1.77
    assert float(rows[("wl_xgb", "delta", "reference")]["mean_quality"]) == 0.5
    assert rows[("wl_xgb", "delta", "pooled")]["n_best_own"] == "1"
    assert rows[("wl_xgb", "delta", "reference")]["n_best_own"] == "0"  # its 104 is not the best known
    lama = rows[("fast_downward", "lama_first", "")]
    assert float(lama["mean_quality"]) == pytest.approx((52 / 132 + 1) / 2, abs=1e-4) and lama["n_best_own"] == ""
    assert all(float(r["mean_quality"]) <= 1.0 for r in rows.values() if r["mean_quality"])
    md = (res / "tables" / "state-centric-quality.md").read_text()
    assert "## Where the best-known lengths come from" in md
    assert "| paper | blocks | extrapolation | 2 | 2 | 1 | 0 | 1 | astar_lmcut 1 | wl_xgb delta 1 |" in md


def test_best_known_from_its_own_plan_counts_the_models_own_plans_not_any_learned_one(tmp_path):
    res = tmp_path / "results"
    # p1: the learned heuristic's 40 is the best known; WL-XGB delta's 52 beats LAMA-first's 132 but is not it.
    # p2: WL-XGB delta's 30 (both seeds) is the best known, the heuristic ties it; p3: A*'s 20 is the best.
    _write_eval(res, "blocks", "extrapolation", "wl_xgb_delta", "pooled", {"p1": 52, "p2": 30, "p3": 20},
                seeds=("13", "14"))
    heuristic = [{**r, "system": "learned_heuristic", "variant": "ridge", "model": "heuristic_ridge",
                  "strategy": "gbfs"} for r in _rows("blocks", "extrapolation", "wl_xgb_delta", "13", "pooled",
                                                     {"p1": 40, "p2": 30, "p3": 22})]
    write_csv(res / "evaluation" / "paper" / "blocks" / "heuristic_ridge" / "seed13" / "extrapolation.gbfs.csv",
              heuristic, EVAL_COLUMNS)
    _write_plans(res, "blocks", "extrapolation", {"p1": (None, 132), "p2": (None, 60), "p3": (20, 20)})
    build_report("state-centric", res, res)
    rows = {(r["system"], r["variant"], r["beam_mode"]): r for r in _read(res / "tables" / "state-centric-quality.csv")}
    assert rows[("wl_xgb", "delta", "pooled")]["n_best_own"] == "1"  # p2 once, not p1 and not once per seed
    assert rows[("fast_downward", "lama_first", "")]["n_best_own"] == ""
    md = (res / "tables" / "state-centric-quality.md").read_text()
    assert "| best known from its own plan |" in md and "| wl_xgb | delta | pooled | 1.00 |" in md
    assert "| paper | blocks | extrapolation | 3 | 3 | 1 | 0 | 2 | astar_lmcut 1 | learned_heuristic ridge 2 |" in md


def test_anytime_lama_sets_best_known_lengths_and_the_source_table_counts_them(tmp_path):
    res = tmp_path / "results"
    # p1: LAMA-first 132, anytime LAMA 60, the learned plan 52: the learned plan stays the best;
    # p2: LAMA-first 80, anytime LAMA 40, the learned plan 50: anytime LAMA's is the best (quality 0.8);
    # p3: A* optimal 20, anytime LAMA skipped
    _write_eval(res, "blocks", "extrapolation", "wl_xgb_delta", "pooled", {"p1": 52, "p2": 50, "p3": 20})
    _write_plans(res, "blocks", "extrapolation", {"p1": (None, 132), "p2": (None, 80), "p3": (20, 20)})
    anytime = [{"problem": p, "config": "lama_anytime", "status": status, "plan_length": n, "time": "60.0",
                "valid": "yes" if n else ""} for p, status, n in (("p1", "satisficing", 60), ("p2", "satisficing", 40),
                                                                  ("p3", "skipped-optimal", ""))]
    write_csv(res / "plans" / "paper" / "blocks" / "extrapolation.anytime.csv", anytime, list(PLAN_COLUMNS))
    build_report("state-centric", res, res)
    rows = {(r["system"], r["variant"], r["beam_mode"]): r for r in _read(res / "tables" / "state-centric-quality.csv")}
    ours = rows[("wl_xgb", "delta", "pooled")]
    assert float(ours["mean_quality"]) == pytest.approx((1 + 40 / 50 + 1) / 3, abs=1e-4) and ours["n_best_own"] == "1"
    lama = rows[("fast_downward", "lama_first", "")]
    assert float(lama["mean_quality"]) == pytest.approx((52 / 132 + 40 / 80 + 1) / 3, abs=1e-4)
    assert ("fast_downward", "lama_anytime", "") not in rows  # a best-known source only
    assert all(float(r["mean_quality"]) <= 1.0 for r in rows.values() if r["mean_quality"])
    assert {r["split"] for r in rows.values()} == {"extrapolation"}  # the anytime table is not a split
    md = (res / "tables" / "state-centric-quality.md").read_text()
    assert "| of which anytime LAMA |" in md
    assert "| paper | blocks | extrapolation | 3 | 3 | 2 | 1 | 1 | astar_lmcut 1; lama_anytime 1 | wl_xgb delta 1 |" in md


def test_an_fsf_model_sized_on_every_split_is_its_own_decoder_and_the_faithful_one(tmp_path):
    res = tmp_path / "results"
    # the default FSF model refuses both problems; a twin sized on every split (its summary says so) solves one
    _write_eval(res, "visitall", "extrapolation", "fsf_xgb_delta", "reference", {"p1": "refused", "p2": "refused"})
    rows = _rows("visitall", "extrapolation", "fsf_xgb_delta", "13", "reference", {"p1": 30, "p2": None})
    for r in rows:
        r["model"] = "fsf_xgb_delta_allsplits"
    write_csv(res / "evaluation" / "paper" / "visitall" / "fsf_xgb_delta_allsplits" / "seed13" /
              "extrapolation.beam3-reference.csv", rows, EVAL_COLUMNS)
    for model, extra in (("fsf_xgb_delta", {}), ("fsf_xgb_delta_allsplits", {"fsf_slots": "all_splits"})):
        summary = res / "models" / "paper" / "visitall" / model / "seed13" / "summary.json"
        summary.parent.mkdir(parents=True)
        summary.write_text(json.dumps({"model": model, **TRANSITION, "system": "fsf_xgb", "variant": "delta",
                                       "feature_dim": 40, "xgb_nodes": 100, **extra}))
    _write_plans(res, "visitall", "extrapolation", {"p1": (None, 40), "p2": (None, 50)})
    summary, cells, tables = _report(res)
    t1 = {r["beam_mode"]: r for r in _read(tables / "state-centric-table1.csv") if r["system"] == "fsf_xgb"}
    assert (t1["reference"]["refused"], t1["reference-allsplits"]["ours_mean"]) == ("all", "0.5000")
    faithful = summary["faithful"]  # published 0.16: the reference-allsplits cell, not the refused one
    assert (faithful["refused"], faithful["compared"], faithful["mean_diff"]) == ("0", "1", "+0.3400")
    assert (summary["reference"]["refused"], summary["reference-allsplits"]["compared"]) == ("1", "1")
    (cell,) = [c for c in cells if c["decoder"] == "faithful"]
    assert cell["run_as"] == "reference-allsplits"
    assert "reference-allsplits" in (tables / "state-centric-decoders.md").read_text()


def _drop_statics_model(res, domain, model, seeds=("13",)):
    """A WL model with static atoms left out of training and inference: its summary says so."""
    for seed in seeds:
        summary = res / "models" / "paper" / domain / f"{model}_dropstatics" / f"seed{seed}" / "summary.json"
        summary.parent.mkdir(parents=True, exist_ok=True)
        system, variant = model.rsplit("_", 1)  # wl_xgb_delta -> (wl_xgb, delta)
        summary.write_text(json.dumps({"model": f"{model}_dropstatics", **TRANSITION, "system": system,
                                       "variant": variant, "feature_dim": 17, "wl_statics": False}))


def _write_drop(res, domain, split, model, beam, outcomes, seeds=("13",)):
    for seed in seeds:
        rows = _rows(domain, split, model, seed, beam, outcomes)
        for r in rows:
            r["model"] = f"{model}_dropstatics"
        write_csv(res / "evaluation" / "paper" / domain / f"{model}_dropstatics" / f"seed{seed}" /
                  f"{split}.beam3-{beam}.csv", rows, EVAL_COLUMNS)


def test_a_model_without_statics_is_its_own_decoder_and_the_default_stays_unless_it_is_as_good(tmp_path):
    res = tmp_path / "results"
    for split in ("interpolation", "extrapolation"):
        _write_plans(res, "gripper", split, {"p1": (10, 12), "p2": (10, 12)})
        for beam in ("reference", "pooled"):
            _write_eval(res, "gripper", split, "wl_lstm_state", beam, {"p1": 10, "p2": None}, seeds=("13", "14"))
    _drop_statics_model(res, "gripper", "wl_lstm_state", seeds=("13", "14"))
    for beam in ("reference", "pooled"):  # better on interpolation, worse on extrapolation
        _write_drop(res, "gripper", "interpolation", "wl_lstm_state", beam, {"p1": 10, "p2": 11}, seeds=("13", "14"))
        _write_drop(res, "gripper", "extrapolation", "wl_lstm_state", beam, {"p1": None, "p2": None}, seeds=("13",))
    summary, _, tables = _report(res)
    t1 = {(r["split"], r["beam_mode"]): r for r in _read(tables / "state-centric-table1.csv") if r["system"] == "wl_lstm"}
    assert t1[("interpolation", "reference-dropstatics")]["ours_mean"] == "1.0000"
    assert t1[("extrapolation", "pooled-dropstatics")]["n_seeds"] == "1"
    assert "reference-dropstatics" in summary and "faithful" in summary
    assert summary["faithful"]["within_tolerance"] == summary["reference"]["within_tolerance"]  # never faithful's
    verdict = {r["split"]: r for r in _read(tables / "state-centric-statics-verdict.csv")}
    assert verdict["interpolation"]["verdict"] == "without statics at least as good"
    assert (verdict["extrapolation"]["verdict"], verdict["extrapolation"]["difference"]) == ("without statics worse", "-0.5000")
    cells = _read(tables / "state-centric-statics.csv")
    assert {c["seeds"] for c in cells if c["split"] == "extrapolation"} == {"1"}  # only the seeds both ran
    md = (tables / "state-centric-statics.md").read_text()
    assert "keeps the paper's representation" in md and "gripper extrapolation (without statics worse, -0.5000)" in md


def test_statics_verdict_is_incomplete_while_a_twin_misses_a_seed_and_the_reference_beam_only_shows(tmp_path):
    res = tmp_path / "results"
    _write_plans(res, "visitall", "interpolation", {"p1": (10, 12), "p2": (10, 12)})
    for beam in ("reference", "pooled"):
        _write_eval(res, "visitall", "interpolation", "wl_lstm_state", beam, {"p1": 10, "p2": None}, seeds=("13", "14"))
    _drop_statics_model(res, "visitall", "wl_lstm_state", seeds=("13", "14"))
    # pooled: better, but seed 14 without statics is missing; reference: no twin at all
    _write_drop(res, "visitall", "interpolation", "wl_lstm_state", "pooled", {"p1": 10, "p2": 11})
    _report(res)
    (verdict,) = _read(res / "tables" / "state-centric-statics-verdict.csv")
    assert (verdict["verdict"], verdict["reference_beam"]) == ("incomplete: 0 of 1 cells run on every seed", "not run")
    assert "keeps the paper's representation" in (res / "tables" / "state-centric-statics.md").read_text()
    # the missing seed arrives: decided on the pooled beam, the reference beam's absence does not block
    _write_drop(res, "visitall", "interpolation", "wl_lstm_state", "pooled", {"p1": 10, "p2": 11}, seeds=("14",))
    _write_drop(res, "visitall", "interpolation", "wl_lstm_state", "reference", {"p1": None, "p2": None})
    _report(res)
    (verdict,) = _read(res / "tables" / "state-centric-statics-verdict.csv")
    assert (verdict["verdict"], verdict["difference"]) == ("without statics at least as good", "+0.5000")
    assert verdict["reference_beam"] == "-0.5000 (1 of 1 cells)"  # seed 13 only: shown, not decided on
    assert "may become the default" in (res / "tables" / "state-centric-statics.md").read_text()


def test_table1_shows_the_papers_decoder_first_and_every_other_decoder_after_a_heading(tmp_path):
    res = tmp_path / "results"
    # the reference code as written: gripper's WL model under reference-nostatics, blocks' (no statics) under reference
    _write_eval(res, "gripper", "interpolation", "wl_xgb_delta", "reference-nostatics", {"p1": 5, "p2": None})
    _write_eval(res, "gripper", "interpolation", "wl_xgb_delta", "reference", {"p1": 5, "p2": 7})
    _write_eval(res, "gripper", "interpolation", "wl_xgb_delta", "pooled", {"p1": 5, "p2": 7})
    _write_eval(res, "blocks", "interpolation", "wl_xgb_delta", "reference", {"p1": None, "p2": 7})
    _write_plans(res, "gripper", "interpolation", {"p1": (5, 5), "p2": (7, 7)})
    _write_plans(res, "blocks", "interpolation", {"p1": (5, 5), "p2": (7, 7)})
    build_report("state-centric", res, res)
    md = (res / "tables" / "state-centric-table1.md").read_text()
    headings = [line for line in md.splitlines() if line.startswith("#")]
    assert "the paper's decoder" in headings[1] and "cells run as `reference-nostatics` 1, `reference` 1" in headings[1]
    assert headings.index("# Other decoders and benchmarks: not the paper's Table 1") == 2
    assert [h.split(", ")[2] for h in headings[3:] if "test splits" in h] == [
        "reference-nostatics beam decoder", "reference beam decoder", "pooled beam decoder"]
    paper_grid = md.split("# Other decoders")[0]
    # gripper: reference-nostatics' 0.50, not reference's or pooled's 1.00; blocks: reference's 0.50
    assert "| gripper | interpolation | 1.00 (1.00) | – (1.00±0.00) | – (0.00±0.00†) | – (0.67±0.47†) | 0.50 (0.00±0.00) |" \
        in paper_grid
    assert "| blocks | interpolation | 1.00 (1.00) | – (0.67±0.27) | – (0.89±0.16) | – (1.00±0.00) | 0.50 (1.00±0.00) |" \
        in paper_grid
    tex = (res / "tables" / "state-centric-table1.tex").read_text()
    assert tex.index("the paper's decoder") < tex.index("reference-nostatics beam decoder")


def test_a_cell_two_papers_print_differently_is_marked_naming_both(tmp_path):
    for paper, table in (("symt-aaai26", "2"), (PAPER, "1")):
        pub = Published.load(paper)
        note = pub.note(table, "blocks", "interpolation", "symt_ed", "regrounding", "coverage")
        assert "symt-aaai26 Table 2 prints 1.00±0.00" in note and "state-centric-icaps26 Table 1 prints 0.00±0.00" in note
        note = pub.note(table, "logistics", "interpolation", "plangpt", "applicability", "coverage")
        assert "symt-aaai26 Table 2 prints 0.44±0.09" in note and "state-centric-icaps26 Table 1 prints 0.44±0.08" in note
        assert pub.note(table, "blocks", "interpolation", "symt_ed", "greedy", "coverage") == ""  # the papers agree
        assert authors_value(note) is None  # not a value of the authors' files
    res = tmp_path / "results"
    rows = [{**r, "system": "plangpt", "variant": "ce", "model": "plangpt", "strategy": "greedy-applicable"}
            for r in _rows("logistics", "interpolation", "wl_xgb_delta", "13", "pooled", {"p1": 9, "p2": None})]
    write_csv(res / "evaluation" / "paper" / "logistics" / "plangpt" / "seed13" / "interpolation.greedy-applicable.csv",
              rows, EVAL_COLUMNS)
    _write_plans(res, "logistics", "interpolation", {"p1": (9, 9), "p2": (9, 9)})
    build_report("symt", res, res)
    symt_md = (res / "tables" / "symt-table2.md").read_text()
    assert "| 0.50 (0.44±0.09†) |" in symt_md and "- † logistics interpolation plangpt applicability: the papers" in symt_md
    assert "- † blocks interpolation symt_ed regrounding" in symt_md  # a published cell we did not run is marked too
    assert "0.44$\\pm$0.09$^\\dagger$" in (res / "tables" / "symt-table2.tex").read_text()
    build_report("state-centric", res, res)
    sc_md = (res / "tables" / "state-centric-table1.md").read_text()
    assert "| 0.50 (0.44±0.08†) |" in sc_md and "- † logistics interpolation plangpt applicability: the papers" in sc_md
