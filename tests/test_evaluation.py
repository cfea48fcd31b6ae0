"""`genplan evaluate` and `genplan solve`: real VAL on every plan, the evaluation CSV's columns, exit
codes. Models are the exact test doubles of tests/transition_doubles.py, injected in-process."""

import csv
import json
from pathlib import Path

import pytest
from transition_doubles import OracleModel, gripper_problem, load

from genplan import cli, solve_setup
from genplan.domains import domain_file, domain_key
from genplan.evaluation.split import evaluate_split
from genplan.formats import evaluation_csv, manifest
from genplan.formats.plans_table import COLUMNS as PLAN_COLUMNS
from genplan.formats.tables import write_csv
from genplan.planners import beam
from genplan.planners.beam import DecodeResult

GRIPPER = domain_file("gripper")


@pytest.fixture
def bench(tmp_path):
    """A two-problem benchmark folder laid out like results/problems/<benchmark>/gripper."""
    root = tmp_path / "problems" / "generated" / "gripper"
    (root / "interpolation").mkdir(parents=True)
    (root / "domain.pddl").write_text(GRIPPER.read_text())
    rows = []
    for balls in (1, 2):
        name = f"g{balls}"
        gripper_problem(root / "interpolation" / f"{name}.pddl", GRIPPER, balls)
        rows.append({"problem": name, "split": "interpolation", "file": f"interpolation/{name}.pddl",
                     "size": balls, "num_objects": 4 + balls, "seed": 0, "canonical": ""})
    (root / "manifest.csv").write_text(manifest.to_csv(rows))
    table = tmp_path / "plans.csv"
    plans = [{"problem": "g1", "config": "astar_lmcut", "status": "optimal", "plan_length": 3, "valid": "yes"},
             {"problem": "g2", "config": "astar_lmcut", "status": "optimal", "plan_length": 5, "valid": "yes"},
             {"problem": "g2", "config": "lama_first", "status": "satisficing", "plan_length": 7, "valid": "yes"}]
    write_csv(table, plans, list(PLAN_COLUMNS))
    return root, table


def _oracle_for(problem, **kw):
    return OracleModel(load(GRIPPER, problem)[1], **kw)


def test_evaluation_csv_has_one_val_checked_row_per_problem(bench, tmp_path, monkeypatch):
    root, table = bench
    real_decode = beam.decode

    def decode_with_oracle(model, task, mtask, cfg):  # an oracle needs its problem's state space
        return real_decode(OracleModel(mtask), task, mtask, cfg)

    monkeypatch.setattr(beam, "decode", decode_with_oracle)
    model = _oracle_for(root / "interpolation" / "g1.pddl")
    out = tmp_path / "eval" / "interpolation.beam3-pooled.csv"
    rows = evaluate_split("results/models/x/seed13/model.ckpt", root, "interpolation", table,
                                     "beam3-pooled", {}, out, model=model)
    with open(out, newline="") as fh:
        reader = csv.DictReader(fh)
        assert reader.fieldnames == evaluation_csv.COLUMNS
        written = list(reader)
    assert [r["problem"] for r in written] == ["g1", "g2"] and len(rows) == 2
    for r in written:
        assert r["solved"] == "yes" and r["val"] == "valid" and r["reason"] == "goal"
        assert (r["benchmark"], r["domain"], r["split"], r["seed"], r["strategy"], r["system"], r["variant"]) == (
            "generated", "gripper", "interpolation", "13", "beam3-pooled", "onehot_oracle", "delta")
        assert float(r["quality"]) == 1.0 and r["plan_length"] == r["best_known"]
        assert int(r["horizon"]) == 100 and float(r["time"]) >= 0 and int(r["steps"]) == int(r["plan_length"])
        assert int(r["model_calls"]) == int(r["steps"])  # one batched model call per beam step
        counters = json.loads(r["counters"])
        assert counters["states_expanded"] >= int(r["steps"]) and counters["embedded"] > int(r["steps"])
    assert evaluation_csv.read_evaluation(out)[0]["model"] == "oracle_delta"


def test_unsolved_problems_are_recorded_with_vals_verdict(bench, tmp_path, monkeypatch):
    root, table = bench
    real_decode = beam.decode

    def misguided(model, task, mtask, cfg):
        s0 = mtask.fluents(mtask.initial_state())
        moved = (s0 - {("at-robby", "rooma")}) | {("at-robby", "roomb")}
        return real_decode(OracleModel(mtask, misguide={s0: moved}), task, mtask, cfg)

    monkeypatch.setattr(beam, "decode", misguided)
    model = _oracle_for(root / "interpolation" / "g1.pddl")
    out = tmp_path / "interpolation.beam3-reference.csv"
    rows = evaluate_split("m.ckpt", root, "interpolation", table, "beam3-reference", {}, out,
                                     benchmark="generated", seed="14", model=model)
    assert all(r["solved"] == "no" and r["reason"] == "idle" for r in rows)
    assert all("Goal not satisfied" in r["val"] and r["plan_length"] == "" for r in rows)


def test_solve_exit_codes(bench, tmp_path, monkeypatch, capsys):
    root, _ = bench
    problem = root / "interpolation" / "g2.pddl"
    monkeypatch.setattr(solve_setup, "load_model", lambda checkpoint, domain: _oracle_for(problem))
    out = tmp_path / "g2.plan"
    assert cli.main(["solve", "--model", "m.ckpt", str(GRIPPER), str(problem), "--out", str(out)]) == 0
    assert "Plan valid (VAL): 5 actions" in capsys.readouterr().out and out.read_text().count("\n") == 6

    # an unsolved decoding (the reference beam idles): exit 1, no plan file
    s0 = frozenset({("at-robby", "rooma"), ("free", "left"), ("free", "right"), ("at", "ball1", "rooma"),
                    ("at", "ball2", "rooma")})
    moved = (s0 - {("at-robby", "rooma")}) | {("at-robby", "roomb")}
    monkeypatch.setattr(solve_setup, "load_model", lambda c, d: _oracle_for(problem, misguide={s0: moved}))
    out2 = tmp_path / "none.plan"
    assert cli.main(["solve", "--model", "m.ckpt", str(GRIPPER), str(problem), "--strategy", "beam3-reference",
                     "--out", str(out2)]) == 1
    assert "No plan" in capsys.readouterr().out and not out2.exists()

    # a plan the decoder believes in but VAL rejects: exit 1
    bogus = DecodeResult([("drop", "ball1", "roomb", "left")], True, 1, 0.0, 1, 1, 100, "goal")
    monkeypatch.setattr(beam, "decode", lambda *a, **k: bogus)
    assert cli.main(["solve", "--model", "m.ckpt", str(GRIPPER), str(problem), "--out", str(out2)]) == 1
    assert "INVALID" in capsys.readouterr().out and not out2.exists()


def test_solve_names_a_missing_checkpoint(bench, capsys):
    root, _ = bench
    code = cli.main(["solve", "--model", "nowhere/model.ckpt", str(GRIPPER), str(root / "interpolation" / "g1.pddl")])
    assert code == 1 and "nowhere/model.ckpt" in capsys.readouterr().err


def test_domain_keys_come_from_the_pddl_domain_name():
    assert domain_key(domain_file("visitall")) == "visitall"
    assert domain_key(GRIPPER) == "gripper"


# --- with real trained models (part A's training on the small Gripper data of test_features) ---
from conftest import run_cli  # noqa: E402
from test_features import gripper_data  # noqa: E402,F401  (fixture)


@pytest.fixture(scope="module")
def real_models(gripper_data, tmp_path_factory):  # noqa: F811
    from genplan.models.transition.train import train_model

    out = tmp_path_factory.mktemp("real-models")
    learners = {"wl_xgb_delta": {"n_estimators": 20, "max_depth": 3, "learning_rate": 0.3},
                "wl_lstm_state": {"epochs": 6, "batch_size": 2, "lr": 0.01, "checkpoint_every": 2}}
    models = {}
    for name, learner in learners.items():
        ckpt = out / name / "seed13" / "model.ckpt"
        train_model(name, "gripper", gripper_data["train"], gripper_data["val"],
                    {"learner": learner, "device": "cpu", "threads": 1}, 13, ckpt)
        models[name] = ckpt
    return models


@pytest.mark.parametrize("name", ["wl_xgb_delta", "wl_lstm_state"])
def test_solve_with_a_real_model_exits_0_only_for_a_val_valid_plan(real_models, gripper_data, tmp_path, capsys,  # noqa: F811
                                                                   name):
    """Both tiny models solve the 2-ball training problem with the default strategy (exit 0, a
    VAL-valid plan file); the XGBoost model does not solve the 6-ball problem (exit 1, no file)."""
    from genplan import val

    out = tmp_path / "plan"
    problem = gripper_data["files"][2]
    assert cli.main(["solve", "--model", str(real_models[name]), str(GRIPPER), str(problem), "--out", str(out)]) == 0
    assert "Plan valid (VAL)" in capsys.readouterr().out and val.validate(GRIPPER, problem, out).valid
    if name == "wl_xgb_delta":
        out6 = tmp_path / "plan6"
        assert cli.main(["solve", "--model", str(real_models[name]), str(GRIPPER), str(gripper_data["files"][6]),
                         "--strategy", "beam3-reference", "--out", str(out6)]) == 1
        assert "No plan" in capsys.readouterr().out and not out6.exists()


def test_solve_refuses_a_model_of_another_domain(real_models):
    blocks = domain_file("blocks")
    proc = run_cli("solve", "--model", real_models["wl_xgb_delta"], blocks, blocks)  # as a user runs it
    assert proc.returncode == 1 and "not 'blocks'" in proc.stderr and "Traceback" not in proc.stderr


# --- every plan stored beside the CSV, and `genplan validate --evaluation` ---

def _stored(path):
    import gzip

    with gzip.open(path, "rt") as fh:
        return json.load(fh)


def _restore(path, doc):
    import gzip

    path.write_bytes(gzip.compress(json.dumps(doc).encode(), mtime=0))


@pytest.fixture
def evaluated(bench, tmp_path, monkeypatch):
    """Two evaluations of the bench under the results root tmp_path, laid out as the workflow lays
    them out: one that solves both problems, one whose misguided beam idles (VAL: goal not satisfied)."""
    from genplan.paths import Layout

    root, table = bench
    real_decode = beam.decode
    lay = Layout(str(tmp_path))
    model = _oracle_for(root / "interpolation" / "g1.pddl")
    monkeypatch.setattr(beam, "decode", lambda m, task, mtask, cfg: real_decode(OracleModel(mtask), task, mtask, cfg))
    solved = lay.evaluation("generated", "gripper", "oracle_delta", 13, "interpolation", "beam3-pooled")
    evaluate_split("m.ckpt", root, "interpolation", table, "beam3-pooled", {}, solved, model=model)

    def misguided(m, task, mtask, cfg):
        s0 = mtask.fluents(mtask.initial_state())
        moved = (s0 - {("at-robby", "rooma")}) | {("at-robby", "roomb")}
        return real_decode(OracleModel(mtask, misguide={s0: moved}), task, mtask, cfg)

    monkeypatch.setattr(beam, "decode", misguided)
    idle = lay.evaluation("generated", "gripper", "oracle_delta", 13, "interpolation", "beam3-reference")
    evaluate_split("m.ckpt", root, "interpolation", table, "beam3-reference", {}, idle, model=model)
    return tmp_path, Path(solved), Path(idle)


def test_every_plan_found_is_stored_beside_the_csv_and_rechecks(evaluated, capsys):
    from genplan.formats import stored_plans

    root, solved, idle = evaluated
    doc = _stored(stored_plans.plans_path(solved))
    assert stored_plans.plans_path(solved).name == "interpolation.beam3-pooled.plans.json.gz"
    assert doc["benchmark_dir"] == "problems/generated/gripper" and doc["evaluation"] == solved.name
    rows = {r["problem"]: r for r in evaluation_csv.read_evaluation(solved)}
    assert set(doc["problems"]) == set(rows) == {"g1", "g2"}
    for name, entry in doc["problems"].items():
        assert entry["file"] == f"interpolation/{name}.pddl" and len(entry["sha256"]) == 64
        assert len(entry["plan"]) == int(rows[name]["plan_length"]) and entry["plan"][0].startswith("(")
    # the idle beam's plans are stored too, though VAL rejects them
    idle_doc = _stored(stored_plans.plans_path(idle))
    assert all(isinstance(e["plan"], list) for e in idle_doc["problems"].values())
    assert cli.main(["validate", "--evaluation", str(root / "evaluation")]) == 0
    out = capsys.readouterr().out
    assert f"{solved}: 2 rechecked, 2 agree, 0 disagree, 0 missing" in out
    assert f"{idle}: 2 rechecked, 2 agree, 0 disagree, 0 missing" in out


def test_a_tampered_plan_is_a_disagreement_naming_file_and_problem(evaluated, capsys):
    from genplan.formats import stored_plans

    root, solved, idle = evaluated
    plans = stored_plans.plans_path(solved)
    doc = _stored(plans)
    doc["problems"]["g2"]["plan"][0] = "(move rooma roomb)"  # robby leaves without the balls
    _restore(plans, doc)
    assert cli.main(["validate", "--evaluation", str(solved)]) == 1
    out = capsys.readouterr().out
    assert f"{solved}: 2 rechecked, 1 agree, 1 disagree, 0 missing" in out
    assert f"DISAGREE {solved}: g2: VAL now says" in out and "the CSV 'valid'" in out

    # an idle row whose stored plan now reaches the goal: VAL's verdict differs from the CSV's
    idle_plans = stored_plans.plans_path(idle)
    idle_doc = _stored(idle_plans)
    idle_doc["problems"]["g1"]["plan"] = _stored(plans)["problems"]["g1"]["plan"]
    _restore(idle_plans, idle_doc)
    assert cli.main(["validate", "--evaluation", str(idle)]) == 1
    assert f"DISAGREE {idle}: g1: VAL now says 'valid'" in capsys.readouterr().out


def test_plans_that_cannot_be_rechecked_fail_the_command(evaluated, bench, capsys):
    from genplan.formats import stored_plans

    root, solved, idle = evaluated
    problem = bench[0] / "interpolation" / "g1.pddl"
    problem.write_text(problem.read_text().replace("(:goal", "; edited\n(:goal"))
    assert cli.main(["validate", "--evaluation", str(solved)]) == 1
    out = capsys.readouterr().out
    assert f"MISSING {solved}: g1: problem file {problem} is not the evaluated one (SHA-256 differs)" in out
    stored_plans.plans_path(idle).unlink()
    assert cli.main(["validate", "--evaluation", str(idle)]) == 1
    assert f"{idle}: 0 rechecked, 0 agree, 0 disagree, 2 missing" in capsys.readouterr().out
    # a CSV copied out of its results root: the problems folder must be named
    copy = root / "elsewhere.csv"
    copy.write_text(solved.read_text())
    stored_plans.plans_path(copy).write_bytes(stored_plans.plans_path(solved).read_bytes())
    assert cli.main(["validate", "--evaluation", str(copy)]) == 1
    assert "--problems" in capsys.readouterr().err
    assert cli.main(["validate", "--evaluation", str(copy), "--problems", str(bench[0])]) == 1  # g1 edited
    assert "1 agree, 0 disagree, 1 missing" in capsys.readouterr().out


def test_csv_and_plans_are_written_together_or_not_at_all(bench, tmp_path, monkeypatch):
    root, table = bench
    real_decode = beam.decode
    monkeypatch.setattr(beam, "decode", lambda m, task, mtask, cfg: real_decode(OracleModel(mtask), task, mtask, cfg))
    out, blocked = tmp_path / "e" / "interpolation.beam3-pooled.csv", tmp_path / "e" / "plans.json.gz"
    blocked.mkdir(parents=True)  # the stored plans cannot be renamed into place
    with pytest.raises(OSError):
        evaluate_split("m.ckpt", root, "interpolation", table, "beam3-pooled", {}, out,
                                  model=_oracle_for(root / "interpolation" / "g1.pddl"), out_plans=blocked)
    assert sorted(p.name for p in out.parent.iterdir()) == ["plans.json.gz"] and not any(blocked.iterdir())
