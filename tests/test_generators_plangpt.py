"""The generators of PlanGPT's five other domains (depots, driverlog, floortile, satellite,
zenotravel): seeded, deduplicated, sizes as declared, every problem parsed, a few tiny problems of
each solved by Fast Downward (A* + LM-cut) with a VAL-valid plan; bad parameters refused by name."""

from __future__ import annotations

import csv
import random
import re
from collections import Counter
from pathlib import Path

import pymimir as pm
import pytest

from genplan.benchmarks import BUILTIN
from genplan.domains import DOMAINS, PLANGPT_DOMAINS, domain_file, domain_key
from genplan.pddl_io import parse_domain, parse_problem, plan_to_text
from genplan.stages.fast_downward import run_fast_downward
from genplan.stages.generators import GeneratorError, count, floortile, generate_size, generator_params, size_parameter
from genplan.stages.problems import SPLITS, generate_benchmark
from genplan.val import validate

SMALL = {  # split -> sizes, in the order train, validation, interpolation, extrapolation
    "depots": ("2-3", [2], [3], [4]),
    "driverlog": ("2-3", [2], [3], [4]),
    "floortile": ([4, 6], [4], [6], [8]),
    "satellite": ("2-3", [2], [3], [5]),
    "zenotravel": ("2-3", [2], [3], [5]),
}
PER_SIZE = {"train": 2, "validation": 1, "interpolation": 1, "extrapolation": 1}


def declared_size(domain: str, path: Path) -> int:
    """The size the generator's docstring declares, counted from the written file's text (typed
    objects or goal atoms), independently of the generator."""
    text = path.read_text()
    words = re.search(r"\(:objects([^)]*)\)", text)[1].split()
    kinds: Counter[str] = Counter()
    names = 0
    for i, word in enumerate(words):
        if word == "-":
            kinds[words[i + 1]] += names
            names = -1  # the type's own name comes next
        else:
            names += 1
    goal = text[text.index("(:goal"):]
    if domain == "depots":
        return kinds["crate"]
    if domain == "driverlog":
        return kinds["obj"]
    if domain == "zenotravel":
        return kinds["person"]
    return goal.count("(painted " if domain == "floortile" else "(have_image ")


def _manifest(root: Path) -> list[dict]:
    with open(root / "manifest.csv", newline="") as handle:
        return list(csv.DictReader(handle))


def _config(domain: str, **params) -> dict:
    return {"sizes": dict(zip(SPLITS, SMALL[domain])), "per_size": PER_SIZE, **params}


@pytest.fixture(scope="module", params=PLANGPT_DOMAINS)
def bench(request, tmp_path_factory):
    domain = request.param
    out = tmp_path_factory.mktemp(domain) / "bench"
    rows = generate_benchmark(domain, _config(domain), 7, out)
    return domain, out, rows


def test_registry_keeps_the_papers_four():
    assert BUILTIN["paper"].domains == DOMAINS == ("blocks", "gripper", "logistics", "visitall")
    assert BUILTIN["generated"].domains == DOMAINS + PLANGPT_DOMAINS
    assert [domain_key(domain_file(d)) for d in PLANGPT_DOMAINS] == list(PLANGPT_DOMAINS)


def test_every_problem_parses_with_its_declared_size(bench):
    domain, out, rows = bench
    assert [r["problem"] for r in _manifest(out)] == [r["problem"] for r in rows]
    assert {str(p.relative_to(out)) for p in out.glob("*/*.pddl")} == {r["file"] for r in rows}
    info = parse_domain(out / "domain.pddl")
    mimir_domain = pm.Domain(str(out / "domain.pddl"))
    wanted = {split: sorted(s for spec in [SMALL[domain][i]] for s in (
        range(int(spec.split("-")[0]), int(spec.split("-")[1]) + 1) if isinstance(spec, str) else spec))
        for i, split in enumerate(SPLITS)}
    for split in SPLITS:
        got = Counter(r["size"] for r in rows if r["split"] == split)
        assert got == {size: PER_SIZE[split] for size in wanted[split]}, (split, got)
    for row in rows:
        task = parse_problem(out / row["file"], info)
        assert task.num_objects == row["num_objects"]
        assert declared_size(domain, out / row["file"]) == row["size"], row["file"]
        if domain != "driverlog":
            assert size_parameter(domain, task) == row["size"]
        pm.Problem(mimir_domain, str(out / row["file"]), mode="lifted")


def test_no_duplicates_and_same_seed_same_bytes(bench, tmp_path):
    domain, out, rows = bench
    assert len({r["canonical"] for r in rows}) == len(rows)
    texts = [(out / r["file"]).read_text().split("\n", 1)[1] for r in rows]  # without the (problem name) line
    assert len(set(texts)) == len(texts)
    again = tmp_path / "again"
    generate_benchmark(domain, _config(domain), 7, again)
    assert all((again / r["file"]).read_bytes() == (out / r["file"]).read_bytes() for r in rows)
    other = tmp_path / "other"
    generate_benchmark(domain, _config(domain), 8, other)
    assert any((other / r["file"]).read_bytes() != (out / r["file"]).read_bytes() for r in rows)


def test_fast_downward_solves_them_and_val_accepts_the_plans(bench, tmp_path):
    """The smallest problem of every split: solved (LAMA-first, the pipeline's fast planner; the
    smallest of all by A* + LM-cut too), the plan VAL-valid."""
    _, out, rows = bench
    firsts = [min((r for r in rows if r["split"] == split), key=lambda r: r["size"]) for split in SPLITS]
    for i, row in enumerate(firsts):
        problem = out / row["file"]
        config = "astar_lmcut" if i == 0 else "lama_first"
        result = run_fast_downward(out / "domain.pddl", problem, config, 20, 2000)
        assert result.status in ("optimal", "satisficing") and result.plan, (row["file"], result.status, result.reason)
        plan = tmp_path / f"{row['problem']}.plan"
        plan.write_text(plan_to_text(result.plan))
        checked = validate(out / "domain.pddl", problem, plan)
        assert checked.valid and checked.plan_length == len(result.plan) > 0, (row["file"], checked.message)


def test_zenotravel_initial_fuel_is_random():
    """PlanGPT's change to the generator: aircraft start at random fuel levels, not all empty."""
    levels = Counter(atom[2] for seed in range(30) for atom in
                     generate_size("zenotravel", 2, random.Random(seed)).init if atom[0] == "fuel-level")
    assert len(levels) >= 4 and "fl0" in levels


def test_floortile_draws_every_distinct_problem_once(tmp_path):
    """Two tiles to paint, one robot, grids up to 2 x 2: 1 x 2 (2 columns x 2 rows x 2 colours = 8)
    and 2 x 1 (3 rows x 2 colours = 6) give 14 problems; asking for 20 yields exactly those."""
    params = {"robots": 1, "max_side": 2}
    assert count("floortile", 2, params) == 14
    config = {"sizes": {"train": [2]}, "per_size": {"train": 20}, **params}
    rows = generate_benchmark("floortile", config, 0, tmp_path / "b")
    assert len(rows) == 14 == len({r["canonical"] for r in rows})
    assert floortile.shapes(11, {"robots": 2, "max_side": 8}) == []  # 1 x 11 is wider than max_side
    assert generate_size("floortile", 11, random.Random(0)) is None


def test_satellite_has_no_problem_beyond_targets_times_modes():
    params = {"targets": 2, "modes": 2}
    assert count("satellite", 5, params) == 0
    assert generate_size("satellite", 5, random.Random(0), params) is None
    assert generate_size("satellite", 4, random.Random(0), params) is not None


@pytest.mark.parametrize("domain, config, message", [
    ("depots", {"crates": 3}, r"unknown depots generate parameter\(s\) \['crates'\]"),
    ("depots", {"pallets": 2}, r"pallets: 2 is below 3"),
    ("depots", {"depots": 2, "pallets": 4, "hoists": 1}, r"hoists: 1 is below 4"),
    ("driverlog", {"locations": 1}, r"locations: 1 is below 2"),
    ("driverlog", {"drivers": 0}, r"drivers: 0 is not a positive integer"),
    ("zenotravel", {"cities": 1}, r"cities: 1 is below 2"),
    ("zenotravel", {"fuel_levels": 21}, r"fuel_levels: 21 is greater than the maximum of 20"),
    ("satellite", {"instruments": "2"}, r"instruments: '2' is not a positive integer"),
    ("floortile", {"robots": True}, r"robots: True is not a positive integer"),
])
def test_malformed_parameters_are_refused_by_name(domain, config, message, tmp_path):
    with pytest.raises(GeneratorError, match=message):
        generate_benchmark(domain, _config(domain, **config), 0, tmp_path / "x")
    assert not (tmp_path / "x").exists()


def test_defaults_and_size_bounds():
    assert generator_params("depots", {"sizes": {}, "per_size": {}})["pallets"] == 3
    with pytest.raises(GeneratorError, match="greater than the largest zenotravel size, 100 people"):
        generate_size("zenotravel", 101, random.Random(0))
