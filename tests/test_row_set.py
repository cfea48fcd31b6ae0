"""Evaluation tables that cannot be double-counted (genplan.formats.row_set): one row three times read
"3 solved of 3" for a one-problem split, and `validate --evaluation` agreed with a doubled row.
Every reader of evaluation CSVs (genplan.formats.evaluation_csv.read_evaluation, which the reports and
`validate --evaluation` use) refuses a repeated problem, rows of two jobs and rows of problems the
split does not have, naming the file; `validate --evaluation` also wants a row for every problem
of the split. Real VAL, real files in a results layout."""

from __future__ import annotations

import pytest
from conftest import run_cli

from genplan.errors import GenplanError
from genplan.formats import stored_plans, tables
from genplan.formats.evaluation_csv import COLUMNS, read_evaluation
from genplan.report.collect import evaluation_rows
from genplan.stages.importer import SPLIT_DIRS
from genplan.stages.problems import generate_benchmark

pytestmark = pytest.mark.timeout(120)

@pytest.fixture(scope="module")
def root(tmp_path_factory):
    root = tmp_path_factory.mktemp("rows")
    sizes = {s: [4] for s in SPLIT_DIRS}
    sizes["interpolation"] = [5, 6]  # a split of two problems (a size of another split is generated once)
    generate_benchmark("gripper", {"sizes": sizes, "per_size": {s: 1 for s in SPLIT_DIRS}}, 0,
                       root / "problems/generated/gripper")
    return root


def _row(problem: str, split: str, **changes) -> dict:
    return {**dict.fromkeys(COLUMNS, ""), "benchmark": "generated", "domain": "gripper", "split": split,
            "system": "s", "variant": "v", "model": "m", "seed": "1", "strategy": "gbfs", "problem": problem,
            "solved": "no", "reason": "refused", "counters": "{}", **changes}


def _write(root, split: str, rows: list[dict]):
    csv = root / f"evaluation/generated/gripper/m/seed1/{split}.gbfs.csv"
    csv.parent.mkdir(parents=True, exist_ok=True)
    csv.write_text(tables.csv_text(rows, COLUMNS))
    bench = root / "problems/generated/gripper"
    entries = [(r["problem"], next(bench.glob(f"*/{r['problem']}.pddl")), None) for r in rows
               if list(bench.glob(f"*/{r['problem']}.pddl"))]
    doc = stored_plans.document(csv, bench, bench / "domain.pddl", entries)
    stored_plans.plans_path(csv).write_bytes(stored_plans.encode(doc))
    return csv


@pytest.mark.parametrize("case, rows, why", [
    ("one row three times", [_row("gripper-n4", "extrapolation")] * 3, "problem 'gripper-n4' has rows 2 and 3"),
    ("a problem of another split", [_row("gripper-n4", "extrapolation"), _row("gripper-n5", "extrapolation")],
     "1 row(s) of problems that split 'extrapolation' does not have, e.g. ['gripper-n5']"),
    ("rows of two jobs", [_row("gripper-n4", "extrapolation"), _row("gripper-n4x", "extrapolation", seed="2")],
     "rows of more than one job: column seed"),
    ("a split other than the file's", [_row("gripper-n4", "validation")], "column split is 'validation', the file's "
                                                                           "name says 'extrapolation'"),
])
def test_every_reader_refuses_rows_that_would_be_counted_twice_or_wrongly(root, case, rows, why):
    csv = _write(root, "extrapolation", rows)
    with pytest.raises(GenplanError) as err:
        read_evaluation(csv)
    assert err.value.path == csv and why in err.value.message, err.value.message
    with pytest.raises(GenplanError):  # the reports' reader
        evaluation_rows(root)
    res = run_cli("validate", "--evaluation", csv)
    assert res.returncode == 1 and why in res.stderr and str(csv) in res.stderr, res.stdout + res.stderr
    csv.unlink()


def test_validate_evaluation_wants_a_row_for_every_problem_of_the_split(root):
    csv = _write(root, "interpolation", [_row("gripper-n5", "interpolation"), _row("gripper-n6", "interpolation")])
    res = run_cli("validate", "--evaluation", csv)
    assert res.returncode == 0 and "2 agree, 0 disagree, 0 missing" in res.stdout, res.stdout + res.stderr
    csv = _write(root, "interpolation", [_row("gripper-n6", "interpolation")])  # a row deleted, its plan too
    res = run_cli("validate", "--evaluation", csv)
    assert res.returncode == 1, res.stdout + res.stderr
    assert "gripper-n5: a problem of split 'interpolation' without a row" in res.stdout
    csv.unlink()


def test_the_committed_evaluations_are_one_row_per_problem_of_their_split():
    from conftest import REPO

    csvs = sorted(REPO.glob("results/**/evaluation/*/*/*/seed*/*.csv"))
    assert len(csvs) > 1000
    for csv in csvs:
        read_evaluation(csv)  # raises naming the first one that is not
