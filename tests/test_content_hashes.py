"""Problems regenerated with another seed keep their names. A plans table (and a
trajectories file) carries each problem file's SHA-256, and every stage that joins it with problem
files again refuses other content under the same names, naming the table: before, `genplan evaluate`
against the first benchmark with the second's plans table exited 0 with the second's best-known
lengths (a quality above 1). Real Fast Downward, VAL, pymimir and a trained XGBoost model."""

from __future__ import annotations

import gzip
import json

import pytest
from conftest import run_cli

from genplan.datasets.plan_neighbourhood import problem_files
from genplan.errors import GenplanError
from genplan.formats.plans_table import HASH, read_table
from genplan.stages.importer import SPLIT_DIRS
from genplan.stages.problems import generate_benchmark

pytestmark = pytest.mark.timeout(120)

PLANNER = json.dumps({"optimal": {"time_limit": 20}, "fallback": {"time_limit": 20}, "lama": {"enabled": False},
                      "memory_limit_mb": 1024})
XGB = json.dumps({"family": "transition", "encoding": "wl", "learner": "xgb", "mode": "delta",
                  "train": {"n_estimators": 3}})


def _ok(*args):
    res = run_cli(*map(str, args))
    assert res.returncode == 0, res.stderr
    return res


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Blocksworld with 4 blocks, one problem a split, generated with seed 0 (`old`) and seed 1
    (`new`): the same file names, other problems. `new` planned, its trajectories and a model."""
    w = tmp_path_factory.mktemp("hashes")
    params = {"sizes": {s: [4] for s in SPLIT_DIRS}, "per_size": {s: 1 for s in SPLIT_DIRS}}
    for name, seed in (("old", 0), ("new", 1)):
        generate_benchmark("blocks", params, seed, w / name)
    assert (w / "old/train/blocks-s4-i3.pddl").read_text() != (w / "new/train/blocks-s4-i3.pddl").read_text()
    for split in ("train", "validation"):
        _ok("plan", "--benchmark-dir", w / "new", "--split", split, "--params", PLANNER,
            "--out-dir", w / "plans" / split, "--out-table", w / "plans" / f"{split}.csv")
        _ok("trajectories", "--benchmark-dir", w / "new", "--split", split, "--plans-dir", w / "plans" / split,
            "--plans-table", w / "plans" / f"{split}.csv", "--out", w / f"{split}.json.gz")
    _ok("train", "--model", "m", "--settings", XGB, "--domain", "blocks", "--train", w / "train.json.gz",
        "--validation", w / "validation.json.gz", "--seed", "1", "--device", "cpu", "--out", w / "model.ckpt")
    return w


def _evaluate(w, bench, out):
    return run_cli("evaluate", "--model", str(w / "model.ckpt"), "--benchmark-dir", str(w / bench), "--split",
                   "train", "--plans-table", str(w / "plans/train.csv"), "--out", str(out))


def test_tables_and_trajectories_carry_each_problems_hash(runs):
    from genplan.resume import file_sha256

    want = file_sha256(runs / "new/train/blocks-s4-i3.pddl")
    assert {r[HASH] for r in read_table(runs / "plans/train.csv")} == {want}
    with gzip.open(runs / "train.json.gz", "rt") as fh:
        assert [r["problem_sha256"] for r in json.load(fh)["problems"]] == [want]


def test_evaluate_refuses_the_plans_table_of_other_problems_with_the_same_names(runs, tmp_path):
    good = _evaluate(runs, "new", tmp_path / "good.csv")  # the table of these problems: evaluated
    assert good.returncode == 0, good.stderr
    res = _evaluate(runs, "old", tmp_path / "bad.csv")
    assert res.returncode == 1, res.stderr
    errors = [line for line in res.stderr.splitlines() if line.startswith("genplan: error:")]
    assert len(errors) == 1 and "Traceback" not in res.stderr, res.stderr
    for text in ("plans/train.csv", "made from other problems", "'blocks-s4-i3'", "old/train/blocks-s4-i3.pddl",
                 "rerun the plans stage"):
        assert text in errors[0], errors[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["good.csv", "good.plans.json.gz"]


def test_trajectories_refuses_the_plans_of_other_problems(runs, tmp_path):
    res = run_cli("trajectories", "--benchmark-dir", str(runs / "old"), "--split", "train", "--plans-dir",
                  str(runs / "plans/train"), "--plans-table", str(runs / "plans/train.csv"),
                  "--out", str(tmp_path / "t.json.gz"))
    assert res.returncode == 1, res.stderr
    assert "made from other problems" in res.stderr and "plans/train.csv" in res.stderr, res.stderr
    assert list(tmp_path.iterdir()) == []


def test_training_from_plans_refuses_other_problem_files(runs):
    """Training from plans joins each trajectory with its problem file again (its neighbourhood)."""
    with gzip.open(runs / "train.json.gz", "rt") as fh:
        doc = json.load(fh)
    assert problem_files(doc, runs / "train.json.gz", [runs / "new"])  # its own problems
    with pytest.raises(GenplanError, match="other content") as err:
        problem_files(doc, runs / "train.json.gz", [runs / "old"])
    assert "old/train/blocks-s4-i3.pddl" in str(err.value) and "train.json.gz" in str(err.value)


def test_a_resumed_record_is_rechecked_by_val(runs, tmp_path, monkeypatch, caplog):
    """Records taken from a killed job's `.partial` sidecar went into the CSV without VAL.
    A record whose stored plan VAL does not judge as it says is planned again."""
    from genplan import resume
    from genplan.evaluation.split import evaluate_split

    out = tmp_path / "e.csv"
    args = (runs / "model.ckpt", runs / "new", "train", runs / "plans/train.csv", None, {}, out)
    with monkeypatch.context() as m:
        m.setattr(resume.Sidecar, "remove", lambda self: None)  # keep the finished job's sidecar, as a kill would
        first = evaluate_split(*args)
    side = resume.sidecar_path(out) / "blocks-s4-i3.json"
    saved = json.loads(side.read_text())
    rec = saved["payload"]
    assert rec["plan"], rec
    if rec["val"] == "valid":  # a solved record: its plan loses its last action, the record still says valid
        rec["plan"] = rec["plan"][:-1]
    else:  # an unsolved one now claims a valid plan
        rec.update(val="valid", solved="yes", reason="goal", plan_length=len(rec["plan"]))
    side.write_text(json.dumps(saved) + "\n")
    with caplog.at_level("WARNING", logger="genplan"):
        again = evaluate_split(*args)
    assert "the record resumed from the sidecar says val=" in caplog.text and "planned again" in caplog.text
    keys = ("solved", "val", "plan_length", "plan")
    assert [{k: r[k] for k in keys} for r in again] == [{k: r[k] for k in keys} for r in first]
    assert not resume.sidecar_path(out).exists()
