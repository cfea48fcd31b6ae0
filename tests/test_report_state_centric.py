"""`genplan report state-centric`: Tables 1 and 3, Figures 2-4 and the quality table, built only
from evaluation CSVs, plans tables and training summaries written here, published numbers beside."""

import csv
import json

import numpy as np
from conftest import run_cli

from genplan.formats.evaluation_csv import COLUMNS as EVAL_COLUMNS
from genplan.formats.plans_table import COLUMNS as PLAN_COLUMNS
from genplan.formats.tables import write_csv
from genplan.report import build_report

PROBLEMS = ["p1", "p2", "p3", "p4"]
# solved problems per seed: coverage 0.25, 0.50, 0.75 -> mean 0.50, population std 0.2041
SOLVED = {"13": {"p1"}, "14": {"p1", "p2"}, "15": {"p1", "p2", "p3"}}


def _eval_rows(model, seed, split, beam, solved):
    enc, learner, mode = model.split("_")
    rows = []
    for p in PROBLEMS:
        ok = p in solved
        rows.append({"benchmark": "generated", "domain": "blocks", "split": split, "system": f"{enc}_{learner}",
                     "variant": mode, "model": model, "seed": seed, "strategy": f"beam3-{beam}", "problem": p,
                     "size": 9, "num_objects": 9, "horizon": 100, "solved": "yes" if ok else "no",
                     "reason": "goal" if ok else "horizon", "val": "valid" if ok else "Goal not satisfied",
                     "plan_length": 20 if ok else "", "best_known": 10, "quality": "0.5000" if ok else "",
                     "time": "0.5000", "steps": 20 if ok else 100, "model_calls": 20 if ok else 100,
                     "counters": json.dumps({"states_expanded": 60, "embedded": 400})})
    return rows


def _results(tmp_path):
    res = tmp_path / "results"
    for seed, solved in SOLVED.items():
        for split in ("validation", "extrapolation"):
            for beam, s in (("reference", solved), ("pooled", set(PROBLEMS))):
                path = res / "evaluation" / "generated" / "blocks" / "wl_xgb_delta" / f"seed{seed}" / f"{split}.beam3-{beam}.csv"
                write_csv(path, _eval_rows("wl_xgb_delta", seed, split, beam, s), EVAL_COLUMNS)
        summary = res / "models" / "generated" / "blocks" / "wl_lstm_state" / f"seed{seed}" / "summary.json"
        summary.parent.mkdir(parents=True)
        summary.write_text(json.dumps({"model": "wl_lstm_state", "family": "transition", "system": "wl_lstm",
                                       "variant": "state", "feature_dim": 170 + int(seed) - 13,
                                       "lstm_parameters": 1250000}))
    for split in ("validation", "extrapolation"):
        plans = [{"problem": p, "config": "astar_lmcut", "status": "optimal" if p != "p4" else "timeout",
                  "plan_length": 10 if p != "p4" else "", "time": "1.0", "valid": "yes" if p != "p4" else ""}
                 for p in PROBLEMS]
        plans += [{"problem": p, "config": "lama_first", "status": "satisficing", "plan_length": 12,
                   "time": "0.2", "valid": "yes"} for p in PROBLEMS]
        write_csv(res / "plans" / "generated" / "blocks" / f"{split}.csv", plans, list(PLAN_COLUMNS))
    return res


def _read(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def test_table1_reports_mean_std_over_seeds_beside_the_published_numbers(tmp_path):
    res = _results(tmp_path)
    build_report("state-centric", res, res)
    rows = _read(res / "tables" / "state-centric-table1.csv")
    for col in ("benchmark", "domain", "split", "system", "variant", "metric", "ours_mean", "ours_std", "n_seeds",
                "n_problems", "published_mean", "published_std"):
        assert col in rows[0]
    cell = {(r["split"], r["system"], r["variant"], r["beam_mode"]): r for r in rows}
    ref = cell[("extrapolation", "wl_xgb", "delta", "reference")]
    assert float(ref["ours_mean"]) == 0.5 and abs(float(ref["ours_std"]) - 0.2041) < 1e-4
    assert (ref["n_seeds"], ref["n_problems"], float(ref["published_mean"])) == ("3", "4", 0.5)
    assert float(cell[("extrapolation", "wl_xgb", "delta", "pooled")]["ours_mean"]) == 1.0
    fd = cell[("extrapolation", "fast_downward", "astar_lmcut", "")]
    assert float(fd["ours_mean"]) == 0.75 and float(fd["published_mean"]) == 0.6
    assert cell[("validation", "wl_xgb", "delta", "reference")]["role"].startswith("validation")
    md = (res / "tables" / "state-centric-table1.md").read_text()
    assert "0.50±0.20 (0.50±0.00)" in md and "validation split, reported apart" in md
    assert "\\begin{tabular}" in (res / "tables" / "state-centric-table1.tex").read_text()


def test_table3_figures_and_quality_come_from_the_files(tmp_path):
    res = _results(tmp_path)
    build_report("state-centric", res, res)
    t3 = _read(res / "tables" / "state-centric-table3.csv")
    dims = [r for r in t3 if r["metric"] == "wl_dim"]
    assert {r["published_mean"] for r in dims} == {"172.0", "587.0"} and float(dims[0]["ours_mean"]) == 171.0
    params = [r for r in t3 if r["metric"] == "wl_lstm_parameters"]
    assert float(params[0]["ours_mean"]) == 1250000 and float(params[0]["published_mean"]) == 1253292
    for n in (2, 3, 4):
        for ext in ("png", "pdf"):
            assert (res / "figures" / f"state-centric-figure{n}.{ext}").stat().st_size > 1000
    quality = {(r["split"], r["system"], r["variant"], r["beam_mode"]): r
               for r in _read(res / "tables" / "state-centric-quality.csv")}
    q = quality[("extrapolation", "wl_xgb", "delta", "reference")]
    assert float(q["coverage"]) == 0.5 and float(q["mean_quality"]) == 0.5 and float(q["mean_length_ratio"]) == 2.0
    lama = quality[("extrapolation", "fast_downward", "lama_first", "")]
    assert float(lama["coverage"]) == 1.0 and float(lama["mean_quality"]) == (3 * 10 / 12 + 1) / 4  # p4: LAMA is the best known
    assert "length / best" in (res / "tables" / "state-centric-quality.md").read_text()


def test_report_command_line(tmp_path):
    res = _results(tmp_path)
    out = tmp_path / "out"
    proc = run_cli("report", "state-centric", "--results", res, "--out-dir", out)
    assert proc.returncode == 0, proc.stderr
    assert (out / "tables" / "state-centric-table1.md").is_file()
    bad = run_cli("report", "no-such-paper", "--results", res, "--out-dir", out)
    assert bad.returncode != 0 and "Unknown value" in bad.stderr


def test_decoders_table_puts_each_decoder_side_by_side(tmp_path):
    res = _results(tmp_path)
    for seed in SOLVED:  # the reference decoder as written solves nothing here
        path = res / "evaluation" / "generated" / "blocks" / "wl_xgb_delta" / f"seed{seed}" / "extrapolation.beam3-reference-nostatics.csv"
        write_csv(path, _eval_rows("wl_xgb_delta", seed, "extrapolation", "reference-nostatics", set()), EVAL_COLUMNS)
    build_report("state-centric", res, res)
    rows = {(r["split"], r["system"], r["variant"]): r for r in _read(res / "tables" / "state-centric-decoders.csv")}
    r = rows[("extrapolation", "wl_xgb", "delta")]
    assert (r["reference-nostatics"], r["reference"], r["pooled"], r["pooled-nostatics"]) == ("0.0000", "0.5000", "1.0000", "")
    assert (r["beam_fix"], r["static_fix"], float(r["published"])) == ("+0.5000", "+0.5000", 0.5)
    assert rows[("validation", "wl_xgb", "delta")]["static_fix"] == ""
    assert "static-atom fix" in (res / "tables" / "state-centric-decoders.md").read_text()


def test_agreement_counts_test_cells_near_the_published_and_lists_the_rest(tmp_path):
    res = _results(tmp_path)
    build_report("state-centric", res, res)
    summary = {r["decoder"]: r for r in _read(res / "tables" / "state-centric-agreement.csv")}
    # one test cell (blocks extrapolation, published 0.50): reference 0.50 agrees, pooled 1.00 does not
    assert (summary["reference"]["cells"], summary["reference"]["within_tolerance"]) == ("1", "1")
    assert (summary["pooled"]["within_tolerance"], summary["pooled"]["mean_diff"]) == ("0", "+0.5000")
    assert summary["faithful"]["mean_abs_diff"] == "0.0000"  # no -nostatics twin: the reference cell
    cells = _read(res / "tables" / "state-centric-agreement-cells.csv")
    assert [(c["decoder"], c["split"], c["run_as"], c["diff"]) for c in cells] == [
        ("pooled", "extrapolation", "pooled", "+0.5000")]
    for seed in SOLVED:  # the reference as written (no statics at inference) solves nothing
        path = res / "evaluation" / "generated" / "blocks" / "wl_xgb_delta" / f"seed{seed}" / "extrapolation.beam3-reference-nostatics.csv"
        write_csv(path, _eval_rows("wl_xgb_delta", seed, "extrapolation", "reference-nostatics", set()), EVAL_COLUMNS)
    build_report("state-centric", res, res)
    faithful = [c for c in _read(res / "tables" / "state-centric-agreement-cells.csv") if c["decoder"] == "faithful"]
    assert [(c["run_as"], c["n_seeds"], c["diff"]) for c in faithful] == [("reference-nostatics", "3", "-0.5000")]
    assert "Cells outside 0.10" in (res / "tables" / "state-centric-agreement.md").read_text()


def test_decoder_differences_are_taken_over_the_seeds_both_decoders_ran(tmp_path):
    res = _results(tmp_path)  # reference: seeds 13, 14, 15 solve 1, 2, 3 of 4 problems
    path = res / "evaluation" / "generated" / "blocks" / "wl_xgb_delta" / "seed13" / "extrapolation.beam3-reference-nostatics.csv"
    write_csv(path, _eval_rows("wl_xgb_delta", "13", "extrapolation", "reference-nostatics", set()), EVAL_COLUMNS)
    build_report("state-centric", res, res)
    rows = {(r["split"], r["system"], r["variant"]): r for r in _read(res / "tables" / "state-centric-decoders.csv")}
    r = rows[("extrapolation", "wl_xgb", "delta")]
    assert (r["reference"], r["reference_seeds"], r["reference-nostatics_seeds"]) == ("0.5000", "3", "1")
    assert r["static_fix"] == "+0.2500"  # seed 13 alone: 0.25 - 0, not the 3-seed mean 0.50 - 0
    assert "| 0.00 (1 seed) |" in (res / "tables" / "state-centric-decoders.md").read_text()


def test_the_same_results_give_byte_identical_figures(tmp_path):
    res = _results(tmp_path)
    build_report("state-centric", res, res)
    first = {p.name: p.read_bytes() for p in (res / "figures").iterdir()}
    build_report("state-centric", res, res)
    assert first == {p.name: p.read_bytes() for p in (res / "figures").iterdir()}
    assert all(b"/CreationDate" not in data for name, data in first.items() if name.endswith(".pdf"))


def test_the_report_writes_exactly_its_registered_outputs(tmp_path):
    """The workflow's report rule takes its outputs from genplan.report.registry: the two agree."""
    from genplan.report.registry import outputs

    res = _results(tmp_path)
    written = build_report("state-centric", res, res)
    assert sorted(map(str, written)) == sorted(outputs("state-centric", str(res)))
    assert all(p.is_file() and p.stat().st_size > 0 for p in written)


def test_old_evaluation_csvs_are_refused_naming_the_file(tmp_path):
    """A CSV of the transition-only schema (genplan before the model-family registry) is refused
    with its missing columns and its path."""
    import pytest

    from genplan.errors import GenplanError
    from genplan.formats.evaluation_csv import read_evaluation

    path = tmp_path / "extrapolation.reference-nostatics.csv"
    write_csv(path, [{"problem": "a", "encoding": "fsf", "beam_mode": "reference-nostatics", "expansions": 63}],
              ["problem", "encoding", "beam_mode", "expansions"])
    with pytest.raises(GenplanError, match=r"lacks columns \[.*'strategy'.*older genplan") as err:
        read_evaluation(path)
    assert str(path) in str(err.value)


def test_figures_plot_the_numbers_of_their_split(tmp_path):
    """A figure is made from its split's cells: changing the extrapolation results changes Figure 4
    (extrapolation) and leaves Figure 2 (validation) byte-identical."""
    res = _results(tmp_path)
    build_report("state-centric", res, res)
    before = {n: (res / "figures" / f"state-centric-figure{n}.png").read_bytes() for n in (2, 4)}
    path = res / "evaluation" / "generated" / "blocks" / "wl_xgb_delta" / "seed13" / "extrapolation.beam3-pooled.csv"
    write_csv(path, _eval_rows("wl_xgb_delta", "13", "extrapolation", "pooled", set()), EVAL_COLUMNS)
    build_report("state-centric", res, res)
    after = {n: (res / "figures" / f"state-centric-figure{n}.png").read_bytes() for n in (2, 4)}
    assert after[2] == before[2] and after[4] != before[4]
    rows = _read(res / "tables" / "state-centric-table1.csv")
    cell = [r for r in rows if (r["split"], r["system"], r["variant"], r["beam_mode"]) ==
            ("extrapolation", "wl_xgb", "delta", "pooled")]
    assert [(r["n_seeds"], r["ours_mean"]) for r in cell] == [("3", "0.6667")]  # seeds 14, 15 solve all; 13 none


def test_symt_table2_reports_the_sequence_models_beside_the_published(tmp_path):
    """PlanGPT's greedy / applicability / regrounding coverage over seeds, each beside SymT Table 2."""
    from genplan.report.registry import outputs

    res = tmp_path / "results"
    for seed, solved in SOLVED.items():
        for strategy in ("greedy", "greedy-applicable"):
            rows = [{**r, "system": "plangpt", "variant": "ce", "model": "plangpt", "strategy": strategy}
                    for r in _eval_rows("wl_xgb_delta", seed, "interpolation", "pooled", solved)]
            path = res / "evaluation" / "generated" / "blocks" / "plangpt" / f"seed{seed}" / f"interpolation.{strategy}.csv"
            write_csv(path, rows, EVAL_COLUMNS)
    written = build_report("symt", res, res)
    assert sorted(map(str, written)) == sorted(outputs("symt", str(res)))
    cells = {(r["split"], r["system"], r["variant"]): r for r in _read(res / "tables" / "symt-table2.csv")
             if r["domain"] == "blocks"}
    greedy = cells[("interpolation", "plangpt", "greedy")]
    assert (greedy["ours_mean"], greedy["ours_std"], greedy["n_seeds"]) == ("0.5000", "0.2041", "3")
    assert greedy["published_mean"] == "0.56" and cells[("interpolation", "plangpt", "applicability")]["ours_mean"]
    assert cells[("interpolation", "symt_ed", "greedy")]["ours_mean"] == ""  # published, not run by us
    assert "0.50±0.20 (0.56±0.16)" in (res / "tables" / "symt-table2.md").read_text()


def test_a_figure_bar_falls_back_to_the_model_without_statics_and_flags_it():
    from genplan.report.figures import beam_bars

    keys = [("fast_downward", "astar_lmcut"), ("wl_lstm", "state"), ("wl_xgb", "state"), ("fsf_lstm", "state")]
    index = {("fast_downward", "astar_lmcut", ""): {"ours_mean": "0.9", "ours_std": ""},
             ("wl_lstm", "state", "pooled-dropstatics"): {"ours_mean": "0.4", "ours_std": "0.1"},
             ("wl_xgb", "state", "pooled"): {"ours_mean": "0.7", "ours_std": ""},
             ("wl_xgb", "state", "pooled-dropstatics"): {"ours_mean": "0.2", "ours_std": ""}}
    means, _, _, dropped = beam_bars(index, keys, "pooled")
    assert np.isnan(means[0]) and means[1] == 0.4 and means[2] == 0.7 and np.isnan(means[3])
    assert dropped == [False, True, False, False]  # the twin with statics wins where both ran
    means, _, _, dropped = beam_bars(index, keys, "reference")
    assert means[0] == 0.9 and np.isnan(means[1]) and not any(dropped)


def test_table3_has_one_labelled_row_per_model_and_no_twin_beside_the_published(tmp_path):
    """The drop-statics twin was pooled with the paper's model in one unlabelled WL-dimension row
    (VisitAll 78±60 against the published 138): now each model has its own rows, the twin without a published."""
    res = _results(tmp_path)
    for seed in ("13", "14"):
        summary = res / "models" / "generated" / "blocks" / "wl_lstm_state_dropstatics" / f"seed{seed}" / "summary.json"
        summary.parent.mkdir(parents=True)
        summary.write_text(json.dumps({"model": "wl_lstm_state_dropstatics", "family": "transition",
                                       "system": "wl_lstm", "variant": "state", "feature_dim": 17,
                                       "lstm_parameters": 1100000}))
    build_report("state-centric", res, res)
    t3 = _read(res / "tables" / "state-centric-table3.csv")
    dims = [(r["system"], r["variant"], r["ours_mean"], r["published_mean"]) for r in t3 if r["metric"] == "wl_dim"]
    assert dims == [("wl", "lstm_state", "171.0000", "172.0"), ("wl", "lstm_state", "171.0000", "587.0"),
                    ("wl", "lstm_state_dropstatics", "17.0000", "")]
    params = [(r["variant"], r["ours_mean"], r["published_mean"]) for r in t3 if r["metric"] == "wl_lstm_parameters"]
    assert params == [("state", "1250000.0000", "1253292.0"), ("state_dropstatics", "1100000.0000", "")]
    md = (res / "tables" / "state-centric-table3.md").read_text()
    assert "| blocks | wl_lstm_state_dropstatics | wl_dim | 17±0 | – | – |" in md
