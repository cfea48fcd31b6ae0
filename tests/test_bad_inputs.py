"""Bad inputs to the data commands: each gets ONE clear message naming the file or the
parameter at fault, a non-zero exit, no traceback, no hang, and nothing left in the output place.
One case a bad input; the inputs are made once per module, small (Gripper, 1-2 balls)."""

from __future__ import annotations

import csv
import gzip
import json
import shutil

import pytest
from conftest import REPO, run_cli
from test_features import gripper_problem, trajectory_record, write_split

from genplan import val
from genplan.errors import GenplanError
from genplan.pddl_io import plan_to_text
from genplan.stages.importer import SPLIT_DIRS
from genplan.stages.problems import generate_benchmark

pytestmark = pytest.mark.timeout(60)  # a hang fails its case (pytest-timeout kills the command too)

GRIPPER_PLAN = [("pick", "ball1", "rooma", "left"), ("move", "rooma", "roomb"), ("drop", "ball1", "roomb", "left")]
XGB = {"family": "transition", "encoding": "wl", "learner": "xgb", "mode": "delta", "train": {"n_estimators": 3}}


def _gen(domain, params):
    return ["generate", "--domain", domain, "--params", json.dumps(params), "--seed", "0", "--out", "{O}/bench"]


def _blocks(train, per_size=1, **extra):
    return {"sizes": {"train": train}, "per_size": {"train": per_size}, **extra}


def _train(traj, domain="gripper", val="{W}/traj/validation.json.gz"):
    return ["train", "--model", "m", "--settings", json.dumps(XGB), "--domain", domain, "--train", traj,
            "--validation", val, "--seed", "1", "--device", "cpu", "--out", "{O}/model.ckpt"]


EVALUATE = ["evaluate", "--model", "{W}/model.ckpt", "--benchmark-dir", "{W}/bench", "--split", "train",
            "--plans-table", "{W}/blocks-plans.csv", "--out", "{O}/train.csv"]
VALIDATE = ["validate", "{W}/domain.pddl", "{W}/bench/train/gripper-n1.pddl", "{W}/ok.plan"]
TRAJ = ["trajectories", "--benchmark-dir", "{W}/bench", "--split", "train", "--plans-dir", "{W}/plans",
        "--plans-table", "{W}/plans.csv", "--out", "{O}/train.json.gz"]
SOLVE = ["solve", "--model", "{W}/model.ckpt", "{W}/domain.pddl", "{W}/bench/train/gripper-n1.pddl", "--out", "{O}/p"]
PLANGPT = json.dumps({"family": "plangpt", "data": "plangpt", "train": {"epochs": 1}})
IMPORT = ["import", "--domain", "gripper", "--source", "{W}/release", "--no-verify", "--out", "{O}/paper"]

# case -> (command, exit status, what the message must say); {W}: the inputs, {O}: the output place
CASES = {
    "validate: malformed domain": (
        [VALIDATE[0], "{W}/broken.pddl", *VALIDATE[2:]], 1, ["broken.pddl", "malformed PDDL domain"]),
    "validate: empty domain": ([VALIDATE[0], "{W}/empty.pddl", *VALIDATE[2:]], 1, ["empty.pddl", "empty PDDL domain"]),
    "validate: empty problem": (
        [*VALIDATE[:2], "{W}/empty.pddl", VALIDATE[3]], 1, ["empty.pddl", "empty PDDL problem"]),
    "validate: malformed problem": (
        [*VALIDATE[:2], "{W}/broken.pddl", VALIDATE[3]], 1, ["broken.pddl", "malformed PDDL problem"]),
    "validate: problem of another domain": (
        [*VALIDATE[:2], "{W}/blocks-problem.pddl", VALIDATE[3]], 1,
        ["blocks-problem.pddl", "problem is for domain 'blocks', not 'gripper-strips'"]),
    "validate: non-UTF-8 problem": (
        [*VALIDATE[:2], "{W}/latin1.pddl", VALIDATE[3]], 1, ["latin1.pddl", "PDDL problem file is not UTF-8 text"]),
    "validate: non-UTF-8 plan": ([*VALIDATE[:3], "{W}/latin1.plan"], 1, ["latin1.plan", "plan file is not UTF-8 text"]),
    "validate: missing plan": ([*VALIDATE[:3], "{W}/none.plan"], 1, ["none.plan", "plan file not found"]),
    "validate: a junk line after a valid prefix": (
        [*VALIDATE[:3], "{W}/junk.plan"], 1,
        ["junk.plan", "line 4: not an action `(name object ...)` nor a `;` comment: 'this is not an action'"]),
    "solve: a junk line in the reference plan": (
        [*SOLVE[:5], "--reference-plan", "{W}/junk.plan", *SOLVE[5:]], 1,
        ["junk.plan", "line 4: not an action"]),
    "trajectories: non-UTF-8 plans table": (
        [*TRAJ[:8], "{W}/latin1.csv", *TRAJ[9:]], 1, ["latin1.csv", "plans table is not UTF-8 text"]),
    "trajectories: another domain's plans table": (
        [*TRAJ[:8], "{W}/blocks-plans.csv", *TRAJ[9:]], 1,
        ["blocks-plans.csv", "not this split's plans table", "probBLOCKS-4-0"]),
    "trajectories: malformed domain in the benchmark": (
        [TRAJ[0], TRAJ[1], "{W}/badbench", *TRAJ[3:]], 1, ["badbench/domain.pddl", "malformed PDDL domain"]),
    "train: non-UTF-8 trajectories": (_train("{W}/traj/latin1.json.gz"), 1, ["latin1.json.gz", "not UTF-8 text"]),
    "train: trajectories not gzip": (_train("{W}/traj/plain.json.gz"), 1, ["plain.json.gz", "not a trajectories file"]),
    "train: unknown domain key": (
        _train("{W}/traj/train.json.gz", "chess"), 1, ["train.json.gz", "--domain 'chess'", "'gripper'"]),
    "train: another domain's key": (
        _train("{W}/traj/train.json.gz", "blocks"), 1, ["train.json.gz", "--domain 'blocks'", "'gripper'"]),
    "train: format-1 file (the domain as a path only)": (
        _train("{W}/traj/v1.json.gz"), 1, ["v1.json.gz", "unknown trajectories format 'genplan-trajectories/1'"]),
    "import --no-verify: malformed problem": (
        IMPORT, 1, ["release/gripper/train/gripper-n1.pddl", "malformed PDDL problem"]),
    "generate: size 1e30": (_gen("blocks", _blocks([10**30])), 1, ["sizes.train", str(10**30)]),
    "generate: size 1e30 (float)": (_gen("blocks", _blocks([1e30])), 1, ["sizes.train", "1e+30"]),
    "generate: huge size range": (_gen("gripper", _blocks("1-100000000")), 1, ["sizes.train", "1-100000000"]),
    "generate: per_size 1e12": (_gen("blocks", _blocks([4], 10**12)), 1, ["per_size.train", str(10**12)]),
    "generate: sizes x per_size too many": (
        _gen("blocks", _blocks("2-100", 2000)), 1, ["sizes.train x per_size.train", "198000 problems"]),
    "generate: logistics cities 1e11": (
        _gen("logistics", _blocks([2], 1, cities=10**11)), 1,
        ["cities: 100000000000 is greater than the maximum of 50"]),
    "generate: visitall max_side too large": (
        _gen("visitall", _blocks([4], 1, max_side=1000)), 1, ["max_side: 1000 is greater than the maximum of 30"]),
    "report: missing results folder": (
        ["report", "state-centric", "--results", "{W}/no-results", "--out-dir", "{O}"], 1,
        ["no-results", "--results: no such results folder"]),
    "report: a results folder without evaluations": (
        ["report", "state-centric", "--results", "{W}/plans", "--out-dir", "{O}"], 1,
        ["plans", "--results: no evaluation CSVs", "nothing to report"]),
    "report leaderboard: a results folder without evaluations": (
        ["report", "leaderboard", "--results", "{W}/plans", "--out-dir", "{O}"], 1,
        ["plans", "--results: no evaluation CSVs"]),
    "plan-files: --time-limit inf": (
        ["plan-files", "{W}/domain.pddl", "{W}/bench/train/gripper-n1.pddl", "--time-limit", "inf", "--out-dir",
         "{O}/p"], 1, ["--time-limit must be a number of seconds from 1", "up to 604800 (a week), not inf"]),
    "plan-files: --time-limit 1e9": (
        ["plan-files", "{W}/domain.pddl", "{W}/bench/train/gripper-n1.pddl", "--time-limit", "1e9", "--out-dir",
         "{O}/p"], 1, ["--time-limit must be a number of seconds", "not 1000000000.0"]),
    "plan: a NaN time limit in --params": (
        ["plan", "--benchmark-dir", "{W}/bench", "--split", "train", "--params",
         '{"optimal": {"time_limit": NaN}, "fallback": {}, "lama": {}, "memory_limit_mb": 1024}',
         "--out-dir", "{O}/p", "--out-table", "{O}/t.csv"], 1, ["optimal.time_limit: nan is not a finite number"]),
    "solve: a NaN search time limit in --settings": (
        [*SOLVE, "--settings", '{"search": {"time_limit": NaN}}'], 1,
        ["search.time_limit: nan is not a finite number"]),
    "validate --evaluation: a stored-plans file with flipped bytes": (
        ["validate", "--evaluation", "{W}/evaluation/extrapolation.greedy-applicable.csv", "--plans",
         "{W}/evaluation/flipped.plans.json.gz"],
        1, ["flipped.plans.json.gz", "not a stored-plans file (gzip JSON)"]),
    "evaluate: another domain's plans table": (
        EVALUATE, 1, ["blocks-plans.csv", "not this split's plans table", "probBLOCKS-4-0"]),
    "evaluate: an emptied problem in the benchmark": (
        [EVALUATE[0], *EVALUATE[1:4], "{W}/emptied", *EVALUATE[5:8], "{W}/plans.csv", *EVALUATE[9:]], 1,
        ["emptied/train/gripper-n1.pddl: empty PDDL problem", "1 problem(s) of split 'train' malformed or "
         "unreadable, nothing evaluated"]),
    "evaluate: a strategy of another family": (
        [*EVALUATE[:8], "{W}/plans.csv", *EVALUATE[9:], "--strategy", "greedy"], 2,
        ["strategy='greedy' for a transition model. Must be of the forms "
         "['beam3-pooled', 'beam3-reference', 'beam3-pooled-nostatics']"]),
    "evaluate: unmask-T100000000": (
        [*EVALUATE[:8], "{W}/plans.csv", *EVALUATE[9:], "--strategy", "unmask-T100000000"], 2,
        ["unmask-T100000000", "steps 100000000 is greater"]),
    "solve: multibeam100000": (
        ["solve", "--model", "{W}/model.ckpt", "{W}/domain.pddl", "{W}/bench/train/gripper-n1.pddl", "--strategy",
         "multibeam100000", "--out", "{O}/p.plan"], 2, ["multibeam100000", "beams 100000 is greater than the maximum"]),
    "solve: topp0.9x100000000": (
        ["solve", "--model", "{W}/model.ckpt", "{W}/domain.pddl", "{W}/bench/train/gripper-n1.pddl", "--strategy",
         "topp0.9x100000000"], 2, ["topp0.9x100000000", "samples 100000000 is greater than the maximum of 1000"]),
    "generate: unknown key": (_gen("logistics", _blocks([2], 1, trucks=3)), 1,
                              ["unknown", "['trucks']"]),
    "train: PlanGPT validation data of another domain": (
        [*_train("{W}/traj/train.json.gz", val="{W}/traj/other-domain.json.gz")[:4], PLANGPT,
         *_train("{W}/traj/train.json.gz", val="{W}/traj/other-domain.json.gz")[5:]], 1,
        ["other-domain.json.gz", "predicate 'on'", "training domain 'gripper-strips'"]),
    "solve: --configfile without the model": (
        [*SOLVE, "--configfile", "{W}/other-models.yaml"], 1,
        ["other-models.yaml", "the checkpoint's model 'm' is not among the configuration's models ['x']"]),
}


def _latin1(path, text):
    path.write_bytes(text.encode("latin-1"))
    return path


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    w = tmp_path_factory.mktemp("inputs")
    generate_benchmark("gripper", {"sizes": {s: [1] if s == "train" else [2] for s in SPLIT_DIRS},
                                   "per_size": {s: 1 for s in SPLIT_DIRS}}, 0, w / "bench")
    shutil.copyfile(w / "bench" / "domain.pddl", w / "domain.pddl")
    (w / "ok.plan").write_text(plan_to_text(GRIPPER_PLAN))
    committed = REPO / "results/evaluation/paper/blocks/plangpt/seed13"
    (w / "evaluation").mkdir()
    shutil.copyfile(committed / "extrapolation.greedy-applicable.csv",
                    w / "evaluation" / "extrapolation.greedy-applicable.csv")
    flipped = bytearray((committed / "extrapolation.greedy-applicable.plans.json.gz").read_bytes())
    flipped[20] ^= 0xFF  # two bytes flipped: zlib.error, a traceback before
    flipped[21] ^= 0xFF
    (w / "evaluation" / "flipped.plans.json.gz").write_bytes(bytes(flipped))
    (w / "junk.plan").write_text(plan_to_text(GRIPPER_PLAN).replace("; cost", "this is not an action\n"
                                                                     "(move roomb rooma)\n; cost"))
    (w / "empty.pddl").write_text("  \n")
    (w / "broken.pddl").write_text("(define (problem p) (:domain gripper-strips")
    problem = (w / "bench" / "train" / "gripper-n1.pddl").read_text()
    (w / "blocks-problem.pddl").write_text(problem.replace("gripper-strips", "blocks"))
    _latin1(w / "latin1.pddl", problem.replace("rooma", "rooma\u00e9", 1))
    _latin1(w / "latin1.plan", "(pick ball1 rooma left) ; caf\u00e9\n")
    _latin1(w / "latin1.csv", "problem,config,status\ngripper-n1,astar_lmcut,r\u00e9ussi\n")
    (w / "plans").mkdir()
    (w / "plans.csv").write_text("problem,config,status\n")
    shutil.copytree(w / "bench", w / "badbench")
    shutil.copytree(w / "bench", w / "emptied")
    (w / "emptied" / "train" / "gripper-n1.pddl").write_text("")
    (w / "badbench" / "domain.pddl").write_text("(define (domain d) (:predicates (p ?x)")
    release = w / "release" / "gripper"  # the papers' layout, one malformed problem
    for split, folder in SPLIT_DIRS.items():
        shutil.copytree(w / "bench" / split, release / folder)
    shutil.copyfile(w / "domain.pddl", release / "domain.pddl")
    (release / "train" / "gripper-n1.pddl").write_text("(define (problem broken")
    traj = w / "traj"  # trajectories: 1-2 balls for training, 3 for validation
    traj.mkdir()
    records = {n: trajectory_record(gripper_problem(traj, n)) for n in (1, 2, 3)}
    write_split(traj / "train.json.gz", [records[1], records[2]])
    write_split(traj / "validation.json.gz", [records[3]])
    (traj / "plain.json.gz").write_text('{"format": "genplan-trajectories/2"}')
    with gzip.open(traj / "latin1.json.gz", "wb") as fh:
        fh.write('{"format": "caf\u00e9"}'.encode("latin-1"))
    with gzip.open(traj / "v1.json.gz", "wt") as fh:  # format 1: the domain as a path only
        json.dump({"format": "genplan-trajectories/1", "split": "train", "domain_file": "runs/domain.pddl",
                   "problems": [records[1], records[2]], "without_plan": []}, fh)
    other = json.loads(json.dumps(records[3]).replace('"(at ', '"(on '))  # Blocksworld's predicate in the states
    write_split(traj / "other-domain.json.gz", [other])
    (w / "other-models.yaml").write_text("models: {x: {family: transition, decode: {horizon_min: 1}}}\n")
    (w / "blocks-plans.csv").write_text("problem,config,status,plan_length,time,valid,reason,plan_file\n"
                                        "probBLOCKS-4-0,astar_lmcut,optimal,6,0.1,yes,,probBLOCKS-4-0.plan\n")
    train = [a.replace("{O}/model.ckpt", str(w / "model.ckpt")).replace("{W}", str(w))
             for a in _train("{W}/traj/train.json.gz")]
    assert run_cli(*train).returncode == 0  # a real model: the evaluate and solve cases load it
    return w


@pytest.mark.parametrize("case", list(CASES))
def test_bad_input_gets_one_message_and_leaves_nothing(case, inputs, tmp_path):
    args, code, said = CASES[case]
    out = tmp_path / "out"
    out.mkdir()
    res = run_cli(*(a.replace("{W}", str(inputs)).replace("{O}", str(out)) for a in args), cwd=tmp_path)
    assert res.returncode == code, (res.returncode, res.stderr)
    assert "Traceback" not in res.stderr, res.stderr
    errors = [line for line in res.stderr.splitlines() if line.startswith("genplan: error:")]
    assert len(errors) == 1, res.stderr
    for text in said:
        assert text in errors[0], errors[0]
    assert ".tmp-" not in errors[0], "the user's file is named, not a temporary copy"
    assert list(out.iterdir()) == [], list(out.iterdir())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


@pytest.mark.parametrize("problem, said", [("empty.pddl", "empty PDDL problem"),
                                           ("blocks-problem.pddl", "problem is for domain 'blocks'")])
def test_val_callers_are_protected_too(inputs, problem, said):
    """stages/plans and planners/solve call val.validate directly: it names the problem itself."""
    with pytest.raises(GenplanError, match=said) as err:
        val.validate(inputs / "domain.pddl", inputs / problem, inputs / "ok.plan")
    assert err.value.path == inputs / problem


def test_val_is_never_shown_a_plan_with_junk(inputs):
    """Every caller of val.validate (plan, plan-files, solve, evaluate, validate --evaluation) reads
    the whole plan first: VAL would stop at the junk line and call the 3-step prefix valid."""
    with pytest.raises(GenplanError, match="line 4: not an action") as err:
        val.validate(inputs / "domain.pddl", inputs / "bench" / "train" / "gripper-n1.pddl", inputs / "junk.plan")
    assert err.value.path == inputs / "junk.plan"


def test_train_from_another_directory(inputs, tmp_path):
    """A trajectories file stands alone (it stores its domain): training does not depend on the
    working directory."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = tmp_path / "model.ckpt"
    args = [a.replace("{O}/model.ckpt", str(out)) for a in _train(str(inputs / "traj" / "train.json.gz"),
                                                                  val=str(inputs / "traj" / "validation.json.gz"))]
    res = run_cli(*args, cwd=elsewhere)
    assert res.returncode == 0, res.stderr
    assert out.is_file() and not any(elsewhere.iterdir())


@pytest.mark.parametrize("goal", ["(and)", "(and (at ball1 rooma) (room roomb))"])
def test_a_goal_true_initially_gets_the_empty_plan(inputs, tmp_path, goal):
    """An empty goal, or one already true, is solved by the empty plan (exit 0, VAL-valid) by every
    planner (genplan.planners.solve checks it before any planner runs), and the evaluation counts it honestly."""
    bench = tmp_path / "bench"
    shutil.copytree(inputs / "bench", bench)
    problem = bench / "train" / "gripper-n1.pddl"
    problem.write_text(problem.read_text().replace("(:goal (at ball1 roomb))", f"(:goal {goal})"))
    res = run_cli("solve", "--model", inputs / "model.ckpt", bench / "domain.pddl", problem, "--out", tmp_path / "p")
    assert res.returncode == 0 and res.stdout.startswith("Plan valid (VAL): 0 actions"), res.stdout + res.stderr
    assert (tmp_path / "p").read_text() == "; cost = 0 (unit cost)\n"
    assert "from the transition family's defaults for ['decode']" in res.stderr  # no --configfile: said so
    planner = {"memory_limit_mb": 2048, "optimal": {"time_limit": 10}, "fallback": {"enabled": False},
               "lama": {"enabled": False}}
    assert run_cli("plan", "--benchmark-dir", bench, "--split", "train", "--params", json.dumps(planner), "--out-dir",
                   tmp_path / "plans" / "train", "--out-table", tmp_path / "plans" / "train.csv").returncode == 0
    out = tmp_path / "train.csv"
    res = run_cli("evaluate", "--model", inputs / "model.ckpt", "--benchmark-dir", bench, "--split", "train",
                  "--plans-table", tmp_path / "plans" / "train.csv", "--out", out)
    assert res.returncode == 0, res.stderr
    rows = list(csv.DictReader(out.open()))
    assert [(r["problem"], r["solved"], r["val"], r["plan_length"], r["best_known"], r["quality"]) for r in rows] == [
        ("gripper-n1", "yes", "valid", "0", "0", "1.0000")]
    assert rows[0]["strategy"] == "beam3-pooled" and json.loads(rows[0]["counters"])["goal_true_initially"] == 1


def test_solve_plans_with_the_model_entry_of_its_configfile(inputs, tmp_path):
    """`solve` plans with the planning settings the workflow's evaluations used (the model
    entry of --configfile, overlays merged after their base), --settings overriding them key by key;
    a log line says where they came from."""
    base, overlay = tmp_path / "base.yaml", tmp_path / "overlay.yaml"
    base.write_text("models: {m: {family: transition, decode: {horizon_min: 1, horizon_per_object: 5}}}\n")
    overlay.write_text("models: {m: {decode: {horizon_per_object: 0}}}\n")
    solve = [a.replace("{W}", str(inputs)).replace("{O}", str(tmp_path)) for a in SOLVE]
    res = run_cli(*solve, "--configfile", base, "--configfile", overlay)
    assert res.returncode == 1 and "horizon 1" in res.stdout, res.stdout + res.stderr  # 3 steps needed
    assert '{"decode": {"horizon_min": 1, "horizon_per_object": 0}} from model \'m\' of' in res.stderr
    assert not (tmp_path / "p").exists()
    res = run_cli(*solve, "--configfile", base, "--configfile", overlay, "--settings", '{"decode": {"horizon_min": 3}}')
    assert res.returncode == 0 and "horizon 3" in res.stdout, res.stdout + res.stderr
    assert "overridden by --settings" in res.stderr


def test_the_domain_cache_is_private_and_checked(inputs, tmp_path, monkeypatch):
    """The cache of domain copies is this user's folder (mode 0700, another user's never
    used), and a copy whose content is not the text it is named by is rewritten, not trusted."""
    import hashlib
    import os
    import tempfile

    from genplan.datasets.domain_text import domain_of_text

    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", None)  # gettempdir() reads TMPDIR again
    text = (inputs / "domain.pddl").read_text()
    folder = tmp_path / f"genplan-domains-{os.getuid()}"
    copy = folder / f"{hashlib.sha256(text.encode()).hexdigest()[:20]}.pddl"
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    copy.write_text(text.replace("gripper-strips", "blocks"))  # damaged (or planted) under the right name
    assert domain_of_text(text).name == "gripper-strips"
    assert copy.read_text() == text and folder.stat().st_mode & 0o777 == 0o700
    shutil.rmtree(folder)
    folder.write_text("")  # not a folder of this user's copies: named, never used
    with pytest.raises(GenplanError, match="not a folder of this user") as err:
        domain_of_text(text)
    assert err.value.path == folder


def test_only_the_newest_set_aside_partial_states_are_kept(tmp_path, caplog):
    """A model folder keeps the KEEP_STALE newest `<name>.stale-*` partial states, not all."""
    from genplan.training.partial_state import KEEP_STALE, set_aside

    partial = tmp_path / "model.ckpt.partial"
    old = [tmp_path / f"model.ckpt.partial.stale-2026010{d}T000000Z" for d in range(1, 6)]
    for path in old:
        path.write_text("old")
    partial.write_text("another job's")
    new = set_aside(partial, "belongs to another job")
    kept = sorted(p.name for p in tmp_path.iterdir())
    assert KEEP_STALE == 3 and kept == sorted([new.name, old[-1].name, old[-2].name]), kept
    assert sum("only the 3 newest set-aside states" in r.message for r in caplog.records) == 3


@pytest.mark.parametrize("value, said", [(".inf", "planner.optimal.time_limit: inf is not a finite number"),
                                         (".nan", "planner.optimal.time_limit: nan is not a finite number"),
                                         ("1000000000.0", "planner.optimal.time_limit: 1000000000.0 is greater "
                                                          "than the maximum of 604800")])
def test_a_time_limit_that_is_no_number_fails_the_configuration_check(value, said):
    """`.inf` and `.nan` passed `snakemake -n` and crashed the job."""
    import yaml

    from genplan.configuration import faults

    config = yaml.safe_load((REPO / "config.yaml").read_text())
    config["planner"]["optimal"]["time_limit"] = yaml.safe_load(value)
    assert said in faults(config, REPO / "workflow/schemas/config.schema.yaml")
