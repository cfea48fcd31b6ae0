"""A configuration is measured before it is walked (genplan.configuration): its top level's unknown
keys are named and its expansion (values, text, depth) is capped before the schema or the
finite-number check visits a value, so YAML's anchors and aliases cannot make a few lines a walk
of billions. The outside attack's "billion laughs" (10 levels of 9 aliases under an unknown key)
hung `snakemake -n` past 5 minutes at 2.6 GB; now it is refused in well under 5 seconds, by the
configuration check and by `snakemake -n`."""

from __future__ import annotations

import subprocess
import sys
import time

import numpy as np
import pytest
import yaml
from conftest import REPO

from genplan import configuration
from genplan.configuration import MAX_DEPTH, MAX_VALUES, check_value, faults
from genplan.errors import GenplanError

SCHEMA = REPO / "workflow/schemas/config.schema.yaml"
SHIPPED = [REPO / "config.yaml", *sorted((REPO / "workflow/configs").glob("*.yaml"))]
pytestmark = pytest.mark.timeout(60)


def laughs(levels: int = 10, width: int = 9, indent: str = "  ") -> str:
    """`levels` anchors, each a list of `width` aliases of the one before: width^levels strings."""
    lines = [f"{indent}a0: &a0 [" + ", ".join(['"lol"'] * width) + "]"]
    lines += [f"{indent}a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * width) + "]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


def _timed_problems(config: dict) -> tuple[list[str], float]:
    start = time.perf_counter()
    lines = faults(config, SCHEMA)
    return lines, time.perf_counter() - start


def test_the_billion_laughs_under_an_unknown_key_is_refused_at_once():
    text = (REPO / "config.yaml").read_text() + "lol_bomb:\n" + laughs()
    lines, took = _timed_problems(yaml.safe_load(text))
    assert took < 5, took
    assert lines[0].startswith("(top level): unknown key(s) ['lol_bomb']"), lines
    assert any(line.startswith(f"lol_bomb: the configuration expands past {MAX_VALUES} values") for line in lines)


@pytest.mark.parametrize("where", ["generate", "models"])
def test_the_billion_laughs_under_a_known_key_is_named_by_its_key(where):
    config = yaml.safe_load((REPO / "config.yaml").read_text())
    bomb = yaml.safe_load("bomb:\n" + laughs())["bomb"]
    name = next(iter(config[where]))
    config[where][name]["extra"] = bomb  # below a key the schema checks: the schema's walk must not start
    lines, took = _timed_problems(config)
    assert took < 5, took
    assert lines == [lines[0]] and lines[0].startswith(f"{where}: the configuration expands past"), lines
    assert f"(at {where}.{name}.extra." in lines[0]


def test_a_file_nested_past_the_depth_cap_is_refused_without_recursion():
    deep = "[" * (MAX_DEPTH + 10) + "]" * (MAX_DEPTH + 10)
    config = yaml.safe_load((REPO / "config.yaml").read_text())
    config["generate"][next(iter(config["generate"]))]["x"] = yaml.safe_load(deep)
    lines = faults(config, SCHEMA)
    assert lines and lines[0].startswith(f"generate: nested more than {MAX_DEPTH} levels deep"), lines


def test_a_command_parameter_is_capped_too():
    """check_value (the commands' JSON parameters) measures first as well; a Python value that
    shares its parts (as a YAML alias does) stands in for one."""
    part = ["x"] * 50
    for _ in range(5):
        part = [part] * 50
    start = time.perf_counter()
    with pytest.raises(GenplanError, match=r"invalid --settings: search: the configuration expands past"):
        check_value({"search": {"time_limit": part}}, ("$defs", "planning"), "--settings")
    assert time.perf_counter() - start < 5


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_every_shipped_configuration_is_far_below_the_caps(path):
    config = yaml.safe_load(path.read_text())
    assert configuration._too_big(config) is None
    assert configuration._too_big({"x": [config] * (MAX_VALUES // 2000)}) is None  # room for 50 of the largest


def _expanded(value, memo=None) -> int:
    """The values of `value`, aliases expanded (the oracle of the cap): 1 + its children's, each
    shared part counted once per place it appears (remembered by identity, not walked again)."""
    memo = {} if memo is None else memo
    if id(value) not in memo:
        items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
        memo[id(value)] = 1 + sum(_expanded(v, memo) for v in items)
    return memo[id(value)]


def test_the_cap_refuses_exactly_the_expansions_past_it():
    """Random alias-sharing trees around the cap (seeded): refused iff their expansion, counted
    value by value, passes MAX_VALUES, whatever shape the sharing has."""
    rng = np.random.default_rng(5)
    sides = {True: 0, False: 0}
    for _ in range(40):
        node: list | dict = ["leaf"] * int(rng.integers(1, 30))
        while _expanded(node) < MAX_VALUES // 3:
            width = int(rng.integers(2, 12))
            node = [node] * width if rng.random() < 0.5 else {f"k{i}": node for i in range(width)}
        node = {"top": [node] * int(rng.integers(1, 6))}
        over = _expanded(node) > MAX_VALUES
        assert (configuration._too_big(node) is not None) == over, _expanded(node)
        sides[over] += 1
    assert min(sides.values()) > 5, sides


def test_snakemake_n_refuses_the_billion_laughs_in_seconds(tmp_path):
    bad = tmp_path / "laughs.yaml"
    bad.write_text((REPO / "config.yaml").read_text() + "lol_bomb:\n" + laughs())
    start = time.perf_counter()
    res = subprocess.run([sys.executable, "-m", "snakemake", "-n", "--cores", "1", "--configfile", str(bad)],
                         cwd=REPO, capture_output=True, text=True, timeout=50)
    took = time.perf_counter() - start
    out = res.stdout + res.stderr
    assert res.returncode != 0 and "unknown key(s) ['lol_bomb']" in out and "expands past" in out, out[-3000:]
    assert took < 5, took
