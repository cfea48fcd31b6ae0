"""State spaces that stand alone (format genplan-statespace/2) and the sampler of training examples
(state, goal, objects, statics, h*, one optimal plan) built on them; plans are checked by VAL."""

import csv
import json
import random
import shutil

import numpy as np
import pytest

from genplan import val
from genplan.datasets.statespace import (
    StateSpace,
    example_problem_pddl,
    iter_examples,
    load_split,
    sample_examples,
    sample_split,
)
from genplan.domains import domain_file
from genplan.errors import GenplanError
from genplan.formats import manifest
from genplan.formats import statespace as statespace_file
from genplan.pddl_io import parse_domain, plan_to_text, problem_to_pddl
from genplan.stages import statespace
from genplan.stages.generators import generate_size


def _benchmark(root, domain, sizes):
    """A benchmark folder (domain.pddl, train problems, manifest.csv) of generated problems."""
    root.mkdir(parents=True)
    shutil.copyfile(domain_file(domain), root / "domain.pddl")
    pddl_name = parse_domain(root / "domain.pddl").name
    rows = []
    for size in sizes:
        p = generate_size(domain, size, random.Random(size))
        name = p.stem if not p.indexed else f"{p.stem}-i0"
        (root / "train").mkdir(exist_ok=True)
        (root / "train" / f"{name}.pddl").write_text(problem_to_pddl(name, pddl_name, p.objects, p.init, p.goal))
        rows.append({"problem": name, "split": "train", "file": f"train/{name}.pddl", "size": size,
                     "num_objects": len(p.objects), "seed": size, "canonical": ""})
    (root / "manifest.csv").write_text(manifest.to_csv(rows))
    return root


@pytest.fixture(scope="module")
def gripper(tmp_path_factory):
    root = tmp_path_factory.mktemp("gripper")
    bench = _benchmark(root / "problems", "gripper", [2, 3])
    table = statespace.statespaces_split(bench, "train", 10000, root / "ss", root / "ss.csv")
    return {"bench": bench, "spaces": root / "ss", "csv": root / "ss.csv", "table": table}


def test_v2_file_stands_alone(gripper):
    arrays = statespace_file.load(gripper["spaces"] / "gripper-n2.npz")
    meta = json.loads(str(arrays["meta"]))
    assert meta["format"] == statespace_file.FORMAT == "genplan-statespace/2"
    assert meta["problem"] == meta["problem_name"] == "gripper-n2"
    assert (meta["domain"], meta["domain_name"]) == ("gripper", "gripper-strips")
    assert (meta["problem_file"], meta["domain_file"]) == ("gripper-n2.pddl", "domain.pddl")
    assert str(gripper["bench"].parent) not in str(arrays["meta"]), "no directories in the meta data"
    assert sorted(arrays["objects"]) == ["ball1", "ball2", "left", "right", "rooma", "roomb"]
    assert "(room rooma)" in arrays["statics"] and "(gripper left)" in arrays["statics"]
    assert sorted(arrays["goal"]) == ["(at ball1 roomb)", "(at ball2 roomb)"]
    assert not set(arrays["statics"]) & set(arrays["atoms"]), "statics never enter a state"
    # the summary table keeps its columns and values
    with open(gripper["csv"], newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert tuple(rows[0]) == statespace_file.SUMMARY_COLUMNS
    first = rows[0]
    assert (first["problem"], first["states"], first["transitions"], first["h_star_init"]) == ("gripper-n2", "28", "104", "5")


def test_old_format_is_refused_with_the_file_named(gripper, tmp_path):
    arrays = statespace_file.load(gripper["spaces"] / "gripper-n2.npz")
    meta = json.loads(str(arrays["meta"]))
    old = {k: v for k, v in arrays.items() if k not in ("objects", "statics", "goal")}
    old["meta"] = np.array(json.dumps({**meta, "format": "genplan-statespace/1"}))
    path = tmp_path / "old.npz"
    np.savez_compressed(path, **old)
    for loader in (statespace_file.load, StateSpace.load):
        with pytest.raises(GenplanError, match="rerun the statespace rule.*statespace_split") as err:
            loader(path)
        assert str(path) in str(err.value) and "genplan-statespace/1" in str(err.value)
    (tmp_path / "junk.npz").write_text("not numpy")
    with pytest.raises(GenplanError, match="not a state-space file"):
        statespace_file.load(tmp_path / "junk.npz")


def _follow(space, state, plan):
    """The state index reached by applying the plan's actions along the stored transitions."""
    for action in plan:
        state = dict((a, d) for a, d in space.successors(state))[action]
    return state


def test_sampled_plans_are_optimal_and_valid_for_val(gripper, tmp_path):
    domain = gripper["bench"] / "domain.pddl"
    space = StateSpace.load(gripper["spaces"] / "gripper-n3.npz")
    assert space.state(space.initial) == frozenset(
        [("at-robby", "rooma"), ("free", "left"), ("free", "right"), *(("at", f"ball{i}", "rooma") for i in (1, 2, 3))])
    examples = sample_examples(space, 300, seed=0)
    assert {e.h_star for e in examples} == set(range(int(space.h_star.max()) + 1)), "every distance is drawn"
    checked = set()
    for e in examples:
        assert len(e.plan) == e.h_star == space.h_star[e.state_index] >= 0
        assert e.state == space.state(e.state_index) and e.goal == space.goal and e.statics == space.statics
        assert space.is_goal[_follow(space, e.state_index, e.plan)]
        assert (e.plan == []) == bool(space.is_goal[e.state_index])
        if e.state_index in checked or len(checked) >= 40:
            continue
        checked.add(e.state_index)
        (tmp_path / "p.pddl").write_text(example_problem_pddl(e))
        (tmp_path / "p.plan").write_text(plan_to_text(e.plan))
        res = val.validate(domain, tmp_path / "p.pddl", tmp_path / "p.plan")
        assert res.valid and res.plan_length == e.h_star, (e, res.message)
        if e.plan:  # and VAL does reject a plan one action short
            (tmp_path / "p.plan").write_text(plan_to_text(e.plan[:-1]))
            assert not val.validate(domain, tmp_path / "p.pddl", tmp_path / "p.plan").valid
    assert len(checked) == 40


def test_blocks_plans_from_expand_are_valid_for_val(tmp_path):
    bench = _benchmark(tmp_path / "blocks", "blocks", [4])
    path = tmp_path / "blocks-s4-i0.npz"
    np.savez_compressed(path, **statespace.expand(bench / "domain.pddl", bench / "train" / "blocks-s4-i0.pddl", 1000))
    space = StateSpace.load(path)
    assert len(space) == 125 and space.domain == "blocks" and space.statics == frozenset()
    for e in sample_examples(space, 15, seed=1):
        (tmp_path / "p.pddl").write_text(example_problem_pddl(e))
        (tmp_path / "p.plan").write_text(plan_to_text(e.plan))
        assert val.validate(bench / "domain.pddl", tmp_path / "p.pddl", tmp_path / "p.plan").valid


def test_same_seed_same_examples_and_ties_broken_at_random(gripper):
    space = StateSpace.load(gripper["spaces"] / "gripper-n3.npz")
    assert sample_examples(space, 50, seed=3) == sample_examples(space, 50, seed=3)
    assert sample_examples(space, 50, seed=3) != sample_examples(space, 50, seed=4)
    # from the initial state many optimal plans exist (which ball first, which gripper)
    starts = np.full(30, space.initial)
    plans = space.optimal_plans(starts, np.random.default_rng(0))
    assert len({tuple(p) for p in plans}) > 1 and all(len(p) == space.h_star[space.initial] for p in plans)
    assert plans == space.optimal_plans(starts, np.random.default_rng(0))
    a, b = iter_examples(space, seed=5, batch=7), iter_examples(space, seed=5, batch=7)
    assert [next(a) for _ in range(10)] == [next(b) for _ in range(10)]  # across batches too


def test_dead_ends_are_never_drawn(gripper):
    arrays = statespace_file.load(gripper["spaces"] / "gripper-n2.npz")
    h = arrays["h_star"].copy()
    far = h == h.max()  # no state needs these as optimal successors
    h[far] = -1
    space = StateSpace({**arrays, "h_star": h})
    drawn = {e.state_index for e in sample_examples(space, 500, seed=0)}
    assert not drawn & set(np.flatnonzero(far).tolist()) and len(drawn) == int((~far).sum())


def test_sample_split_over_states_or_problems(gripper):
    spaces = load_split(gripper["spaces"])
    assert [s.name for s in spaces] == ["gripper-n2", "gripper-n3"]
    sizes = {s.name: len(s.solvable) for s in spaces}
    n = 3000
    by_state = sample_split(spaces, n, seed=0)
    assert by_state == sample_split(spaces, n, seed=0) and by_state != sample_split(spaces, n, seed=1)
    share = sum(e.problem == "gripper-n2" for e in by_state) / n
    assert abs(share - sizes["gripper-n2"] / sum(sizes.values())) < 0.03, "uniform over all states"
    by_problem = sample_split(spaces, n, seed=0, by="problem")
    assert abs(sum(e.problem == "gripper-n2" for e in by_problem) / n - 0.5) < 0.04, "uniform over problems"
    assert all(len(e.plan) == e.h_star for e in by_state + by_problem)
    with pytest.raises(ValueError, match="Unknown value"):
        sample_split(spaces, 1, 0, by="atom")
    with pytest.raises(GenplanError, match="no state-space files"):
        load_split(gripper["bench"])


def test_sample_split_by_h_draws_each_goal_distance_alike(gripper):
    spaces = load_split(gripper["spaces"])
    h = np.concatenate([s.h_star[s.solvable] for s in spaces])
    levels, counts = np.unique(h, return_counts=True)
    assert counts.max() > 3 * counts.min(), "the fixture's goal distances are unevenly populated"
    n = 4000
    drawn = sample_split(spaces, n, seed=0, by="h")
    assert drawn == sample_split(spaces, n, seed=0, by="h")
    got = np.array([e.h_star for e in drawn])
    for level in levels.tolist():  # about n / levels each, however many states hold that h*
        assert abs((got == level).mean() - 1 / len(levels)) < 0.03, level
    assert all(len(e.plan) == e.h_star for e in drawn)
    assert {e.problem for e in drawn} == {s.name for s in spaces}
