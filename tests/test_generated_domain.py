"""A generated domain with its generator costs the four files the README's recipe names, no other: the
throwaway lamps domain of tests/fixtures/generated_domain (its PDDL file and its generator module) is
added to a copy of the repository by writing the domain file and the generator module into the package
and one line each into genplan.domains (`GENERATED_DOMAINS`) and genplan.stages.generators
(`GENERATORS`); tests/generated-domain.yaml then runs it through every stage to the leaderboard, and
the run changes no file outside its results root. The generator is held to the contract first, in this
process; a copy that lacks either registration line is refused naming the domain, and the package's two
registries are held to agree: the four files are all there is to touch, and each is needed."""

from __future__ import annotations

import csv
import hashlib
import importlib.util
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import FIXTURES, NOT_COPIED, REPO

CONFIG = REPO / "tests" / "generated-domain.yaml"
FIXTURE = FIXTURES / "generated_domain"
DOMAIN = "lamps"
# the recipe's four files: the domain, the generator and the two registries (README, "Recipes")
DOMAIN_FILE = f"src/genplan/domains/{DOMAIN}.pddl"
GENERATOR = f"src/genplan/stages/generators/{DOMAIN}.py"
DOMAINS_INIT = "src/genplan/domains/__init__.py"
GENERATORS_INIT = "src/genplan/stages/generators/__init__.py"
REGISTRATIONS = {
    DOMAINS_INIT: f'\nGENERATED_DOMAINS = GENERATED_DOMAINS + ("{DOMAIN}",)  # the throwaway domain of the test\n',
    GENERATORS_INIT: f"\nfrom genplan.stages.generators import {DOMAIN}  # noqa: E402\n\n"
                     f'GENERATORS["{DOMAIN}"] = {DOMAIN}  # the throwaway generator of the test\n',
}


def _generator_module():
    spec = importlib.util.spec_from_file_location("lamps_fixture", FIXTURE / f"{DOMAIN}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_fixture_generator_keeps_the_generator_contract(tmp_path):
    """What genplan.stages.generators asks of a generator module: its constants, a problem drawn with
    the rng alone (a seed reproduces it), `count` distinct canonical forms of a size, each problem
    parsed by the project's PDDL reader against the domain file."""
    from genplan.pddl_io import parse_domain, parse_problem, problem_to_pddl

    gen = _generator_module()
    assert gen.DEFAULTS == {} and gen.MAXIMA == {} and gen.MAX_SIZE >= 7 and gen.UNIT == "lamps"
    assert parse_domain(FIXTURE / f"{DOMAIN}.pddl").name == DOMAIN
    for n in (1, 4, 7):
        drawn = [gen.sample(n, random.Random(seed), {}) for seed in range(60)]
        assert drawn[5] == gen.sample(n, random.Random(5), {})
        assert len({p.canonical for p in drawn}) == gen.count(n, {})
        assert all(len(p.objects) == n and len(p.goal) == n for p in drawn)
    domain = parse_domain(FIXTURE / f"{DOMAIN}.pddl")
    problem = gen.sample(4, random.Random(1), {})
    path = tmp_path / "p.pddl"
    path.write_text(problem_to_pddl("lamps-n4-i0", DOMAIN, problem.objects, problem.init, problem.goal, problem.types))
    task = parse_problem(path, domain)
    assert task.goal == frozenset(problem.goal) and task.num_objects == 4


def _tree(root: Path, skip: tuple[str, ...]) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file() and p.relative_to(root).parts[0] not in skip
            and "__pycache__" not in p.parts}


def _add_domain(work: Path, registrations: dict[str, str]) -> None:
    shutil.copyfile(FIXTURE / f"{DOMAIN}.pddl", work / DOMAIN_FILE)
    shutil.copyfile(FIXTURE / f"{DOMAIN}.py", work / GENERATOR)
    for rel, line in registrations.items():
        with open(work / rel, "a") as fh:
            fh.write(line)


def _snakemake(work: Path, *args: str, timeout: int) -> subprocess.CompletedProcess:
    # the copy's package first on the path: its jobs' `genplan` commands import the copy, not the checkout
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(work / "src"), os.environ.get("PYTHONPATH")]))}
    return subprocess.run([sys.executable, "-m", "snakemake", *args, "--configfile", str(CONFIG.relative_to(REPO))],
                          cwd=work, env=env, capture_output=True, text=True, timeout=timeout)


def test_every_generated_domain_has_its_domain_file_and_its_generator():
    """The package's two registries agree (the recipe's third and fourth files): a domain named in
    GENERATED_DOMAINS without a generator, or a generator without its name there, is found here."""
    from genplan.domains import GENERATED_DOMAINS, domain_file
    from genplan.stages.generators import GENERATORS

    assert set(GENERATED_DOMAINS) == set(GENERATORS)
    assert all(domain_file(d).is_file() for d in GENERATED_DOMAINS)


@pytest.mark.slow
def test_a_domain_left_out_of_either_registry_is_refused_naming_it(tmp_path):
    """Without its GENERATED_DOMAINS line the configuration check refuses the domain before any job;
    without its GENERATORS line the generation job stops naming it, and no problems folder is written."""
    work = tmp_path / "repo"
    shutil.copytree(REPO, work, ignore=NOT_COPIED)
    _add_domain(work, {GENERATORS_INIT: REGISTRATIONS[GENERATORS_INIT]})
    res = _snakemake(work, "-n", "--cores", "1", timeout=300)
    out = res.stdout + res.stderr
    assert res.returncode != 0 and f"no domain '{DOMAIN}'" in out and "Job stats" not in out, out[-3000:]
    shutil.copyfile(REPO / GENERATORS_INIT, work / GENERATORS_INIT)
    _add_domain(work, {DOMAINS_INIT: REGISTRATIONS[DOMAINS_INIT]})
    root = yaml.safe_load(CONFIG.read_text())["results_dir"]
    res = _snakemake(work, "--cores", "1", f"{root}/problems/generated/{DOMAIN}", timeout=300)
    log = (work / root / "logs" / "problems" / "generated" / f"{DOMAIN}.log").read_text()  # the job's stderr
    assert res.returncode != 0 and f"genplan: error: Unknown value name='{DOMAIN}'" in log, log[-3000:]
    assert not (work / root / "problems" / "generated" / DOMAIN).exists()


@pytest.mark.slow
def test_a_generated_domain_added_by_the_recipe_runs_to_the_leaderboard(tmp_path):
    work = tmp_path / "repo"
    shutil.copytree(REPO, work, ignore=NOT_COPIED)
    for rel in _tree(work, (".snakemake",)):  # nothing of the package or the workflow knows the domain yet
        if rel.split("/")[0] in ("src", "workflow", "Snakefile", "config.yaml"):
            assert b"lamps" not in (work / rel).read_bytes(), rel
    original = _tree(work, (".snakemake", "runs"))
    _add_domain(work, REGISTRATIONS)
    added = _tree(work, (".snakemake", "runs"))
    touched = {rel for rel in added if original.get(rel) != added[rel]}
    assert touched == {DOMAIN_FILE, GENERATOR, DOMAINS_INIT, GENERATORS_INIT}  # the recipe's four files
    res = _snakemake(work, "--cores", "2", timeout=900)
    assert res.returncode == 0, res.stderr[-4000:]
    assert _tree(work, (".snakemake", "runs")) == added  # the run wrote under its results root only
    root = work / yaml.safe_load(CONFIG.read_text())["results_dir"]
    manifest = list(csv.DictReader(open(root / "problems" / "generated" / DOMAIN / "manifest.csv")))
    assert {(r["split"], r["size"]) for r in manifest} == {("train", "3"), ("train", "4"), ("validation", "5"),
                                                           ("interpolation", "4"), ("extrapolation", "7")}
    board = list(csv.DictReader(open(root / "tables" / "leaderboard.csv")))
    learned = [r for r in board if r["model"] == "heuristic_ridge"]
    assert {(r["benchmark"], r["domain"], r["split"]) for r in learned} == {
        ("generated", DOMAIN, "interpolation"), ("generated", DOMAIN, "extrapolation")}
    assert all(float(r["coverage"]) == 1.0 for r in learned), learned  # the plan is forced: h learns its length
    assert {r["system"] for r in board} >= {"fast_downward", "learned_heuristic"}
