"""Per-problem resume (genplan.resume) of the two stages that plan a whole split in one job:
`plan_split` (real Fast Downward, real VAL) and `evaluate_split` (the throwaway `blind` family of
tests/fixtures/sixth_family: real pymimir, real VAL; its sequential and its worker-process path).
A job cut short after k problems leaves their records in `<output>.partial/`; the rerun plans only
the others, writes the outputs an uninterrupted run writes (the `time` column aside: the resumed
rows keep the first run's times) and removes the sidecar. A record made with other inputs or
settings, or that cannot be read, is removed and its problem planned again."""

from __future__ import annotations

import csv
import gzip
import json
import logging
from pathlib import Path

import pytest
from conftest import FIXTURES
from test_evaluate_parallel import SEARCH, _bench

from genplan import registry, resume
from genplan.evaluation import split as split_evaluation
from genplan.evaluation.split import evaluate_split
from genplan.formats import plans_table
from genplan.stages import plans
from genplan.stages.problems import generate_benchmark


class Cut(Exception):
    """The simulated end of a job (a signal, a time limit) after some problems."""


def _counting(monkeypatch, module, name: str, stop_after: int | None = None) -> list:
    """Wrap the real `module.name` (one call per problem): record each call's problem, and raise
    Cut on the call after `stop_after` calls."""
    current = getattr(module, name)
    real, calls = getattr(current, "real", current), []  # the real one, not an earlier wrapper

    def wrapper(*args, **kwargs):
        if stop_after is not None and len(calls) == stop_after:
            raise Cut
        calls.append(args)
        return real(*args, **kwargs)

    wrapper.real = real
    monkeypatch.setattr(module, name, wrapper)
    return calls


def _without_time(path: Path) -> list[dict]:
    """The rows without what a run measures (`time`, `cpu_time`, `peak_memory_mb`) and `problem_sha256` (an
    edited problem's differs; tests/test_content_hashes.py)."""
    with open(path, newline="") as fh:
        return [{k: v for k, v in r.items() if k not in ("time", plans_table.HASH, "cpu_time", "peak_memory_mb")}
                for r in csv.DictReader(fh)]


def _sidecar_files(output: Path) -> dict[str, dict]:
    folder = resume.sidecar_path(output)
    return {p.stem: json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))}


# --- the sidecar itself -------------------------------------------------------------------------


def test_a_sidecar_keeps_only_records_of_the_current_keys(tmp_path, caplog):
    side = resume.Sidecar(tmp_path / "out.csv")
    assert side.load({"a": "k"}) == {} and not side.folder.exists()  # nothing saved: no folder
    for problem in ("a", "b", "c", "d"):
        side.save(problem, f"key-{problem}", {"rows": [problem]})
    (side.folder / "c.json").write_text((side.folder / "c.json").read_text()[:20])  # truncated
    (side.folder / ".d.json.tmp-1-host-x").write_text("{")  # a writer's temporary: not a record
    with caplog.at_level(logging.INFO, logger="genplan"):
        found = side.load({"a": "key-a", "b": "other", "c": "key-c"})  # d: not a problem of the job
    assert found == {"a": {"rows": ["a"]}}
    assert sorted(p.name for p in side.folder.iterdir()) == [".d.json.tmp-1-host-x", "a.json"]
    assert "resumed 1 of 3 problems from" in caplog.text and "made with other inputs" in caplog.text
    assert "unreadable (JSONDecodeError)" in caplog.text
    side.remove()
    assert not side.folder.exists()


# --- genplan plan -------------------------------------------------------------------------------

PARAMS = {"memory_limit_mb": 2048, "optimal": {"time_limit": 10}, "fallback": {"time_limit": 10},
          "lama": {"time_limit": 10}}


@pytest.fixture(scope="module")
def gripper4(tmp_path_factory):
    """Four gripper problems (1 to 4 balls) and an uninterrupted run's outputs."""
    root = tmp_path_factory.mktemp("resume-plans")
    generate_benchmark("gripper", {"sizes": {"train": [1, 2, 3, 4]}, "per_size": {"train": 1}}, 0, root / "bench")
    plans.plan_split(root / "bench", "train", PARAMS, root / "ref", root / "ref.csv")
    return root / "bench", root / "ref", root / "ref.csv"


def _files(folder: Path) -> dict[str, object]:
    """A plans folder's files: the plan files' bytes; each stored-plans document's plan per problem (its
    table's name, benchmark folder and, for an edited problem, hashes differ from the reference run's);
    the output marker's file names (its byte counts follow from the documents)."""
    out: dict[str, object] = {}
    for p in sorted(folder.iterdir()):
        if p.name.endswith(".plans.json.gz"):
            doc = json.loads(gzip.decompress(p.read_bytes()))
            out[p.name] = {name: entry["plan"] for name, entry in doc["problems"].items()}
        elif p.name == ".genplan-output":
            out[p.name] = sorted(json.loads(p.read_text().split("\n", 1)[1])["entries"])
        else:
            out[p.name] = p.read_bytes()
    return out


def test_plan_resumes_the_problems_a_cut_run_finished(gripper4, tmp_path, monkeypatch, caplog):
    bench, ref_dir, ref_table = gripper4
    out_dir, table = tmp_path / "plans", tmp_path / "plans.csv"
    _counting(monkeypatch, plans, "_plan_problem", stop_after=2)
    with pytest.raises(Cut):
        plans.plan_split(bench, "train", PARAMS, out_dir, table)
    assert not out_dir.exists() and not table.exists()
    saved = _sidecar_files(table)
    assert sorted(saved) == ["gripper-n1", "gripper-n2"]  # each with its rows and plan files
    assert sorted(saved["gripper-n1"]["payload"]["files"]) == [
        "gripper-n1.astar_lmcut.plan", "gripper-n1.lama_first.plan", "gripper-n1.plan"]
    calls = _counting(monkeypatch, plans, "_plan_problem")
    with caplog.at_level(logging.INFO, logger="genplan"):
        plans.plan_split(bench, "train", PARAMS, out_dir, table, threads=2)  # the rest in run_pool's threads
    assert sorted(c[0]["problem"] for c in calls) == ["gripper-n3", "gripper-n4"]
    assert f"resumed 2 of 4 problems from {resume.sidecar_path(table)}" in caplog.text
    assert _without_time(table) == _without_time(ref_table) and _files(out_dir) == _files(ref_dir)
    resumed = [{k: v for k, v in r.items() if k != plans_table.HASH} for r in csv.DictReader(table.open())
               if r["problem"] in saved]
    first = [{k: str(v) for k, v in r.items()} for p in sorted(saved) for r in saved[p]["payload"]["rows"]]
    assert resumed == first  # the first run's rows, its times included
    assert not resume.sidecar_path(table).exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plans", "plans.csv"]


def test_plan_does_not_reuse_an_edited_problem_or_a_corrupt_record(gripper4, tmp_path, monkeypatch, caplog):
    _, ref_dir, ref_table = gripper4
    bench = tmp_path / "bench"
    generate_benchmark("gripper", {"sizes": {"train": [1, 2, 3, 4]}, "per_size": {"train": 1}}, 0, bench)
    out_dir, table = tmp_path / "plans", tmp_path / "plans.csv"
    _counting(monkeypatch, plans, "_plan_problem", stop_after=3)
    with pytest.raises(Cut):
        plans.plan_split(bench, "train", PARAMS, out_dir, table)
    problem = bench / "train" / "gripper-n1.pddl"
    problem.write_text("; edited\n" + problem.read_text())  # its plans may differ now: planned again
    record = resume.sidecar_path(table) / "gripper-n2.json"
    record.write_text(record.read_text()[:-40])  # a truncated record (a disk that filled up)
    calls = _counting(monkeypatch, plans, "_plan_problem")
    with caplog.at_level(logging.INFO, logger="genplan"):
        plans.plan_split(bench, "train", PARAMS, out_dir, table)
    assert sorted(c[0]["problem"] for c in calls) == ["gripper-n1", "gripper-n2", "gripper-n4"]
    assert "resumed 1 of 4 problems" in caplog.text and "gripper-n1.json: made with other inputs" in caplog.text
    assert "gripper-n2.json: unreadable" in caplog.text
    assert _without_time(table) == _without_time(ref_table) and _files(out_dir) == _files(ref_dir)
    # another planner setting (one that changes no plan here): nothing is reused
    _counting(monkeypatch, plans, "_plan_problem", stop_after=1)
    with pytest.raises(Cut):
        plans.plan_split(bench, "train", PARAMS, out_dir, table)
    calls = _counting(monkeypatch, plans, "_plan_problem")
    plans.plan_split(bench, "train", {**PARAMS, "fallback": {"time_limit": 11}, "lama": {"enabled": False}},
                     out_dir, table)
    assert len(calls) == 4 and not resume.sidecar_path(table).exists()


def test_plan_rechecks_resumed_plans_with_val(gripper4, tmp_path, monkeypatch, caplog):
    """A resumed problem's plans went into the table without VAL; one VAL no longer accepts
    (its record still says valid) gets the problem planned again."""
    bench, ref_dir, ref_table = gripper4
    out_dir, table = tmp_path / "plans", tmp_path / "plans.csv"
    _counting(monkeypatch, plans, "_plan_problem", stop_after=2)
    with pytest.raises(Cut):
        plans.plan_split(bench, "train", PARAMS, out_dir, table)
    record = resume.sidecar_path(table) / "gripper-n2.json"
    saved = json.loads(record.read_text())
    files = saved["payload"]["files"]
    files["gripper-n2.astar_lmcut.plan"] = files["gripper-n2.astar_lmcut.plan"].split("\n", 1)[1]  # first action gone
    record.write_text(json.dumps(saved) + "\n")
    calls = _counting(monkeypatch, plans, "_plan_problem")
    with caplog.at_level(logging.INFO, logger="genplan"):
        plans.plan_split(bench, "train", PARAMS, out_dir, table)
    assert sorted(c[0]["problem"] for c in calls) == ["gripper-n2", "gripper-n3", "gripper-n4"]
    assert "gripper-n2: the sidecar's astar_lmcut row says valid='yes', VAL now 'no'" in caplog.text
    assert _without_time(table) == _without_time(ref_table) and _files(out_dir) == _files(ref_dir)


# --- genplan evaluate ---------------------------------------------------------------------------


@pytest.fixture
def blind(tmp_path_factory, monkeypatch):
    """The bench of tests/test_evaluate_parallel.py and a blind checkpoint, the family registered
    in this process (and, through GENPLAN_FAMILIES and the path, in its worker processes)."""
    monkeypatch.syspath_prepend(str(FIXTURES))
    monkeypatch.setenv("GENPLAN_FAMILIES", "sixth_family")
    from sixth_family import FAMILY
    from sixth_family.family import train

    monkeypatch.setitem(registry.FAMILIES, "blind", registry.Family(**FAMILY))
    root = tmp_path_factory.mktemp("resume-eval")
    bench, tables = _bench(root)
    train("blind", {"family": "blind"}, "gripper", {}, 13, root / "m.ckpt")
    return bench, tables["easy"], root / "m.ckpt"


def _evaluate(blind, out: Path, settings=SEARCH, jobs: int = 1) -> list[dict]:
    bench, table, ckpt = blind
    return evaluate_split(ckpt, bench, "easy", table, "gbfs", settings, out, seed="13", jobs=jobs)


def test_evaluate_resumes_in_both_paths(blind, tmp_path, monkeypatch, caplog):
    """Cut after 2 problems (sequential), then after 1 more (2 worker processes), then finished
    (sequential): 2 problems planned by the last run, the outputs of an uninterrupted run."""
    ref, out = tmp_path / "ref" / "easy.gbfs.csv", tmp_path / "eval" / "easy.gbfs.csv"
    _evaluate(blind, ref)
    _counting(monkeypatch, split_evaluation, "evaluate_problem", stop_after=2)
    with pytest.raises(Cut):
        _evaluate(blind, out)
    assert sorted(_sidecar_files(out)) == ["g1", "g2"] and not out.exists()

    from genplan.evaluation import parallel as parallel_eval

    real_rows, sent = parallel_eval.evaluate_rows, []

    def cut_after_one(checkpoint, domain, strategy, settings, tasks, jobs, *rest):
        sent.extend(t[0]["problem"] for t in tasks)
        rows = real_rows(checkpoint, domain, strategy, settings, tasks, jobs, *rest)
        try:
            yield next(rows)
            raise Cut
        finally:
            rows.close()

    monkeypatch.setattr(parallel_eval, "evaluate_rows", cut_after_one)
    with pytest.raises(Cut):
        _evaluate(blind, out, jobs=2)
    assert sent == ["g3", "gx", "g4"] and len(_sidecar_files(out)) == 3
    saved = _sidecar_files(out)
    calls = _counting(monkeypatch, split_evaluation, "evaluate_problem")
    with caplog.at_level(logging.INFO, logger="genplan"):
        records = _evaluate(blind, out)
    assert len(calls) == 2 and "resumed 3 of 5 problems from" in caplog.text
    assert _without_time(out) == _without_time(ref)
    assert out.with_name("easy.gbfs.plans.json.gz").read_bytes() == ref.with_name("easy.gbfs.plans.json.gz").read_bytes()
    times = {r["problem"]: r["time"] for r in csv.DictReader(out.open())}
    assert all(times[p] == s["payload"]["time"] for p, s in saved.items())  # the first runs' times
    assert [r["plan"] is None for r in records] == [False, False, False, True, False]  # gx: refused
    assert not resume.sidecar_path(out).exists() and sorted(p.name for p in out.parent.iterdir()) == [
        "easy.gbfs.csv", "easy.gbfs.plans.json.gz"]


def test_evaluate_replans_under_other_settings_or_a_corrupt_record(blind, tmp_path, monkeypatch):
    out = tmp_path / "easy.gbfs.csv"
    _counting(monkeypatch, split_evaluation, "evaluate_problem", stop_after=3)
    with pytest.raises(Cut):
        _evaluate(blind, out)
    record = resume.sidecar_path(out) / "g2.json"
    record.write_text(record.read_text()[:30])
    calls = _counting(monkeypatch, split_evaluation, "evaluate_problem", stop_after=2)
    with pytest.raises(Cut):
        _evaluate(blind, out)
    assert [c[2]["problem"] for c in calls] == ["g2", "gx"]  # g1 and g3 kept, g2's record unreadable
    calls = _counting(monkeypatch, split_evaluation, "evaluate_problem")
    other = {"search": {**SEARCH["search"], "max_expansions": 9999}}
    _evaluate(blind, out, settings=other)
    assert len(calls) == 5 and not resume.sidecar_path(out).exists()


def test_a_run_a_signal_ended_is_never_kept_for_a_rerun():
    """The driver killed (-n), or its search killed and passed on as 256 - n (247 SIGKILL, 241
    SIGTERM): not kept; the search's own CPU limit (SIGXCPU: -24, 232), a clean exit or an
    ordinary error code: kept."""
    from genplan.stages.fast_downward import PlanResult
    from genplan.stages.plans import _signalled

    def ended(code):
        return _signalled(PlanResult("lama_first", "error", None, 1.0, "", code))

    assert all(ended(c) for c in (-9, -15, 247, 241))
    assert not any(ended(c) for c in (None, 0, 1, 12, 23, -24, 232))


def test_the_resume_key_changes_with_genplan_source(monkeypatch):
    """A record made before a code change is not reused after it: genplan's source is in every key."""
    from genplan import resume

    before = resume.key(problem="p01")
    monkeypatch.setitem(resume.versions(), "genplan_source", "another")
    assert resume.key(problem="p01") != before and "genplan_source" in resume.versions()
