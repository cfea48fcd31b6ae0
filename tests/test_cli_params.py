"""Every command checks its JSON parameters against the workflow's config schema before doing any
work: one message naming the parameter, exit 1 (2 for an unknown name, as for every registry), no
traceback, nothing written."""

from __future__ import annotations

import json

import pytest
from conftest import run_cli

PLANNER = {"memory_limit_mb": 2048, "optimal": {"time_limit": 5}, "fallback": {"enabled": True, "time_limit": 5},
           "lama": {"enabled": True, "time_limit": 5}}
MODEL = {"family": "transition", "encoding": "wl", "learner": "xgb", "mode": "delta"}

CASES = {  # command arguments (OUT is the output path), what the message must name
    "plan without limits": (["plan", "--benchmark-dir", "B", "--split", "train", "--params", {},
                             "--out-dir", "OUT", "--out-table", "OUT.csv"], "'optimal' is a required property"),
    "plan with a huge memory limit": (["plan", "--benchmark-dir", "B", "--split", "train",
                                       "--params", {**PLANNER, "memory_limit_mb": 1e20}, "--out-dir", "OUT",
                                       "--out-table", "OUT.csv"], "memory_limit_mb: 1e+20 is greater than the maximum"),
    "plan with a misspelt limit": (["plan", "--benchmark-dir", "B", "--split", "train",
                                    "--params", {**PLANNER, "optimal": {"time_limt": 5}}, "--out-dir", "OUT",
                                    "--out-table", "OUT.csv"], "optimal: unknown key(s) ['time_limt']"),
    "generate with a negative count": (["generate", "--domain", "blocks", "--params",
                                        {"sizes": {"train": [4]}, "per_size": {"train": -1}}, "--seed", "0",
                                        "--out", "OUT"], "per_size.train: -1 is less than the minimum of 0"),
    "train with negative rounds": (["train", "--model", "m", "--settings", {**MODEL, "train": {"n_estimators": -3}},
                                    "--domain", "gripper", "--train", "t.json.gz", "--validation", "v.json.gz",
                                    "--seed", "1", "--out", "OUT"], "train.n_estimators: -3 is less than the minimum of 1"),
    "train with a million WL iterations": (["train", "--model", "m", "--settings",
                                            {**MODEL, "encoder": {"iterations": 1000000}}, "--domain", "gripper",
                                            "--train", "t.json.gz", "--validation", "v.json.gz", "--seed", "1",
                                            "--out", "OUT"], "encoder.iterations: 1000000 is greater than the maximum"),
    "train with rounds written as a float": (["train", "--model", "m", "--settings",
                                             {**MODEL, "train": {"n_estimators": 5.0}}, "--domain", "gripper",
                                             "--train", "t.json.gz", "--validation", "v.json.gz", "--seed", "1",
                                             "--out", "OUT"], "train.n_estimators: 5.0 is not of type 'integer'"),
    "generate with a count of 1e12": (["generate", "--domain", "blocks", "--params",
                                       {"sizes": {"train": [4]}, "per_size": {"train": 1e12}}, "--seed", "0",
                                       "--out", "OUT"], "per_size.train: 1000000000000.0 is not of type 'integer'"),
    "train with an unknown learner option": (["train", "--model", "m", "--settings",
                                              {**MODEL, "train": {"rounds": 3}}, "--domain", "gripper", "--train",
                                              "t.json.gz", "--validation", "v.json.gz", "--seed", "1", "--out", "OUT"],
                                             "train: unknown key(s) ['rounds']"),
    "evaluate with an old beam setting": (["evaluate", "--model", "m.ckpt", "--benchmark-dir", "B", "--split",
                                           "interpolation", "--plans-table", "p.csv", "--settings",
                                           {"decode": {"beam": "abc"}}, "--out", "OUT"], "decode: unknown key(s) ['beam']"),
    # a strategy number past its bound is named before the model loads (a name of no form waits for the model:
    # its family's forms are listed, tests/test_bad_inputs.py)
    "solve with unmask-T100000000": (["solve", "--model", "m.ckpt", "d.pddl", "p.pddl", "--strategy",
                                      "unmask-T100000000"], "steps 100000000 is greater than the maximum of 1000", 2),
    "evaluate with beam1000-pooled": (["evaluate", "--model", "m.ckpt", "--benchmark-dir", "B", "--split",
                                       "interpolation", "--plans-table", "p.csv", "--strategy", "beam1000-pooled",
                                       "--out", "OUT"], "width 1000 is greater than the maximum of 100", 2),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_parameters_get_one_message_and_no_output(case, tmp_path):
    args, message, *code = CASES[case]
    out = tmp_path / "out"
    argv = [json.dumps(a) if isinstance(a, dict) else str(a).replace("OUT", str(out)) for a in args]
    res = run_cli(*argv, cwd=tmp_path)
    assert res.returncode == (code[0] if code else 1), res.stderr
    assert message in res.stderr and "Traceback" not in res.stderr, res.stderr
    assert not any(tmp_path.iterdir()), list(tmp_path.iterdir())
