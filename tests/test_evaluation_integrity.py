"""An evaluation CSV that is not whole is named by every reader (the reports,
`validate --evaluation`) instead of being left out or counted unsolved; `validate --evaluation`
notices a deleted row and a quality that is not best_known / plan_length. The evaluations are real
ones (tests/test_evaluation.py's `evaluated`: two evaluations, VAL-checked plans stored beside)."""

from __future__ import annotations

import pytest
from conftest import run_cli
from test_evaluation import bench, evaluated  # noqa: F401 (fixtures)

from genplan import cli
from genplan.errors import GenplanError
from genplan.formats.evaluation_csv import read_evaluation

pytestmark = pytest.mark.timeout(60)


def _broken(path, how):
    text = path.read_text()
    if how == "emptied":
        path.write_text("")
    elif how == "header only":
        path.write_text(text.splitlines()[0] + "\n")
    elif how == "cut short":
        path.write_text(text[:-25])
    elif how == "solved=maybe":
        path.write_text(text.replace(",yes,goal,", ",maybe,goal,", 1))
    return path


CASES = {"emptied": "empty or cut short", "header only": "without rows", "cut short": "cut short",
         "solved=maybe": "solved='maybe', not yes or no"}


@pytest.mark.parametrize("how", list(CASES))
def test_a_broken_evaluation_csv_is_named_by_the_reports(evaluated, how, tmp_path):
    root, solved, idle = evaluated
    assert len(read_evaluation(solved)) == 2  # whole: read
    _broken(solved, how)
    with pytest.raises(GenplanError, match=CASES[how].replace("(", r"\(").replace(")", r"\)")) as err:
        read_evaluation(solved)
    assert str(solved) in str(err.value)
    out = tmp_path / "report"
    res = run_cli("report", "leaderboard", "--results", str(root), "--out-dir", str(out))
    assert res.returncode == 1 and "Traceback" not in res.stderr, res.stderr
    errors = [line for line in res.stderr.splitlines() if line.startswith("genplan: error:")]
    assert len(errors) == 1 and str(solved) in errors[0] and CASES[how] in errors[0], res.stderr
    assert not out.exists() or list(out.iterdir()) == []


def test_validate_notices_a_deleted_row(evaluated, capsys):
    root, solved, idle = evaluated
    lines = solved.read_text().splitlines(keepends=True)
    solved.write_text("".join(line for line in lines if ",g2," not in line))  # g2's row gone, its plan stored
    assert cli.main(["validate", "--evaluation", str(solved)]) == 1
    out = capsys.readouterr().out
    assert f"DISAGREE {solved}: g2: a plan is stored for it but the CSV has no row" in out


def test_validate_rechecks_quality_against_best_known(evaluated, capsys):
    root, solved, idle = evaluated
    rows = read_evaluation(solved)
    g1 = next(r for r in rows if r["problem"] == "g1")
    assert g1["solved"] == "yes" and g1["quality"] == f"{int(g1['best_known']) / int(g1['plan_length']):.4f}"
    text = solved.read_text()
    bad = f",{g1['best_known']},{g1['quality']},"
    assert text.count(bad) == 1
    solved.write_text(text.replace(bad, f",{g1['best_known']},1.6000,"))
    assert cli.main(["validate", "--evaluation", str(solved)]) == 1
    out = capsys.readouterr().out
    assert f"DISAGREE {solved}: g1: quality '1.6000', but best_known {g1['best_known']} / plan_length" in out


def test_a_relative_benchmark_dir_still_names_the_benchmark(bench, tmp_path, monkeypatch):  # noqa: F811
    """`--benchmark-dir gripper` from inside problems/generated/: the parent is '.', whose name is ''."""
    from test_evaluation import _oracle_for
    from transition_doubles import OracleModel

    from genplan.evaluation.split import evaluate_split
    from genplan.planners import beam

    root, table = bench
    real = beam.decode
    monkeypatch.setattr(beam, "decode", lambda m, task, mtask, cfg: real(OracleModel(mtask), task, mtask, cfg))
    monkeypatch.chdir(root.parent)
    records = evaluate_split("m.ckpt", "gripper", "interpolation", table, "beam3-pooled", {},
                                        tmp_path / "out.csv", model=_oracle_for(root / "interpolation/g1.pddl"))
    assert [r["benchmark"] for r in records] == ["generated", "generated"]
    assert {r["benchmark"] for r in read_evaluation(tmp_path / "out.csv")} == {"generated"}


def test_validate_rechecks_best_known_against_the_plans_table(evaluated, bench, capsys):  # noqa: F811
    """The split's plans table under the same results root is the best-known lengths' source."""
    import shutil

    root, solved, idle = evaluated
    _, table = bench
    laid_out = root / "plans" / "generated" / "gripper" / "interpolation.csv"
    laid_out.parent.mkdir(parents=True)
    shutil.copyfile(table, laid_out)
    assert cli.main(["validate", "--evaluation", str(solved)]) == 0  # the table it was evaluated with
    laid_out.write_text(table.read_text().replace("g1,astar_lmcut,optimal,3,", "g1,astar_lmcut,optimal,2,"))
    assert cli.main(["validate", "--evaluation", str(solved)]) == 1
    out = capsys.readouterr().out
    assert f"DISAGREE {solved}: g1: best_known '3', the plans table {laid_out} says '2'" in out
