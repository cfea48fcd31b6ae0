"""WL and FSF encoders on small Gripper problems whose trajectories are made here with the
pipeline's own functions (PDDL writer, parser, pymimir successors)."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pytest

from genplan.domains import domain_file
from genplan.errors import GenplanError
from genplan.features import encoder_from_dict, make_encoder
from genplan.features.base import ProblemView, record_states
from genplan.formats.trajectories import document
from genplan.mimir import MimirTask
from genplan.pddl_io import atom_to_str, parse_domain, parse_problem, problem_to_pddl

DOMAIN = domain_file("gripper")


def gripper_problem(directory, balls: int, names=None):
    """A Gripper problem: `balls` balls in rooma, all wanted in roomb."""
    names = names or [f"ball{i}" for i in range(1, balls + 1)]
    init = [("room", "rooma"), ("room", "roomb"), ("gripper", "left"), ("gripper", "right"),
            ("at-robby", "rooma"), ("free", "left"), ("free", "right")]
    init += [("ball", b) for b in names] + [("at", b, "rooma") for b in names]
    path = directory / f"gripper-{len(names)}.pddl"
    path.write_text(problem_to_pddl(path.stem, "gripper-strips", ["rooma", "roomb", "left", "right", *names],
                                    init, [("at", b, "roomb") for b in names]))
    return path


def gripper_plan(names):
    """Two balls a trip: pick, pick, move, drop, drop, move back."""
    plan = []
    for i in range(0, len(names), 2):
        pair = list(zip(names[i:i + 2], ("left", "right")))
        plan += [("pick", b, "rooma", g) for b, g in pair] + [("move", "rooma", "roomb")]
        plan += [("drop", b, "roomb", g) for b, g in pair]
        if i + 2 < len(names):
            plan.append(("move", "roomb", "rooma"))
    return plan


def trajectory_record(problem_file):
    """The trajectory record (as `genplan trajectories` writes it) of the plan above."""
    task = parse_problem(problem_file, parse_domain(DOMAIN))
    mimir = MimirTask(DOMAIN, problem_file)
    state = mimir.initial_state()
    names = sorted((o for o in task.objects if o.startswith("ball")), key=lambda b: int(b[4:]))
    plan = gripper_plan(names)
    states = [mimir.fluents(state)]
    for action in plan:
        state = mimir.apply(state, action)
        states.append(mimir.fluents(state))
    assert task.goal <= states[-1]
    return {"problem": task.name, "plan_length": len(plan), "statics": sorted(atom_to_str(a) for a in task.statics),
            "goal": sorted(atom_to_str(a) for a in task.goal), "actions": [atom_to_str(a) for a in plan],
            "states": [sorted(atom_to_str(a) for a in s) for s in states]}


def write_split(path, records):
    with gzip.open(path, "wt") as fh:
        json.dump(document(path.stem, DOMAIN, records, []), fh)
    return path


@pytest.fixture(scope="session")
def gripper_data(tmp_path_factory):
    """Problem files and records: training (1-3 balls), validation (4), a larger test problem (6)."""
    d = tmp_path_factory.mktemp("gripper")
    files = {n: gripper_problem(d, n) for n in (1, 2, 3, 4, 6)}
    records = {n: trajectory_record(f) for n, f in files.items()}
    train = write_split(d / "train.json.gz", [records[n] for n in (1, 2, 3)])
    val = write_split(d / "validation.json.gz", [records[4]])
    return {"dir": d, "files": files, "records": records, "train": train, "val": val}


def task_of(path):
    return parse_problem(path, parse_domain(DOMAIN))


def test_wl_embedding_is_the_same_at_training_and_inference(gripper_data):
    enc = make_encoder("wl", DOMAIN)
    enc.fit([gripper_data["records"][n] for n in (1, 2, 3)])
    record = gripper_data["records"][2]
    training = enc.bind_record(record).embed(record_states(record))
    task = task_of(gripper_data["files"][2])
    inference = enc.bind(task).embed([task.init])
    assert inference.dtype == np.float32 and inference.shape == (1, enc.dim)
    assert np.array_equal(training[0], inference[0])
    # the statics are inside: without them the graph, hence the embedding, differs
    view = ProblemView.from_task(task)
    bare = enc.bind_view(ProblemView(view.name, view.objects, frozenset(), view.goal)).embed([task.init])
    assert not np.array_equal(bare[0], inference[0])
    goal = enc.bind(task).embed_goal()
    assert goal.shape == (enc.dim,) and goal.sum() > 0


def test_wl_colours_unseen_in_training_are_dropped(gripper_data):
    recs = gripper_data["records"]
    small, large = make_encoder("wl", DOMAIN), make_encoder("wl", DOMAIN)
    small.fit([recs[1]])
    large.fit([recs[1], recs[6]])
    assert small.dim < large.dim
    task = task_of(gripper_data["files"][6])
    seen_all = large.bind(task).embed([task.init])[0]
    seen_some = small.bind(task).embed([task.init])[0]
    assert seen_some.shape == (small.dim,)
    assert seen_some.sum() < seen_all.sum()  # raw counts: the unseen colours are not counted


def test_encoders_round_trip_through_to_dict(gripper_data):
    task = task_of(gripper_data["files"][3])
    for name in ("wl", "fsf"):
        enc = make_encoder(name, DOMAIN)
        enc.fit([gripper_data["records"][n] for n in (1, 2, 3)])
        again = encoder_from_dict(json.loads(json.dumps(enc.to_dict())))
        assert again.dim == enc.dim and again.name == name
        assert np.array_equal(again.bind(task).embed([task.init]), enc.bind(task).embed([task.init]))
        assert np.array_equal(again.bind(task).embed_goal(), enc.bind(task).embed_goal())


def test_fsf_follows_table_6(gripper_data):
    enc = make_encoder("fsf", DOMAIN)
    enc.fit([gripper_data["records"][n] for n in (1, 2, 3, 4)])
    assert enc.dim == 1 + 4 + 2  # global slot, 4 balls, 2 grippers
    task = task_of(gripper_data["files"][2])
    bound = enc.bind(task)
    s1 = {("at-robby", "rooma"), ("carry", "ball1", "left"), ("at", "ball2", "rooma"), ("free", "right")}
    vec = bound.embed([frozenset(s1)])[0]
    # robot in room 1; ball1 carried by the gripper in slot 5; ball2 in room 1; balls 3, 4 padding;
    # gripper left holds the ball of slot 1, right is free
    assert vec.tolist() == [1, -5, 1, -99, -99, 1, 0]
    assert bound.embed_goal().tolist() == [-10, 2, 2, -99, -99, -10, -10]


def test_fsf_slots_follow_natural_order(tmp_path):
    names = ["ball10", "ball2", "ball1"]
    path = gripper_problem(tmp_path, 3, names)
    enc = make_encoder("fsf", DOMAIN)
    enc.fit([trajectory_record(path)])
    bound = enc.bind(task_of(path))
    assert [bound.slot_of[b] for b in ("ball1", "ball2", "ball10")] == [1, 2, 3]


def test_fsf_refuses_a_problem_larger_than_its_slots(gripper_data):
    enc = make_encoder("fsf", DOMAIN)
    enc.fit([gripper_data["records"][n] for n in (1, 2, 3, 4)])
    with pytest.raises(GenplanError) as err:
        enc.bind(task_of(gripper_data["files"][6]))
    assert err.value.path == gripper_data["files"][6]
    assert "6 'ball' objects" in err.value.message and "4 FSF slots" in err.value.message


def test_unknown_encoder_name():
    with pytest.raises(ValueError, match=r"Unknown value name='gnn'. Must be from \['wl', 'fsf'\]"):
        make_encoder("gnn", DOMAIN)


def test_nostatics_beam_modes_embed_inference_states_without_statics(gripper_data):
    """`*-nostatics` reproduces the reference's "statics at training only" for WL; an
    FSF model, which never embeds statics, is refused with one clear error."""
    from genplan.planners.beam import DecodeConfig, _bind

    task = task_of(gripper_data["files"][3])
    wl = make_encoder("wl", DOMAIN)
    wl.fit([gripper_data["records"][n] for n in (1, 2, 3)])
    kept = _bind(wl, task, DecodeConfig(beam_kind="reference")).embed([task.init])[0]
    dropped = _bind(wl, task, DecodeConfig(beam_kind="reference", statics=False)).embed([task.init])[0]
    view = ProblemView.from_task(task)
    bare = wl.bind_view(ProblemView(view.name, view.objects, frozenset(), view.goal)).embed([task.init])[0]
    assert np.array_equal(dropped, bare) and not np.array_equal(dropped, kept)
    assert DecodeConfig(statics=False).beam_mode == "pooled-nostatics"
    fsf = make_encoder("fsf", DOMAIN)
    fsf.fit([gripper_data["records"][n] for n in (1, 2, 3, 4)])
    with pytest.raises(GenplanError, match="never embeds static atoms"):
        _bind(fsf, task, DecodeConfig(statics=False))


def test_wl_without_statics_leaves_them_out_at_training_and_inference_alike(gripper_data):
    """`statics: false` is the other consistent choice: no static atom in any graph, and a
    checkpoint says so (older checkpoints, without the key, embedded statics)."""
    enc = make_encoder("wl", DOMAIN, statics=False)
    enc.fit([gripper_data["records"][n] for n in (1, 2, 3)])
    record = gripper_data["records"][2]
    task = task_of(gripper_data["files"][2])
    training = enc.bind_record(record).embed(record_states(record))
    inference = enc.bind(task).embed([task.init])
    assert np.array_equal(training[0], inference[0])
    view = ProblemView.from_task(task)
    bare = enc.bind_view(ProblemView(view.name, view.objects, frozenset(), view.goal)).embed([task.init])
    assert np.array_equal(bare[0], inference[0])  # the problem's statics change nothing
    with_statics = make_encoder("wl", DOMAIN)
    with_statics.fit([gripper_data["records"][n] for n in (1, 2, 3)])
    assert with_statics.dim != enc.dim  # static predicates add colours
    saved = enc.to_dict()
    assert saved["statics"] is False and encoder_from_dict(saved).statics is False
    del saved["statics"]
    assert encoder_from_dict(saved).statics is True
