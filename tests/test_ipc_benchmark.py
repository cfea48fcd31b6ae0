"""Any PDDL domain in: a typed domain with constants, negative preconditions and equality
through every data stage (Fast Downward + VAL, the trajectories, pymimir, wlplan), PDDL the pipeline
cannot handle refused by name, and the `ipc2023` benchmark: its pinned checksum list, the import
from a folder (a small copy of two IPC 2023 domains), its refusals, the classical baselines of
its plans stage, the configuration checks and the two configurations' dry runs."""

from __future__ import annotations

import csv
import hashlib
import json
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import yaml
from conftest import REPO

from genplan.configuration import benchmark_faults, faults
from genplan.errors import GenplanError
from genplan.features import make_encoder
from genplan.mimir import MimirTask
from genplan.pddl_io import parse_domain, parse_problem, read_plan, str_to_atom
from genplan.stages.ipc_import import checksums, import_ipc2023
from genplan.stages.plan_files import plan_files
from genplan.stages.plans import TIME_LIMIT_RULE, plan_split
from genplan.stages.trajectories import trajectory

COURIER = REPO / "tests" / "fixtures" / "typed_courier"
SCHEMA = REPO / "workflow" / "schemas" / "config.schema.yaml"


@pytest.fixture(scope="module")
def courier_plans(tmp_path_factory) -> Path:
    """LAMA-first's VAL-valid plans of the typed fixture's two problems."""
    out = tmp_path_factory.mktemp("courier") / "plans"
    problems = [COURIER / "p01.pddl", COURIER / "p02.pddl"]
    rows = plan_files(COURIER / "domain.pddl", problems, "lama_first", 30, 2048, out)
    assert [(r["problem"], r["valid"]) for r in rows] == [("p01", "yes"), ("p02", "yes")]
    return out


# --- a typed domain with a constant, negative preconditions and equality, through every stage ---


def test_typed_domain_constants_are_objects():
    dom = parse_domain(COURIER / "domain.pddl")
    task = parse_problem(COURIER / "p01.pddl", dom)
    assert dom.constants == ("depot",)
    assert task.objects == ("a", "b", "depot", "t1", "x1")  # the problem's objects and the domain's constant
    assert ("at", "t1", "depot") in task.init and ("road", "depot", "a") in task.statics


def test_typed_domain_eager_gbfs_plans_valid(tmp_path):
    rows = plan_files(COURIER / "domain.pddl", [COURIER / "p02.pddl"], "gbfs_ff_eager", 30, 2048, tmp_path / "out")
    assert [(r["config"], r["valid"]) for r in rows] == [("gbfs_ff_eager", "yes")]


def test_typed_domain_trajectory_matches_val_and_pymimir(courier_plans):
    rec = trajectory(COURIER / "domain.pddl", COURIER / "p02.pddl", courier_plans / "p02.plan")
    assert rec["plan_length"] == len(read_plan(courier_plans / "p02.plan")) == len(rec["states"]) - 1
    assert "(delivered x1)" in rec["states"][-1] and "(delivered x2)" in rec["states"][-1]


def test_pymimir_honours_negative_preconditions_and_equality():
    task = MimirTask(COURIER / "domain.pddl", COURIER / "p02.pddl")
    s = task.initial_state()
    assert sorted(a for a, _ in task.successors(s)) == [("drive", "t1", "a", "b"), ("drive", "t1", "a", "depot")]
    for action in [("drive", "t1", "a", "b"), ("load", "x1", "t1", "b"), ("drive", "t1", "b", "c")]:
        s = task.apply(s, action)
    with pytest.raises(GenplanError, match="not applicable"):  # (not (loaded t1)) fails: x1 is aboard
        task.apply(s, ("load", "x2", "t1", "c"))
    assert ("drive", "t1", "c", "c") not in {a for a, _ in task.successors(s)}  # (not (= ?a ?b))


def test_typed_domain_wl_features(courier_plans):
    recs = [trajectory(COURIER / "domain.pddl", COURIER / f"{p}.pddl", courier_plans / f"{p}.plan")
            for p in ("p01", "p02")]
    enc = make_encoder("wl", COURIER / "domain.pddl", iterations=2)
    enc.fit(recs)
    task = parse_problem(COURIER / "p02.pddl", parse_domain(COURIER / "domain.pddl"))
    bound = enc.bind(task)
    states = [task.init, frozenset(str_to_atom(a) for a in recs[1]["states"][-1])]
    x = bound.embed(states)
    assert x.shape == (2, enc.dim) and enc.dim > 0 and np.all(x >= 0)
    assert not np.array_equal(x[0], x[1])  # the first and the goal state differ in their features
    assert bound.embed_goal().shape == (enc.dim,)


@pytest.mark.parametrize("named", [":conditional-effects", ":derived-predicates", ":action-costs"])
def test_unsupported_requirements_refused_by_name(tmp_path, named):
    dom = (COURIER / "domain.pddl").read_text().replace(":equality)", f":equality {named})")
    path = tmp_path / "domain.pddl"
    path.write_text(dom)
    with pytest.raises(GenplanError, match=re.escape(f"unsupported requirement(s) {named}")) as err:
        parse_domain(path)
    assert str(path) in str(err.value)


# --- the ipc2023 benchmark: the pinned list, the import, its refusals ---


def test_pinned_list_has_every_problem_of_the_ten_domains():
    """The counts of the track's README: training 99 (childsnack 98, floortile 97, spanner 89),
    testing 30 per level (rovers hard 16), a reference plan for every problem."""
    sums = checksums()
    count = Counter(tuple(rel.split("/")[1:-1]) + (rel.split("/")[0],) for rel in sums if rel.endswith(".pddl")
                    and "/plans/" not in rel and not rel.endswith("domain.pddl"))
    train = {d: n for (*where, d), n in count.items() if where == ["training", "easy"]}
    assert train == {"blocksworld": 99, "childsnack": 98, "ferry": 99, "floortile": 97, "miconic": 99, "rovers": 99,
                     "satellite": 99, "sokoban": 99, "spanner": 89, "transport": 99}
    tests = {(d, where[1]): n for (*where, d), n in count.items() if where[0] == "testing"}
    assert len(tests) == 30 and all(n == 30 for k, n in tests.items() if k != ("rovers", "hard"))
    assert tests[("rovers", "hard")] == 16
    plans = sum(1 for rel in sums if rel.endswith(".plan"))
    assert plans == sum(train.values()) + sum(tests.values())
    assert "upper_bounds.json" in sums and sum(rel.endswith("/domain.pddl") for rel in sums) == 10


def _copy_subset(src: Path, dst: Path, domains=("ferry", "childsnack")) -> Path:
    """Two domains with two training problems and one problem per level, their plans, the bounds,
    and a checksum list of exactly these files (dst/subset.sha256)."""
    rels = ["upper_bounds.json"]
    for d in domains:
        rels.append(f"{d}/domain.pddl")
        for level, names in (("training/easy", ("p01", "p02")), ("testing/easy", ("p01",)),
                             ("testing/medium", ("p01",)), ("testing/hard", ("p01",))):
            rels += [f"{d}/{level}/{n}.pddl" for n in names] + [f"{d}/plans/{level}/{n}.plan" for n in names]
    for rel in rels:
        (dst / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src / rel, dst / rel)
    write_sums(dst, rels)
    return dst


def write_sums(root: Path, rels) -> None:
    (root / "subset.sha256").write_text("".join(
        f"{hashlib.sha256((root / r).read_bytes()).hexdigest()}  {r}\n" for r in sorted(rels)))


@pytest.fixture
def subset(ipc_dir, tmp_path) -> Path:
    return _copy_subset(ipc_dir, tmp_path / "ipc")


def test_import_subset_and_plan_with_classical_baselines(subset, tmp_path):
    out = tmp_path / "problems" / "ferry"
    rows = import_ipc2023("ferry", subset, out, checksum_file=subset / "subset.sha256")
    assert [(r["split"], r["problem"]) for r in rows] == [("train", "p01"), ("train", "p02"), ("easy", "p01"),
                                                         ("medium", "p01"), ("hard", "p01")]
    assert (out / "easy" / "p01.pddl").read_bytes() == (subset / "ferry/testing/easy/p01.pddl").read_bytes()
    assert (out / "reference-plans" / "hard" / "p01.plan").is_file()
    bounds = json.loads((subset / "upper_bounds.json").read_text())
    with open(out / "upper_bounds.csv", newline="") as fh:
        got = list(csv.DictReader(fh))
    assert got == [{"split": lvl, "problem": "p01", "best_known_cost": str(bounds[f"ferry/testing/{lvl}/p01.pddl"])}
                   for lvl in ("easy", "medium", "hard")]
    cfg = {"threads": 1, "memory_limit_mb": 2048, "runtime_min": 1, "optimal": {"enabled": False},
           "fallback": {"enabled": False}, "lama": {"time_limit": 20}, "gbfs_ff_eager": {"time_limit": 20}}
    table = plan_split(out, "easy", cfg, tmp_path / "plans" / "easy", tmp_path / "plans" / "easy.csv")
    assert [(r["config"], r["status"], r["valid"]) for r in table] == [
        ("gbfs_ff_eager", "satisficing", "yes"), ("lama_first", "satisficing", "yes"),
        ("reference", "satisficing", "yes")]
    assert all(int(r["plan_length"]) >= bounds["ferry/testing/easy/p01.pddl"] for r in table)
    assert (tmp_path / "plans" / "easy" / "p01.plan").read_text() == \
        (tmp_path / "plans" / "easy" / "p01.gbfs_ff_eager.plan").read_text()  # the trajectory's plan
    rule = {"time_limit_rule": TIME_LIMIT_RULE}  # CPU-enforced, counted in wall-clock with loading
    assert json.loads((tmp_path / "plans" / "easy" / "limits.json").read_text()) == {
        "gbfs_ff_eager": {"time_limit": 20, "memory_limit_mb": 2048, **rule},
        "lama_first": {"time_limit": 20, "memory_limit_mb": 2048, **rule}}


def test_reference_splits_take_the_shipped_plans_and_run_no_planner(subset, tmp_path):
    """planner.reference_splits: the training problems' main plans are their VAL-checked reference
    plans (what the learned heuristic trains on); Fast Downward does not run there."""
    out = tmp_path / "problems" / "ferry"
    import_ipc2023("ferry", subset, out, checksum_file=subset / "subset.sha256")
    cfg = {"threads": 1, "memory_limit_mb": 2048, "runtime_min": 1, "optimal": {"enabled": False},
           "fallback": {"enabled": False}, "lama": {"time_limit": 20}, "gbfs_ff_eager": {"time_limit": 20},
           "reference_splits": ["train"]}
    plans = tmp_path / "plans" / "train"
    table = plan_split(out, "train", cfg, plans, tmp_path / "plans" / "train.csv")
    assert [(r["problem"], r["config"], r["valid"]) for r in table] == [("p01", "reference", "yes"),
                                                                      ("p02", "reference", "yes")]
    for name in ("p01", "p02"):
        assert (plans / f"{name}.plan").read_text() == (out / "reference-plans" / "train" / f"{name}.plan").read_text()
    assert json.loads((plans / "limits.json").read_text()) == {}
    (out / "reference-plans" / "train" / "p02.plan").unlink()  # a problem without its plan: refused by name
    with pytest.raises(GenplanError, match="p02"):
        plan_split(out, "train", cfg, tmp_path / "again", tmp_path / "again.csv")
    assert not (tmp_path / "again").exists() and not (tmp_path / "again.csv").exists()


def test_import_refuses_a_malformed_problem(subset, tmp_path):
    bad = subset / "childsnack" / "training" / "easy" / "p02.pddl"
    bad.write_text(bad.read_text().replace("(:init", "(:init (", 1))
    write_sums(subset, [line.split()[1] for line in (subset / "subset.sha256").read_text().splitlines()])
    with pytest.raises(GenplanError, match="malformed PDDL problem") as err:
        import_ipc2023("childsnack", subset, tmp_path / "out", checksum_file=subset / "subset.sha256")
    assert str(bad) in str(err.value) and not (tmp_path / "out").exists()


def test_import_refuses_a_missing_domain_file(subset, tmp_path):
    (subset / "ferry" / "domain.pddl").unlink()
    with pytest.raises(GenplanError, match=r"missing file .*ferry/domain\.pddl"):
        import_ipc2023("ferry", subset, tmp_path / "out", checksum_file=subset / "subset.sha256")
    assert not (tmp_path / "out").exists()


def test_import_refuses_a_checksum_mismatch(subset, tmp_path):
    changed = subset / "ferry" / "testing" / "medium" / "p01.pddl"
    changed.write_text(changed.read_text() + "\n; edited\n")
    with pytest.raises(GenplanError, match="checksum mismatch") as err:
        import_ipc2023("ferry", subset, tmp_path / "out", checksum_file=subset / "subset.sha256")
    assert str(changed) in str(err.value) and not (tmp_path / "out").exists()


def test_import_refuses_an_unknown_domain_and_an_unlisted_problem(subset, tmp_path):
    with pytest.raises(GenplanError, match="no domain 'logistics'"):
        import_ipc2023("logistics", subset, tmp_path / "out", checksum_file=subset / "subset.sha256")
    shutil.copyfile(subset / "ferry/training/easy/p01.pddl", subset / "ferry/training/easy/p77.pddl")
    with pytest.raises(GenplanError, match="not part of the pinned") as err:
        import_ipc2023("ferry", subset, tmp_path / "out", checksum_file=subset / "subset.sha256")
    assert "p77.pddl" in str(err.value)


@pytest.mark.parametrize("domain", ["childsnack", "sokoban"])
def test_domains_with_constants_plan_and_validate(ipc_dir, tmp_path, domain):
    """The two domains whose constants were once refused (`undeclared object 'kitchen'`, 'right')."""
    rows = plan_files(ipc_dir / domain / "domain.pddl", [ipc_dir / domain / "testing/easy/p01.pddl"], "lama_first",
                      60, 4096, tmp_path / "out")
    assert [(r["status"], r["valid"]) for r in rows] == [("satisficing", "yes")]


@pytest.mark.parametrize("domain", ["blocksworld", "childsnack", "ferry", "floortile", "miconic", "rovers",
                                    "satellite", "sokoban", "spanner", "transport"])
def test_every_ipc_domain_through_trajectories_and_wl_features(ipc_dir, domain):
    """The first easy problem of each domain: its reference plan through VAL, checked step by step
    against pymimir (typed objects, constants, negative preconditions), and WL features of its states."""
    dom, prob = ipc_dir / domain / "domain.pddl", ipc_dir / domain / "testing/easy/p01.pddl"
    rec = trajectory(dom, prob, ipc_dir / domain / "plans/testing/easy/p01.plan")
    assert len(rec["states"]) == rec["plan_length"] + 1 > 1
    enc = make_encoder("wl", dom, iterations=2)
    enc.fit([rec])
    x = enc.bind(parse_problem(prob, parse_domain(dom))).embed([frozenset(map(str_to_atom, s)) for s in rec["states"]])
    assert x.shape == (len(rec["states"]), enc.dim) and not np.array_equal(x[0], x[-1])


# --- the configuration: open domain names, per-benchmark splits, the two ipc2023 configurations ---


def _config(**over) -> dict:
    base = yaml.safe_load((REPO / "workflow" / "configs" / "ipc2023-cpu.yaml").read_text())
    return {**base, **over}


def test_config_checks_domains_splits_and_folder_per_benchmark(tmp_path):
    lines = benchmark_faults(_config(domains=["ferry", "blocks"], splits=["train", "validation"],
                                       extra_splits={"ferry": ["hard"]}, ipc2023_dir=str(tmp_path)))
    ipc_domains = ["blocksworld", "childsnack", "ferry", "floortile", "miconic", "rovers", "satellite", "sokoban",
                   "spanner", "transport"]
    levels = ["train", "easy", "medium", "hard"]
    assert lines == [f"domains: benchmark 'ipc2023' has no domain 'blocks'; its domains: {ipc_domains}",
                     f"splits: benchmark 'ipc2023' has no split 'validation'; its splits: {levels}"]
    assert any(line.startswith("ipc2023_dir: the ipc2023 benchmark is read from a folder you name")
               for line in benchmark_faults(_config(ipc2023_dir=None)))
    assert benchmark_faults(_config(ipc2023_dir=str(tmp_path / "nowhere"))) == [
        f"ipc2023_dir: no such folder: {tmp_path / 'nowhere'}"]
    paper = yaml.safe_load((REPO / "workflow" / "configs" / "paper-cpu.yaml").read_text())
    assert benchmark_faults({**paper, "domains": ["blocks", "ferry"]})[0].startswith(
        "domains: benchmark 'paper' has no domain 'ferry'")
    for dom in ipc_domains:  # a copy of the track (config_checks refuses a folder without the domains)
        (tmp_path / dom).mkdir(exist_ok=True)
        (tmp_path / dom / "domain.pddl").write_text("(define (domain d))\n")
    assert faults(_config(ipc2023_dir=str(tmp_path)), SCHEMA) == []
    assert benchmark_faults(_config(ipc2023_dir=str(tmp_path), extra_splits={"ferry": ["validation"],
                                                                              "gripper": ["hard"]})) == [
        f"extra_splits.ferry: benchmark 'ipc2023' has no split 'validation'; its splits: {levels}",
        f"extra_splits: 'gripper' is not one of the configured domains {ipc_domains}"]


def test_a_family_that_cannot_train_without_a_validation_split_is_refused_by_name(tmp_path):
    """On ipc2023 (no validation split, no expandable state spaces) a transition
    model, or a learned heuristic on state spaces, is refused by the config check, naming the model;
    the learned heuristic trained from plans passes."""
    cpu = yaml.safe_load((REPO / "workflow" / "configs" / "ipc2023-cpu.yaml").read_text())
    paper = yaml.safe_load((REPO / "workflow" / "configs" / "paper-cpu.yaml").read_text())
    models = {"wl_xgb_state": paper["models"]["wl_xgb_state"], "heuristic_ridge": paper["models"]["heuristic_ridge"],
              "from_plans": cpu["models"]["heuristic_rank_pruned"]}
    lines = benchmark_faults({**cpu, "ipc2023_dir": str(tmp_path), "models": models})
    assert [line.split(":", 1)[0] for line in lines] == ["models.wl_xgb_state", "models.heuristic_ridge"]
    assert "family 'transition' cannot train on benchmark 'ipc2023'" in lines[0]


def _dry_run_jobs(configfile: str, root: Path) -> dict[str, int]:
    """Jobs per rule of a dry run into an empty results root."""
    res = subprocess.run([sys.executable, "-m", "snakemake", "-n", "--configfile", configfile, "--config",
                          f"results_dir={root}"], cwd=REPO, capture_output=True, text=True, timeout=300, check=False)
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-2000:]
    table = (res.stdout + res.stderr).split("Job stats:", 1)[1]
    return {m[1]: int(m[2]) for m in re.finditer(r"^(\w+)\s+(\d+)$", table, re.MULTILINE)}


@pytest.mark.parametrize("configfile, tables", [("workflow/configs/ipc2023-cpu.yaml", 10 * 4),
                                                ("workflow/configs/ipc2023.yaml", 10 * 4)])
def test_ipc2023_configurations_dry_run(ipc_dir, tmp_path, configfile, tables):
    """Train and the three levels of every domain, in both configurations."""
    jobs = _dry_run_jobs(configfile, tmp_path / "results")
    assert jobs["import_ipc2023"] == 10
    assert jobs["plan_split"] == jobs["trajectories"] == tables
    assert "import_problems" not in jobs and "generate_problems" not in jobs and "statespace_split" not in jobs


def test_domain_key_is_the_folder_name_of_every_ipc_domain(ipc_dir):
    """The `domain` wildcard of every IPC 2023 domain, as the models' domain checks read it (Rovers'
    PDDL name is `rover`)."""
    from genplan.domains import IPC2023_DOMAINS, domain_key

    assert [domain_key(ipc_dir / d / "domain.pddl") for d in IPC2023_DOMAINS] == list(IPC2023_DOMAINS)


@pytest.mark.parametrize("stray, refused", [
    ("ferry/training/easy/p01.pddl~", True),  # an editor's copy beside the problems
    ("ferry/testing/easy/notes.txt", True),
    ("ferry/extra/p99.pddl", True),  # a problem outside the problem folders
    ("ferry/plans/testing/easy/p05.plan", False),  # a plan the list does not pin: said, not imported
])
def test_stray_files_in_the_ipc_copy_are_refused_or_named(subset, tmp_path, caplog, stray, refused):
    (subset / stray).parent.mkdir(parents=True, exist_ok=True)
    (subset / stray).write_text("(stray)\n")
    if refused:
        with pytest.raises(GenplanError, match="not part of the pinned") as err:
            import_ipc2023("ferry", subset, tmp_path / "out", checksum_file=subset / "subset.sha256")
        assert err.value.path == subset / stray and not (tmp_path / "out").exists()
    else:
        with caplog.at_level("WARNING", logger="genplan"):
            import_ipc2023("ferry", subset, tmp_path / "out", checksum_file=subset / "subset.sha256")
        assert f"1 file(s) of {subset / 'ferry'} are not in the checksum list and are not imported, e.g. {stray}" \
            in caplog.text
