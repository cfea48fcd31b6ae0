"""The decoder's search logic (Algorithm 1, beam 3) on real problems with real pymimir successors,
driven by exact test-double models (tests/transition_doubles.py)."""

import pytest
from transition_doubles import ConstantModel, OracleModel, gripper_problem, load

from genplan.domains import domain_file
from genplan.planners import strategies
from genplan.planners.beam import DecodeConfig, decode

GRIPPER = domain_file("gripper")


@pytest.fixture
def gripper1(tmp_path):
    return load(GRIPPER, gripper_problem(tmp_path / "g1.pddl", GRIPPER, balls=1))


@pytest.fixture
def gripper3(tmp_path):
    return load(GRIPPER, gripper_problem(tmp_path / "g3.pddl", GRIPPER, balls=3))


def _moved_robot(mtask):
    s0 = mtask.fluents(mtask.initial_state())
    return s0, (s0 - {("at-robby", "rooma")}) | {("at-robby", "roomb")}


def _replay(mtask, plan):
    """The fluent states along a plan (pymimir raises GenplanError on an inapplicable action)."""
    state = mtask.initial_state()
    states = [mtask.fluents(state)]
    for action in plan:
        state = mtask.apply(state, action)
        states.append(mtask.fluents(state))
    return states, state


@pytest.mark.parametrize("mode", ["pooled", "reference"])
def test_an_exact_model_decodes_an_optimal_plan(gripper3, mode):
    task, mtask = gripper3
    model = OracleModel(mtask)
    res = decode(model, task, mtask, DecodeConfig(beam_kind=mode))
    states, last = _replay(mtask, res.plan)
    assert res.solved and res.reason == "goal" and mtask.is_goal(last)
    assert len(res.plan) == model.h[states[0]] == res.steps


def test_pooled_beam_solves_where_the_reference_beam_idles(gripper1):
    """The reference's prune inside the loop over entries (its idling beam): when the best entry (robot
    moved to the empty room, whose only unvisited successor would be the initial state) has no
    unvisited successor the beam never changes; it returns the one `move`, as the notes report
    for XGBoost on every Gripper problem. The pooled beam expands the other entries."""
    task, mtask = gripper1
    s0, moved = _moved_robot(mtask)
    model = OracleModel(mtask, misguide={s0: moved})
    ref = decode(model, task, mtask, DecodeConfig(beam_kind="reference"))
    assert not ref.solved and ref.reason == "idle" and ref.steps == ref.horizon == 100
    assert ref.plan == [("move", "rooma", "roomb")]
    pooled = decode(model, task, mtask, DecodeConfig(beam_kind="pooled"))
    assert pooled.solved and mtask.is_goal(_replay(mtask, pooled.plan)[1]) and len(pooled.plan) == 3


@pytest.mark.parametrize("mode", ["pooled", "reference"])
def test_a_path_never_revisits_a_state(gripper3, mode):
    task, mtask = gripper3
    res = decode(ConstantModel(mtask), task, mtask, DecodeConfig(beam_kind=mode, horizon_min=40, horizon_per_object=0))
    states, _ = _replay(mtask, res.plan)
    assert len(set(states)) == len(states)
    assert len(res.plan) > 3 if mode == "pooled" else res.reason == "idle"  # a blind model idles the reference


def test_the_horizon_is_respected(gripper3):
    task, mtask = gripper3
    cfg = DecodeConfig(horizon_min=6, horizon_per_object=0)
    res = decode(ConstantModel(mtask), task, mtask, cfg)
    assert not res.solved and res.reason == "horizon" and res.steps == res.horizon == 6 and len(res.plan) == 6
    # the paper's dynamic horizon: max(100, 10 * objects)
    assert DecodeConfig().horizon(7) == 100 and DecodeConfig().horizon(24) == 240
    assert decode(OracleModel(mtask), task, mtask, DecodeConfig()).horizon == 100


def test_one_predict_and_one_embed_call_per_step(gripper3):
    task, mtask = gripper3
    model = OracleModel(mtask)
    res = decode(model, task, mtask, DecodeConfig(beam=3))
    assert res.predict_calls == model.predict_calls == res.steps
    assert max(model.batch_sizes) == 3 and model.batch_sizes[0] == 1  # the whole beam in one call
    assert model.bound.embed_calls == res.embed_calls <= res.steps + 1
    assert res.embedded >= res.steps and res.expansions >= res.steps


def test_beam_one_is_greedy_and_unknown_modes_are_refused(gripper3):
    task, mtask = gripper3
    model = OracleModel(mtask)
    res = decode(model, task, mtask, DecodeConfig(beam=1))
    assert res.solved and set(model.batch_sizes) == {1}
    with pytest.raises(ValueError, match="Unknown value"):
        DecodeConfig(beam_kind="greedy-ish")
    cfg = DecodeConfig.from_strategy(strategies.parse("beam2-reference-nostatics"), {"horizon_per_object": 4})
    assert (cfg.beam, cfg.beam_kind, cfg.statics, cfg.beam_mode, cfg.horizon_min, cfg.horizon_per_object) == (
        2, "reference", False, "reference-nostatics", 100, 4)
    with pytest.raises(ValueError, match="cannot run strategy 'greedy'"):
        DecodeConfig.from_strategy(strategies.parse("greedy"))
