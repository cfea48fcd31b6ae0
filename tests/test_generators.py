"""The seeded problem generators and the generated-benchmark step."""

from __future__ import annotations

import csv
import random
from collections import Counter
from pathlib import Path

import pymimir as pm
import pytest

from genplan.domains import domain_file
from genplan.pddl_io import parse_domain, parse_problem
from genplan.stages.generators import blocks, generate_size, parse_sizes, size_parameter, visitall
from genplan.stages.problems import SPLITS, generate_benchmark

SMALL = {  # split -> sizes, in the order train, validation, interpolation, extrapolation
    "blocks": ([2, 3], [4], [3], "5-6"),
    "gripper": ([1, 2], [3], [2], "4-8/2"),
    "logistics": ([1], [2], [1], "3-4"),
    "visitall": ([1, 3, 4], [6], [2], "7-9"),
}
PER_SIZE = {"train": 3, "validation": 2, "interpolation": 2, "extrapolation": 1}
# Sizes small enough to enumerate the whole state space.
SOLVABLE_MAX = {"blocks": 4, "gripper": 3, "logistics": 2, "visitall": 6}


def _config(domain: str) -> dict:
    return {"sizes": dict(zip(SPLITS, SMALL[domain])), "per_size": PER_SIZE}


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def _manifest(root: Path) -> list[dict]:
    with open(root / "manifest.csv", newline="") as handle:
        return list(csv.DictReader(handle))


@pytest.fixture(scope="module", params=sorted(SMALL))  # the five PlanGPT domains: test_generators_plangpt.py
def bench(request, tmp_path_factory):
    domain = request.param
    out = tmp_path_factory.mktemp(domain) / "bench"
    rows = generate_benchmark(domain, _config(domain), 7, out)
    return domain, out, rows


def test_manifest_matches_files_and_returned_rows(bench):
    domain, out, rows = bench
    manifest = _manifest(out)
    assert [r["problem"] for r in manifest] == [r["problem"] for r in rows]
    assert (out / "domain.pddl").read_bytes() == domain_file(domain).read_bytes()
    files = {str(p.relative_to(out)) for p in out.glob("*/*.pddl")}
    assert files == {r["file"] for r in manifest}
    assert len({r["problem"] for r in manifest}) == len(manifest)
    order = [(SPLITS.index(r["split"]), r["size"], r["problem"]) for r in rows]
    assert order == sorted(order)


def test_problems_parse_and_have_their_size(bench):
    domain, out, rows = bench
    info = parse_domain(domain_file(domain))
    for row in rows:
        task = parse_problem(out / row["file"], info)
        assert task.name == row["problem"]
        assert size_parameter(domain, task) == row["size"]
        assert task.num_objects == row["num_objects"]


def test_no_duplicates_within_or_across_splits(bench):
    _, _, rows = bench
    canon = [r["canonical"] for r in rows]
    assert len(canon) == len(set(canon))


def test_same_seed_same_bytes_other_seed_differs(bench, tmp_path):
    domain, out, _ = bench
    generate_benchmark(domain, _config(domain), 7, tmp_path / "again")
    assert _files(tmp_path / "again") == _files(out)
    if domain != "gripper":  # gripper has one problem per size whatever the seed
        generate_benchmark(domain, _config(domain), 8, tmp_path / "other")
        assert _files(tmp_path / "other") != _files(out)


def test_small_problems_are_solvable(bench):
    domain, out, rows = bench
    mimir_domain = pm.Domain(str(out / "domain.pddl"))
    small = [r for r in rows if r["size"] <= SOLVABLE_MAX[domain]]
    assert small
    for row in small:
        problem = pm.Problem(mimir_domain, str(out / row["file"]), mode="lifted")
        space = pm.StateSpaceSampler.new(problem, max_states=100000)
        assert space is not None, row["file"]
        labels = [space.get_state_label(s) for s in space.get_states()]
        (initial,) = [label for label in labels if label.is_initial]
        assert 0 <= initial.steps_to_goal < 1000, row["file"]


def test_blocks_initial_state_is_never_the_goal():
    rng = random.Random(1)
    for n in (2, 3, 4):
        for _ in range(200):
            problem = generate_size("blocks", n, rng)
            assert not set(problem.goal) <= set(problem.init)
            assert all(atom[0] == "on" for atom in problem.goal) and len(problem.goal) == n - 1


def test_blocks_states_are_uniform():
    assert [blocks.lah(4, k) for k in range(1, 5)] == [24, 36, 12, 1]
    rng = random.Random(3)
    draws = 2600
    counts = Counter(
        tuple(sorted(tuple(t) for t in blocks.random_towers(3, rng))) for _ in range(draws)
    )
    assert len(counts) == 13  # all blocksworld states of 3 blocks
    assert all(abs(c - draws / 13) < 0.3 * draws / 13 for c in counts.values())


def test_blocks_two_blocks_has_two_problems(tmp_path):
    config = {"sizes": {"train": [2]}, "per_size": {"train": 5}}
    assert len(generate_benchmark("blocks", config, 0, tmp_path / "b")) == 2


def test_test_splits_are_filled_first(tmp_path):
    # 12 distinct problems of 3 blocks exist: the test splits get theirs, train the rest.
    config = {"sizes": {s: [3] for s in SPLITS}, "per_size": {s: 5 for s in SPLITS}}
    rows = generate_benchmark("blocks", config, 0, tmp_path / "b")
    counts = Counter(r["split"] for r in rows)
    assert counts == {"extrapolation": 5, "interpolation": 5, "validation": 2}


@pytest.mark.parametrize(
    ("cells", "max_side", "expected"), [(3, 3, 2), (4, 2, 1), (12, 11, 7), (13, 11, 0)]
)
def test_visitall_symmetric_starts_count_once(tmp_path, cells, max_side, expected):
    config = {"sizes": {"train": [cells]}, "per_size": {"train": 20}, "max_side": max_side}
    rows = generate_benchmark("visitall", config, 0, tmp_path / "v")
    assert len(rows) == expected
    assert len(visitall.distinct_problems(cells, max_side)) == expected


def test_visitall_variants_are_the_grid_symmetries():
    expected = {(1, 3, 0, 0), (1, 3, 0, 2), (3, 1, 0, 0), (3, 1, 2, 0)}
    assert visitall.variants((1, 3, 0, 0)) == expected
    assert len(visitall.variants((3, 4, 0, 1))) == 8


def test_gripper_one_problem_per_size(tmp_path):
    config = {
        "sizes": {"train": [2, 4], "validation": [4, 5]},
        "per_size": {"train": 3, "validation": 3},
    }
    rows = generate_benchmark("gripper", config, 0, tmp_path / "g")
    assert [(r["split"], r["problem"]) for r in rows] == [
        ("train", "gripper-n2"),
        ("validation", "gripper-n4"),
        ("validation", "gripper-n5"),
    ]


def test_logistics_parameters(tmp_path):
    config = {"sizes": {"train": [5]}, "per_size": {"train": 1}, "cities": 3, "airplanes": 2}
    (row,) = generate_benchmark("logistics", config, 0, tmp_path / "l")
    # 2 airplanes, 3 cities, 3 trucks, 6 locations, 5 packages
    assert row["num_objects"] == 19
    with pytest.raises(ValueError):
        generate_size("logistics", 1, random.Random(0), {"cities": 1, "locations_per_city": 1})
    with pytest.raises(ValueError):
        generate_size("logistics", 1, random.Random(0), {"trucks": 2})


def test_logistics_goals_move_distinct_packages():
    rng = random.Random(5)
    for _ in range(100):
        problem = generate_size("logistics", 3, rng)
        start = {atom[1]: atom[2] for atom in problem.init if atom[0] == "at"}
        assert len({package for _, package, _ in problem.goal}) == 3
        assert all(start[package] != loc for _, package, loc in problem.goal)


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        (5, [5]),
        ("7", [7]),
        ("9-12", [9, 10, 11, 12]),
        ("12-42/2", list(range(12, 43, 2))),
        ([4, "2-3", 4], [2, 3, 4]),
        ("5-5", [5]),
    ],
)
def test_parse_sizes(spec, expected):
    assert parse_sizes(spec) == expected


@pytest.mark.parametrize("spec", ["5-3", "a-b", "3-9/0", 0, -1, True, "", [1.5], "1-"])
def test_parse_sizes_rejects(spec):
    with pytest.raises(ValueError):
        parse_sizes(spec)


def test_unknown_domain_and_split(tmp_path):
    with pytest.raises(ValueError, match=r"Unknown value name='sokoban'"):
        generate_size("sokoban", 3, random.Random(0))
    with pytest.raises(ValueError, match="Unknown value"):
        generate_benchmark("sokoban", {"sizes": {}}, 0, tmp_path / "x")
    with pytest.raises(ValueError, match="unknown splits"):
        config = {"sizes": {"test": [3]}, "per_size": {"test": 1}}
        generate_benchmark("blocks", config, 0, tmp_path / "x")
    assert not (tmp_path / "x").exists()
