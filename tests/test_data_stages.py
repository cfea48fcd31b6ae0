"""Trajectories (VAL + pymimir), state spaces, the importer and the statistics table."""

import shutil

import numpy as np
import pytest
from conftest import run_cli

from genplan.errors import GenplanError
from genplan.formats import statespace as statespace_file
from genplan.formats.manifest import read as read_manifest
from genplan.mimir import MimirTask
from genplan.pddl_io import str_to_atom
from genplan.stages import importer, statespace, trajectories


def _imported(paper_splits, tmp_path, domain="gripper"):
    out = tmp_path / "problems" / domain
    importer.import_benchmark(domain, paper_splits, out)
    return out


def test_import_copies_instances_and_plans(paper_splits, tmp_path):
    out = _imported(paper_splits, tmp_path)
    rows = read_manifest(out)
    assert [sum(r["split"] == s for r in rows) for s in ("train", "validation", "interpolation", "extrapolation")] == [4, 2, 3, 16]
    assert sorted(r["size"] for r in rows if r["split"] == "train") == [2, 4, 6, 8]
    assert (out / "reference-plans" / "extrapolation" / "prob05.plan").is_file()


def test_import_rejects_changed_and_malformed_files(paper_splits, tmp_path):
    src = tmp_path / "src"
    shutil.copytree(paper_splits / "gripper", src / "gripper")
    target = src / "gripper" / "train" / "balls02.pddl"
    target.chmod(0o644)
    target.write_text(target.read_text().replace("ball1", "ballx", 1))
    with pytest.raises(GenplanError, match="checksum mismatch"):
        importer.import_benchmark("gripper", src, tmp_path / "out")
    target.write_text("(define (problem broken")
    res = run_cli("import", "--domain", "gripper", "--source", src, "--no-verify", "--out", tmp_path / "out")
    assert res.returncode == 1 and "balls02.pddl" in res.stderr and "malformed" in res.stderr
    assert not (tmp_path / "out").exists(), "no partial output"
    res = run_cli("import", "--domain", "chess", "--source", src, "--out", tmp_path / "out")
    assert res.returncode == 2 and "Unknown value" in res.stderr


def test_download_verifies_checksums(paper_splits, tmp_path):
    # a mirror in the release repository's layout (data/pddl, data/plans), served as file:// URLs
    mirror = tmp_path / "mirror"
    for rel in importer.release_checksums():
        if rel.startswith("gripper/"):
            dest = mirror / importer._upstream_url(rel, "")[1:]
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(paper_splits / rel, dest)
    got = importer.download_release("gripper", tmp_path / "dl", base_url=mirror.as_uri())
    assert (got / "train" / "balls02.pddl").is_file()
    bad = mirror / "pddl" / "gripper" / "train" / "balls04.pddl"
    bad.write_text("tampered")
    with pytest.raises(GenplanError, match="checksum mismatch"):
        importer.download_release("gripper", tmp_path / "dl2", base_url=mirror.as_uri())


def test_trajectory_agrees_with_pymimir(paper_splits, tmp_path):
    d = paper_splits / "logistics"
    problem = d / "train" / "p04g03-1.pddl"
    traj = trajectories.trajectory(d / "domain.pddl", problem, d / "reference-plans" / "train" / "p04g03-1.plan")
    assert len(traj["states"]) == traj["plan_length"] + 1
    assert all(not a.startswith("(in-city") for s in traj["states"] for a in s), "statics are kept apart"
    mimir = MimirTask(d / "domain.pddl", problem)
    state = mimir.initial_state()
    for action, expected in zip(traj["actions"], traj["states"][1:]):
        state = mimir.apply(state, str_to_atom(action))
        assert mimir.fluents(state) == {str_to_atom(a) for a in expected}


def test_trajectory_of_a_rejected_plan_fails(paper_splits, tmp_path):
    d = paper_splits / "blocks"
    bad = tmp_path / "bad.plan"
    bad.write_text("(pick-up b)\n(pick-up c)\n")
    with pytest.raises(GenplanError, match="VAL rejects the plan"):
        trajectories.trajectory(d / "domain.pddl", d / "train" / "probBLOCKS-4-0.pddl", bad)


def test_state_space_and_its_limit(paper_splits, tmp_path):
    out = _imported(paper_splits, tmp_path)
    table = statespace.statespaces_split(out, "train", 100000, tmp_path / "ss", tmp_path / "ss.csv")
    by_name = {r["problem"]: r for r in table}
    space = statespace_file.load(tmp_path / "ss" / "balls02.npz")
    assert by_name["balls02"]["states"] == len(space["h_star"]) == 28
    assert int(space["h_star"][int(space["initial"])]) == 5  # the optimal plan length of balls02
    assert np.all(space["h_star"][space["is_goal"]] == 0)
    # h* is consistent with the transitions: h(s) = 1 + min h(successor) for non-goal states
    h, src, dst = space["h_star"], space["src"], space["dst"]
    best = np.full(len(h), 10**9)
    np.minimum.at(best, src, h[dst])
    assert np.all(h[~space["is_goal"]] == best[~space["is_goal"]] + 1)
    res = run_cli("statespace", "--benchmark-dir", out, "--split", "train", "--max-states", 100,
                  "--out-dir", tmp_path / "small", "--out-table", tmp_path / "small.csv")
    assert res.returncode == 1 and "more than 100 states" in res.stderr and "balls" in res.stderr
    assert not (tmp_path / "small").exists() and not (tmp_path / "small.csv").exists()


def test_import_rejects_an_incomplete_copy(paper_splits, tmp_path):
    src = tmp_path / "src"
    shutil.copytree(paper_splits / "gripper", src / "gripper")
    (src / "gripper" / "test-extrapolation" / "prob20.pddl").unlink()
    with pytest.raises(GenplanError, match="incomplete copy of the release"):
        importer.import_benchmark("gripper", src, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_all_plans_keeps_each_distinct_valid_plan_once(paper_splits, tmp_path):
    """trajectories --all-plans: PlanGPT's several plans per problem, each VAL-checked, no duplicate."""
    from genplan.datasets.examples import trajectory_cases

    out = _imported(paper_splits, tmp_path)
    plans = tmp_path / "plans"
    plans.mkdir()
    ref = (out / "reference-plans" / "train" / "balls02.plan").read_text()
    lines = [l for l in ref.splitlines() if l.strip() and not l.startswith(";")]
    room = lines[0].split()[2]  # a detour: move to the other room and back before the plan
    other = [l for l in ref.split() if l.startswith("room")]
    away = next(r.rstrip(")") for r in other if r.rstrip(")") != room)
    detour = [f"(move {room} {away})", f"(move {away} {room})"] + lines
    (plans / "balls02.plan").write_text(ref)
    (plans / "balls02.astar_lmcut.plan").write_text(ref)                # the same plan: kept once
    (plans / "balls02.lama_first.plan").write_text("\n".join(detour) + "\n")
    (plans / "balls02.gbfs_ff.rejected.plan").write_text("(move nowhere)\n")  # rejected: never read
    table = tmp_path / "plans.csv"
    table.write_text("problem,config,status,plan_length,time,valid,reason,plan_file\n")
    doc = trajectories.trajectories_split(out, "train", plans, table, tmp_path / "t.json.gz", all_plans=True)
    rec = next(r for r in doc["problems"] if r["problem"] == "balls02")
    assert [a["config"] for a in rec["alternatives"]] == ["lama_first"]
    assert len(rec["alternatives"][0]["actions"]) == rec["plan_length"] + 2
    assert len(trajectory_cases(doc, suffixes=False)) == len(doc["problems"]) + 1
    plain = trajectories.trajectories_split(out, "train", plans, table, tmp_path / "p.json.gz")
    assert "alternatives" not in plain["problems"][0]


def test_a_plan_the_table_vouches_for_but_the_folder_lacks_is_refused(paper_splits, tmp_path):
    """A plans folder copied without its plan files (the table says VAL-valid, no file): trajectories
    refuses by name and writes nothing, instead of a document of 0 trajectories that training then
    refuses far from the cause."""
    out = _imported(paper_splits, tmp_path)
    plans = tmp_path / "plans"
    plans.mkdir()
    table = tmp_path / "plans.csv"
    problems = sorted(p.stem for p in (out / "train").glob("*.pddl"))
    table.write_text("problem,config,status,plan_length,time,valid,reason,plan_file\n" + "".join(
        f"{p},reference,satisficing,3,,yes,,{p}.reference.plan\n" for p in problems))
    with pytest.raises(GenplanError, match=rf"{problems[0]} a VAL-valid plan .* is missing"):
        trajectories.trajectories_split(out, "train", plans, table, tmp_path / "t.json.gz")
    assert not (tmp_path / "t.json.gz").exists()
    table.write_text("problem,config,status,plan_length,time,valid,reason,plan_file\n" + "".join(
        f"{p},lama_first,unsolved,,60,,time limit,\n" for p in problems))  # unsolved: listed, not refused
    doc = trajectories.trajectories_split(out, "train", plans, table, tmp_path / "t.json.gz")
    assert not doc["problems"] and len(doc["without_plan"]) == len(problems)
