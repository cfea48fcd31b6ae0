"""The budget curves from files written here: the report's rows (run fields from the training
summaries, coverage per split and strategy from the evaluation CSVs, training split included, a cell not
run left empty), its figures, and exactly the registry's outputs; the report runs only on a
configuration with budget models; the training split's rows reach no other report; the schema takes
`train` as an evaluation split."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import yaml
from conftest import REPO

from genplan.formats.evaluation_csv import COLUMNS
from genplan.formats.tables import write_csv
from genplan.report import build_report, collect
from genplan.report import registry as reports


def _evaluation(res: Path, model, system, split, strategy, solved, n, domain="blocks", seed=13):
    rows = [{"benchmark": "paper", "domain": domain, "split": split, "system": system, "variant": "contrastive",
             "model": model, "seed": seed, "strategy": strategy, "problem": f"p{i}", "size": 4, "num_objects": 8,
             "horizon": 500, "solved": "yes" if i < solved else "no", "reason": "goal" if i < solved else "horizon",
             "val": "valid" if i < solved else "", "plan_length": 6 if i < solved else "", "best_known": 6,
             "quality": "1.0000" if i < solved else "", "time": "0.1", "steps": 6, "model_calls": 6,
             "counters": "{}"} for i in range(n)]
    path = res / "evaluation" / "paper" / domain / model / f"seed{seed}" / f"{split}.{strategy}.csv"
    write_csv(path, rows, COLUMNS)


def _summary(res: Path, model, family, system, domain="blocks", seed=13, **fields):
    path = res / "models" / "paper" / domain / model / f"seed{seed}" / "summary.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"model": model, "family": family, "system": system, "variant": "contrastive",
                                **fields}))


def _read(path: Path) -> list[dict]:
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def _tree(res: Path) -> None:
    """SymT^E at 5 and 15 nominal minutes on Blocksworld (the 15-minute model without interpolation),
    a paper model `symt_e` (not a budget point), and a PlanGPT budget model evaluated without a summary."""
    _summary(res, "symt_e_b005", "symt", "symt_e", train_examples=4430, epochs=20, best_epoch=18,
             best_score=3.5, optimizer_steps=2780, job_cpu_s=330.0)
    _summary(res, "symt_e_b015", "symt", "symt_e", train_examples=13300, epochs=20, best_epoch=20,
             best_score=1.25, optimizer_steps=8320, job_cpu_s=960.0)
    _summary(res, "symt_e", "symt", "symt_e", train_examples=2000, epochs=8, best_epoch=4, best_score=9.0,
             optimizer_steps=500, job_cpu_s=60.0)
    for split, solved, n in (("train", 3, 9), ("validation", 0, 3), ("interpolation", 1, 3)):
        _evaluation(res, "symt_e_b005", "symt_e", split, "heuristic-greedy", solved, n)
        _evaluation(res, "symt_e", "symt_e", split, "heuristic-greedy", 9, 9)
    for split, solved, n in (("train", 7, 9), ("validation", 1, 3)):
        _evaluation(res, "symt_e_b015", "symt_e", split, "heuristic-greedy", solved, n)
    _evaluation(res, "plangpt_b005", "plangpt", "validation", "greedy-applicable", 2, 4, domain="gripper")


def test_budget_tables_and_figures(tmp_path):
    res = tmp_path / "results"
    _tree(res)
    written = build_report("budget", res, res)
    assert sorted(map(str, written)) == sorted(reports.outputs("budget", str(res)))
    rows = _read(res / "tables" / "budget-symt_e.csv")
    assert {r["model"] for r in rows} == {"symt_e_b005", "symt_e_b015"}  # the paper model is no budget point
    cells = {(r["model"], r["split"]): r for r in rows}
    assert len(rows) == 6  # 2 runs x (train, validation, interpolation) of heuristic-greedy
    b5 = cells[("symt_e_b005", "train")]
    assert (b5["nominal_cpu_min"], b5["examples_presented"], b5["cpu_min"], b5["optimizer_steps"]) == \
        ("5", "88600", "5.5000", "2780")
    assert (b5["best_epoch"], b5["epochs"], b5["val_loss"], b5["examples_per_cpu_s"]) == \
        ("18", "20", "3.5000", f"{88600 / 330:.4f}")
    assert (b5["solved"], b5["problems"], b5["coverage"]) == ("3", "9", "0.3333")
    assert cells[("symt_e_b015", "train")]["coverage"] == "0.7778"
    missing = cells[("symt_e_b015", "interpolation")]  # not run: no number, never a 0
    assert (missing["solved"], missing["problems"], missing["coverage"]) == ("", "", "")
    assert cells[("symt_e_b015", "interpolation")]["cpu_min"] == "16.0000"
    md = (res / "tables" / "budget-symt_e.md").read_text()
    assert "| paper | blocks | symt_e_b015 | 13 | 15 | 266,000 | 16.00 |" in md
    b5_line, b15_line = md.splitlines()[4:6]  # heading, blank, header, rule, then the runs by budget
    assert b5_line.endswith("| 18 / 20 | 3.500 | 3/9 | 0/3 | 1/3 |")  # train, validation, interpolation
    assert b15_line.endswith("| 7/9 | 1/3 | – |")  # interpolation: not run
    plangpt = _read(res / "tables" / "budget-plangpt.csv")  # evaluated, no summary: no CPU time, no budget filled in
    assert [(r["model"], r["domain"], r["coverage"], r["cpu_min"], r["nominal_cpu_min"]) for r in plangpt] == \
        [("plangpt_b005", "gripper", "0.5000", "", "5")]
    assert "No budget model" in (res / "tables" / "budget-diffusion.md").read_text()
    assert _read(res / "tables" / "budget-diffusion.csv") == []
    for system in reports.BUDGET_SYSTEMS:
        for ext in ("png", "pdf"):
            assert (res / "figures" / f"budget-{system}.{ext}").stat().st_size > 0


def test_training_split_rows_reach_the_budget_report_only(tmp_path):
    """The papers' reports and the leaderboard read evaluation rows without the training split's; the
    SymT report's tables are the same with and without a training split evaluated."""
    res = tmp_path / "results"
    for split, solved in (("validation", 1), ("interpolation", 2)):
        _evaluation(res, "symt_e", "symt_e", split, "heuristic-greedy", solved, 3)
    _summary(res, "symt_e", "symt", "symt_e", contrastive=True, parameters=10, divergences=0, object_pool=32,
             decoder_positions=None)
    build_report("symt", res, tmp_path / "before")
    _evaluation(res, "symt_e", "symt_e", "train", "heuristic-greedy", 9, 9)
    assert {r["split"] for r in collect.evaluation_rows(res)} == {"validation", "interpolation"}
    assert {r["split"] for r in collect.evaluation_rows(res, training=True)} == {"train", "validation", "interpolation"}
    build_report("symt", res, tmp_path / "after")
    for name in ("symt-table2.csv", "symt-ablations.csv", "symt-stability.csv"):
        assert (tmp_path / "after" / "tables" / name).read_text() == (tmp_path / "before" / "tables" / name).read_text()


def test_the_budget_report_runs_only_with_budget_models():
    paper_cpu = yaml.safe_load((REPO / "workflow/configs/paper-cpu.yaml").read_text())["models"]
    budget = yaml.safe_load((REPO / "workflow/configs/budget-cpu.yaml").read_text())["models"]
    assert not reports.runs("budget", ["paper"], *reports.split_budget(paper_cpu))
    assert reports.runs("budget", ["paper"], *reports.split_budget(budget))
    assert all(reports.is_budget_model(m) for m in budget)
    for paper in ("symt", "plangpt", "diffusion", "state-centric"):  # a budget point is no paper's configuration
        assert reports.runs(paper, ["paper"], *reports.split_budget(paper_cpu))
        assert not reports.runs(paper, ["paper"], *reports.split_budget(budget))
    assert reports.runs("leaderboard", ["paper"], *reports.split_budget(budget))


def test_budget_names_match_their_examples_presented():
    """Every budget entry presents its nominal minutes x 60 x its family's measured examples per CPU-second
    (the rates its config's comments quote from perf/results/training-throughput-after.txt; SymT^ED's
    recipe entries the rate of its trial e18, from that trial's summary), to 1%."""
    config = (REPO / "workflow/configs/budget-cpu.yaml").read_text()
    throughput = (REPO / "perf/results/training-throughput-after.txt").read_text()
    run = throughput[throughput.index("run after-1"):throughput.index("run after-2")]
    table = run[run.index("ex/cpu-s"):run.index("per step")]  # model thr params steps/cpu-s ex/cpu-s ...
    rates = {line.split()[0]: float(line.split()[4]) for line in table.splitlines()
             if line.split() and line.split()[0] in ("symt_e", "symt_ed", "plangpt", "diffusion")}
    assert len(rates) == 4
    e18 = json.loads((REPO / "experiments/results/recipe/e18_symted_gripper_pool48_whid001/summary.json").read_text())
    rates["symt_ed"] = round(6000 * 20 / e18["job_cpu_s"], 1)  # the recipe trial e18: 6,000 x 20 examples
    for name, entry in yaml.safe_load(config)["models"].items():
        family = name.rsplit("_b", 1)[0]
        assert f"{rates[family]}" in config
        presented = entry["train"]["examples"] * entry["train"]["epochs"]
        target = int(name[-3:]) * 60 * rates[family]
        assert abs(presented - target) <= 0.01 * target, name
        assert entry["train"]["sample_by"] == "h" and entry["train"]["patience"] is None


def test_the_configuration_check_takes_the_training_split_for_evaluation():
    from genplan.configuration import faults

    schema = REPO / "workflow/schemas/config.schema.yaml"
    config = yaml.safe_load((REPO / "workflow/configs/budget-cpu.yaml").read_text())
    assert config["evaluation"]["splits"][0] == "train" and faults(config, schema) == []
    config["models"]["symt_e_b005"]["strategy_splits"] = {"heuristic-greedy": ["train"]}
    assert faults(config, schema) == []
    config["evaluation"]["splits"] = ["training"]
    assert any("evaluation.splits" in p and "training" in p for p in faults(config, schema))
