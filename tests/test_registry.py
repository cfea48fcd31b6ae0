"""The model-family seams: strategy names, the family registry and its config checks, the
checkpoint envelope (other formats and versions refused), a planner over a model held in
memory, the results layout and the `genplan train` command for a named model."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
import torch
import yaml
from conftest import REPO, run_cli
from test_features import DOMAIN, gripper_data  # noqa: F401  (fixture)
from transition_doubles import OracleModel, gripper_problem, load

from genplan import checkpoint, paths, registry
from genplan.errors import GenplanError
from genplan.planners import strategies
from genplan.planners.base import Problem
from genplan.planners.solve import solve_and_validate


def test_strategy_names_read_as_their_parameters():
    s = strategies.parse("beam3-reference-nostatics")
    assert (s.kind, s["width"], s["beam"], s["statics"]) == ("beam", 3, "reference", False)
    assert strategies.beam_mode(s) == "reference-nostatics"
    assert strategies.parse("topp0.9x10").params == {"p": 0.9, "samples": 10}
    assert strategies.parse("multibeam10")["beams"] == 10 and strategies.parse("unmask-T20")["steps"] == 20
    for bad in ("beam0-pooled", "beam3-greedy", "beam3", "topp2x3", "topp0.0x3", "topp.9x10", "unmask-20", ""):
        with pytest.raises(ValueError, match="Unknown value strategy"):
            strategies.parse(bad)


def _entry(**kw):
    entry = {"family": "transition", "encoding": "wl", "learner": "xgb", "mode": "delta", "seeds": [13],
             "strategies": ["beam3-pooled"], "encoder": {}, "train": {}, "decode": {}}
    return {**entry, **kw}


def test_the_registry_refuses_what_a_family_does_not_offer():
    assert registry.check_models({"m": _entry()}) == []
    assert registry.family("transition").trains_from == ("trajectories",)
    problems = registry.check_models({
        "a": _entry(family="no_such_family"),
        "b": _entry(strategies=["greedy"]),
        "c": _entry(encoding="fsf", strategies=["beam3-pooled-nostatics"]),
        "d": _entry(strategies=["beam-3"]),
    })
    assert len(problems) == 4
    assert "models.a: Unknown value family='no_such_family'" in problems[0]
    assert "models.b.strategies: 'greedy' is a greedy strategy; family transition offers ['beam']" in problems[1]
    assert problems[2].startswith("models.c: strategy 'beam3-pooled-nostatics' drops static atoms")
    assert "Unknown value strategy='beam-3'" in problems[3]


def test_families_declare_what_never_decides_their_weights():
    entry = _entry(decode={"horizon_min": 5}, strategy_splits={}, domains=["blocks"])
    assert registry.weight_settings(entry) == {"family": "transition", "encoding": "wl", "learner": "xgb",
                                               "mode": "delta", "encoder": {}, "train": {}}
    assert registry.planning_settings(entry) == {"decode": {"horizon_min": 5}}
    for fam in registry.FAMILIES.values():  # each planning key is a setting of its entry's schema
        assert set(fam.planning_keys) <= set(fam.schema()[fam.name]["properties"]), fam.name


def test_domain_settings_replace_an_entrys_keys_on_their_domain_only():
    """`domain_settings` (paper-cpu.yaml: SymT's recipe on Blocksworld and Gripper): on a named domain
    its keys replace the entry's, whole; elsewhere the entry stands; the schema refuses a scheduling
    key but `seeds` or a misspelt one inside, and the checks a domain the model or the config does not run."""
    from genplan.configuration import benchmark_faults, faults

    entry = _entry(domain_settings={"gripper": {"train": {"epochs": 3}, "decode": {"horizon_min": 7}}})
    assert registry.entry_for(entry, "blocks") == {k: v for k, v in entry.items() if k != "domain_settings"}
    on = registry.entry_for(entry, "gripper")
    assert on["train"] == {"epochs": 3} and on["decode"] == {"horizon_min": 7} and "domain_settings" not in on
    assert registry.weight_settings(entry) == registry.weight_settings(registry.entry_for(entry, "blocks"))
    assert registry.planning_settings(on) == {"decode": {"horizon_min": 7}}
    assert registry.check_models({"m": entry}) == []
    assert registry.check_models({"m": {**entry, "domains": ["blocks"]}}) == [
        "models.m.domain_settings: 'gripper' is not among the model's domains ['blocks']"]
    lines = registry.check_models({"m": _entry(strategies=["beam3-pooled-nostatics"],
                                               domain_settings={"gripper": {"encoding": "fsf"}})})
    assert len(lines) == 1 and lines[0].startswith(
        "models.m.domain_settings.gripper: strategy 'beam3-pooled-nostatics' drops static atoms"), lines
    schema_path = REPO / "workflow" / "schemas" / "config.schema.yaml"
    config = yaml.safe_load((REPO / "workflow" / "configs" / "paper-cpu.yaml").read_text())
    assert faults(config, schema_path) == []
    config["models"] = {"symt_e": copy.deepcopy(config["models"]["symt_e"])}  # the twin shares its YAML anchor
    config["models"]["symt_e"]["domain_settings"]["gripper"] = {"seeds": [1], "trian": {}, "strategies": []}
    lines = faults(config, schema_path)
    assert lines == [lines[0]] and lines[0].startswith("models.symt_e.domain_settings.gripper: unknown key(s) "
                                                       "['strategies', 'trian']; allowed: ['architecture'"), lines
    # seeds, alone of the scheduling keys, may differ per domain (paper-cpu.yaml: three on Gripper)
    config["models"]["symt_e"]["domain_settings"]["gripper"] = {"seeds": [1, 2]}
    assert faults(config, schema_path) == []
    assert registry.entry_for(config["models"]["symt_e"], "gripper")["seeds"] == [1, 2]
    assert registry.entry_for(config["models"]["symt_e"], "logistics")["seeds"] == [13]
    config["models"]["symt_e"]["domain_settings"] = {"ferry": {}}
    assert "models.symt_e.domain_settings: 'ferry' is not one of the configured domains" in benchmark_faults(config)[0]


def test_solve_reads_the_planning_settings_of_the_models_domain(tmp_path):
    """`genplan solve --config`: the planning settings of the entry as it planned on the checkpoint's
    domain (its `domain_settings` merged there), the entry's own elsewhere."""
    from genplan.solve_setup import entry_planning_settings

    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump({"models": {"m": {
        "family": "symt", "architecture": "encoder_decoder", "seeds": [13], "strategies": ["greedy"],
        "generate": {"max_tokens": 500}, "domain_settings": {"gripper": {"generate": {"max_tokens": 7}}}}}}))
    assert entry_planning_settings([config], "m", "symt", "gripper")["generate"] == {"max_tokens": 7}
    assert entry_planning_settings([config], "m", "symt", "blocks")["generate"] == {"max_tokens": 500}
    assert entry_planning_settings([config], "m", "symt")["generate"] == {"max_tokens": 500}


def test_a_family_registers_once_and_the_schema_takes_it_in(monkeypatch):
    from genplan.configuration import schema

    extra = registry.Family("blind", "sixth_family.family", ("trajectories",), ("gbfs",), gpu=False,
                            default_strategy="gbfs")
    monkeypatch.setattr(registry, "FAMILIES", dict(registry.FAMILIES))
    monkeypatch.syspath_prepend(str(Path(__file__).parent / "fixtures"))
    registry.register(extra)
    with pytest.raises(ValueError, match="registered already"):
        registry.register(extra)
    with pytest.raises(ValueError, match="trains from"):
        registry.register(registry.Family("x", "m", ("plans",), (), gpu=False, default_strategy=""))
    schema.cache_clear()
    try:
        defs = schema()["$defs"]
        assert defs["model"]["properties"]["family"]["enum"][-1] == "blind" and "blind" in defs
        assert registry.check_models({"b": {"family": "blind", "seeds": [1], "strategies": ["gbfs"]}}) == []
    finally:
        schema.cache_clear()


def test_results_layout_round_trips():
    lay = paths.Layout("runs/x")
    path = lay.evaluation("paper", "blocks", "wl_xgb_delta", 13, "extrapolation", "beam3-reference-nostatics")
    assert path == "runs/x/evaluation/paper/blocks/wl_xgb_delta/seed13/extrapolation.beam3-reference-nostatics.csv"
    assert paths.parse_evaluation_path(path) == {"benchmark": "paper", "domain": "blocks", "model": "wl_xgb_delta",
                                                 "seed": "13", "split": "extrapolation",
                                                 "strategy": "beam3-reference-nostatics"}
    assert lay.log("training", "paper", "blocks", "m", "seed13") == "runs/x/logs/training/paper/blocks/m/seed13.log"
    with pytest.raises(ValueError, match="not an evaluation CSV path"):
        paths.parse_evaluation_path("runs/x/evaluation/extrapolation.csv")


def test_a_planner_takes_a_model_held_in_memory(tmp_path):
    """Coverage-based selection plans with the model being trained: no checkpoint involved."""
    problem = gripper_problem(tmp_path / "g2.pddl", DOMAIN, 2)
    model = OracleModel(load(DOMAIN, problem)[1])
    planner = registry.planner(model, "beam3-pooled", {"decode": {"horizon_min": 20, "horizon_per_object": 0}})
    outcome = solve_and_validate(planner, Problem(DOMAIN, problem))
    a = outcome.attempt
    assert outcome.solved and a.reason == "goal" and len(a.plan) == 5 and a.horizon == 20
    assert a.model_calls == a.steps == 5 and a.states_expanded >= 5 and a.counters["embedded"] > 5
    with pytest.raises(ValueError, match="offers \\['beam'\\] strategies, not 'greedy'"):
        registry.planner(model, "greedy")


@pytest.fixture(scope="module")
def named_model(gripper_data, tmp_path_factory):  # noqa: F811
    """`genplan train` for a named model whose name says nothing of its settings."""
    out = tmp_path_factory.mktemp("named") / "my_model" / "seed13" / "model.ckpt"
    settings = _entry(train={"n_estimators": 5, "max_depth": 3, "learning_rate": 0.3})
    res = run_cli("train", "--model", "my_model", "--settings", json.dumps(settings), "--domain", "gripper",
                  "--train", gripper_data["train"], "--validation", gripper_data["val"], "--seed", "13",
                  "--out", out, "--summary", out.with_name("summary.json"))
    assert res.returncode == 0, res.stderr[-2000:]
    return out


def test_named_models_train_and_load_through_the_envelope(named_model):
    env = checkpoint.read(named_model)
    assert env["format"] == "genplan-model" and env["version"] == 2 and env["family"] == "transition"
    assert {k: env["identity"][k] for k in ("name", "domain", "encoding", "learner", "mode", "seed")} == {
        "name": "my_model", "domain": "gripper", "encoding": "wl", "learner": "xgb", "mode": "delta", "seed": 13}
    model = registry.load_model(named_model, expect_domain="gripper")
    assert (model.name, model.system, model.variant, model.family) == ("my_model", "wl_xgb", "delta", "transition")
    with pytest.raises(GenplanError, match="model of domain 'gripper', not 'blocks'"):
        registry.load_model(named_model, expect_domain="blocks")


def test_checkpoints_of_other_formats_versions_or_families_are_refused(named_model, tmp_path):
    env = checkpoint.read(named_model)
    old = tmp_path / "old.ckpt"
    for bad, message in (({"format": "genplan-transition-model", "version": 1}, "unknown checkpoint format"),
                         ({**env, "version": 7}, "retrain it"), ({**env, "family": "chess"}, "unknown family 'chess'")):
        torch.save(bad, old)
        with pytest.raises(GenplanError, match=message):
            registry.load_model(old)


def test_bad_training_settings_are_named(gripper_data, tmp_path):  # noqa: F811
    bad = _entry(strategies=["greedy"])
    res = run_cli("train", "--model", "m", "--settings", json.dumps(bad), "--domain", "gripper",
                  "--train", gripper_data["train"], "--validation", gripper_data["val"], "--seed", "1",
                  "--out", tmp_path / "m.ckpt")
    assert res.returncode != 0 and "'greedy' is a greedy strategy" in res.stderr and "Traceback" not in res.stderr
    assert not (tmp_path / "m.ckpt").exists()


def test_one_table_of_strategy_kinds():
    """The strategy table is the one list of kinds. Every family offers kinds of it
    (a family naming another is refused), the heuristic search runs exactly its `search` rows, and
    `genplan solve --help` lists every family's forms from it."""
    from genplan.cli.solve import STRATEGY_HELP
    from genplan.planners import search

    assert set(search.KINDS) == {k.name for k in strategies.TABLE if k.planner == "search"}
    for fam in registry.FAMILIES.values():
        assert set(fam.strategy_kinds) <= set(strategies.KINDS)
        assert all(strategies.kind(k).form in STRATEGY_HELP for k in fam.strategy_kinds)
        assert strategies.parse(fam.default_strategy).kind in fam.strategy_kinds
    for example in strategies.EXAMPLES:
        assert strategies.parse(example).kind in strategies.KINDS
    with pytest.raises(ValueError, match="Unknown value kind='beamsearch'"):
        registry.Family("odd", "genplan.models.transition.family", ("trajectories",), ("beamsearch",), gpu=False,
                        default_strategy="beam3-pooled")
