"""Fast Downward and VAL for real: statuses, fallback, VAL verdicts, the plan stage's table."""



from conftest import run_cli

from genplan import val
from genplan.domains import domain_file
from genplan.formats.plans_table import best_known_lengths, read_table
from genplan.pddl_io import parse_domain, plan_to_text, problem_to_pddl
from genplan.stages.fast_downward import driver_time_limit, plan_with_fallback, run_fast_downward
from genplan.stages.generators import generate_size
from genplan.stages.plans import plan_split
from genplan.stages.problems import generate_benchmark

BLOCKS = domain_file("blocks")


def _write_problem(path, domain, objects, init, goal):
    path.write_text(problem_to_pddl(path.stem, parse_domain(domain_file(domain)).name, objects, init, goal))
    return path


def test_astar_finds_an_optimal_plan_that_val_accepts(paper_splits, tmp_path):
    problem = paper_splits / "blocks" / "train" / "probBLOCKS-4-0.pddl"
    res = run_fast_downward(BLOCKS, problem, "astar_lmcut", 30, 2048)
    assert res.status == "optimal" and len(res.plan) == 6
    plan = tmp_path / "p.plan"
    plan.write_text(plan_to_text(res.plan))
    verdict = val.validate(BLOCKS, problem, plan)
    assert verdict.valid and verdict.plan_length == 6 and len(verdict.effects) == 6


def test_val_names_the_failing_step(paper_splits, tmp_path):
    problem = paper_splits / "blocks" / "train" / "probBLOCKS-4-0.pddl"
    bad = tmp_path / "bad.plan"
    bad.write_text("(pick-up b)\n(stack b a)\n(stack c b)\n")
    res = val.validate(BLOCKS, problem, bad)
    assert not res.valid and res.failed_step == 3 and "(stack c b)" in res.message
    short = tmp_path / "short.plan"
    short.write_text("(pick-up b)\n")
    res = val.validate(BLOCKS, problem, short)
    assert not res.valid and "Goal not satisfied" in res.message
    # the hand-checking command: exit 0 only for a valid plan
    out = run_cli("validate", BLOCKS, problem, bad)
    assert out.returncode == 1 and "step 3" in out.stdout
    good = tmp_path / "good.plan"
    good.write_text("(pick-up b)\n(stack b a)\n(pick-up c)\n(stack c b)\n(pick-up d)\n(stack d c)\n")
    assert run_cli("validate", BLOCKS, problem, good).returncode == 0
    junk = tmp_path / "junk.plan"
    junk.write_text("(fly-away b)\n")
    out = run_cli("validate", BLOCKS, problem, junk)
    assert out.returncode == 1 and "Plan invalid" in out.stdout
    missing = run_cli("validate", BLOCKS, problem, tmp_path / "none.plan")
    assert missing.returncode == 1 and "none.plan" in missing.stderr


def test_unsolvable_problem_is_recorded(tmp_path):
    # a ball can never be `at` a gripper: Fast Downward proves the task unsolvable
    init = [("room", "rooma"), ("ball", "ball1"), ("gripper", "left"), ("at-robby", "rooma"), ("free", "left"), ("at", "ball1", "rooma")]
    problem = _write_problem(tmp_path / "unsolvable.pddl", "gripper", ["rooma", "ball1", "left"], init, [("at", "ball1", "left")])
    results = plan_with_fallback(domain_file("gripper"), problem, {"time_limit": 20}, {"time_limit": 20}, 2048)
    assert [r.status for r in results] == ["unsolvable"]


def test_timeout_falls_back_to_gbfs(tmp_path):
    import random

    prob = generate_size("blocks", 14, random.Random(3))
    problem = _write_problem(tmp_path / "big.pddl", "blocks", prob.objects, prob.init, prob.goal)
    results = plan_with_fallback(BLOCKS, problem, {"time_limit": 1}, {"time_limit": 60}, 2048)
    assert results[0].config == "astar_lmcut" and results[0].status == "timeout"
    assert results[1].config == "gbfs_ff" and results[1].status == "satisficing" and results[1].plan


def test_planner_crash_is_an_error_status(tmp_path):
    bad = tmp_path / "bad.pddl"
    bad.write_text("(define (problem p) (:domain blocks) (:objects a) (:init (clear a) (:goal (clear a)))")
    res = run_fast_downward(BLOCKS, bad, "astar_lmcut", 20, 2048)
    # the translator refuses the malformed file: the driver's code, named (genplan.stages.fd_codes)
    assert res.status == "error" and res.reason.startswith("TRANSLATE_"), res.reason


def test_plan_split_writes_plans_and_table(tmp_path):
    bench = tmp_path / "bench"
    cfg = {"sizes": {"train": [3, 4]}, "per_size": {"train": 2}}
    generate_benchmark("blocks", cfg, 0, bench)
    params = {"threads": 2, "memory_limit_mb": 2048, "optimal": {"time_limit": 20},
              "fallback": {"time_limit": 20}, "lama": {"time_limit": 20}}
    plan_split(bench, "train", params, tmp_path / "plans", tmp_path / "plans.csv")
    table = read_table(tmp_path / "plans.csv")
    assert {r["config"] for r in table} == {"astar_lmcut", "lama_first"}
    assert all(r["valid"] == "yes" for r in table)
    best = best_known_lengths(table)
    for r in table:
        if r["config"] == "astar_lmcut":
            assert int(r["plan_length"]) == best[r["problem"]]  # A* is optimal
            assert (tmp_path / "plans" / f"{r['problem']}.plan").is_file()
    assert not list(tmp_path.glob(".*tmp-*")), "no temporary files left behind"
    assert (tmp_path / "plans.csv").stat().st_mode & 0o044, "outputs are readable by the group, not private"
    missing = run_cli("trajectories", "--benchmark-dir", bench, "--split", "train", "--plans-dir", tmp_path / "plans",
                      "--plans-table", tmp_path / "none.csv", "--out", tmp_path / "t.json.gz")
    assert missing.returncode == 1 and "none.csv" in missing.stderr and "Traceback" not in missing.stderr


def _gripper_bench(tmp_path):
    bench = tmp_path / "bench"
    generate_benchmark("gripper", {"sizes": {"train": [1, 2]}, "per_size": {"train": 1}}, 0, bench)
    return bench


PARAMS = {"memory_limit_mb": 2048, "optimal": {"time_limit": 10}, "fallback": {"time_limit": 10}, "lama": {"time_limit": 10}}


def test_plan_with_a_malformed_problem_exits_1_and_its_rows_say_why(tmp_path):
    import json

    bench = _gripper_bench(tmp_path)
    bad = bench / "train" / "gripper-n2.pddl"
    bad.write_text("(define (problem gripper-n2) (:domain gripper) (:objects rooma")
    out = run_cli("plan", "--benchmark-dir", bench, "--split", "train", "--params", json.dumps(PARAMS),
                  "--out-dir", tmp_path / "plans", "--out-table", tmp_path / "plans.csv")
    assert out.returncode == 1, out.stderr
    errors = [l for l in out.stderr.splitlines() if l.startswith("genplan: error")]
    assert len(errors) == 1 and str(bad) in errors[0] and "malformed PDDL problem" in errors[0], out.stderr
    assert "Traceback" not in out.stderr
    assert "train: 1/2 problems have a VAL-valid plan" in out.stderr
    table = read_table(tmp_path / "plans.csv")  # written: the table says which problem and why
    bad_rows = [r for r in table if r["problem"] == "gripper-n2"]
    assert [r["config"] for r in bad_rows] == ["astar_lmcut", "gbfs_ff", "lama_first"]
    assert all(r["status"] == "error" and r["reason"].startswith("not planned: malformed PDDL problem") for r in bad_rows)
    assert {r["valid"] for r in table if r["problem"] == "gripper-n1"} == {"yes"}
    assert (tmp_path / "plans" / "gripper-n1.plan").is_file()
    assert not list((tmp_path / "plans").glob("gripper-n2*"))


def test_plan_split_without_astar_counts_every_valid_plan(tmp_path, caplog):
    # optimal.enabled is tested through the function: the CLI checks --params against the schema
    bench = _gripper_bench(tmp_path)
    params = {**PARAMS, "optimal": {"enabled": False, "time_limit": 10}}
    with caplog.at_level("INFO", logger="genplan"):
        table = plan_split(bench, "train", params, tmp_path / "plans", tmp_path / "plans.csv")
    assert [r["config"] for r in table] == ["gbfs_ff", "lama_first"] * 2
    assert (tmp_path / "plans" / "gripper-n2.plan").read_text() == (tmp_path / "plans" / "gripper-n2.gbfs_ff.plan").read_text()
    # only LAMA runs: the count is of every VAL-valid plan, LAMA's included
    params = {**params, "fallback": {"enabled": False}}
    with caplog.at_level("INFO", logger="genplan"):
        table = plan_split(bench, "train", params, tmp_path / "plans", tmp_path / "plans.csv")
    assert [r["config"] for r in table] == ["lama_first"] * 2 and all(r["valid"] == "yes" for r in table)
    assert "train: 2/2 problems have a VAL-valid plan (lama_first 2)" in caplog.text


def test_plan_files_plans_loose_problems(tmp_path):
    bench = _gripper_bench(tmp_path)
    problems = sorted((bench / "train").glob("*.pddl"))
    out = run_cli("plan-files", bench / "domain.pddl", *problems, "--time-limit", "10", "--memory-limit-mb", "2048",
                  "--out-dir", tmp_path / "out")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("gripper-n1: optimal by astar_lmcut, 3 steps, ") and lines[0].endswith("VAL: valid")
    assert lines[1].startswith("gripper-n2: optimal by astar_lmcut, 5 steps, ") and lines[1].endswith("VAL: valid")
    assert lines[2].startswith("2/2 problems have a VAL-valid plan (astar_lmcut 2)")
    table = read_table(tmp_path / "out" / "plans.csv")
    assert [(r["problem"], r["config"], r["status"], r["plan_length"], r["valid"], r["plan_file"]) for r in table] == [
        ("gripper-n1", "astar_lmcut", "optimal", "3", "yes", "gripper-n1.plan"),
        ("gripper-n2", "astar_lmcut", "optimal", "5", "yes", "gripper-n2.plan")]
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        ".genplan-output", "gripper-n1.plan", "gripper-n2.plan", "plans.csv"]  # the marker: genplan.outputs
    for p in problems:
        assert run_cli("validate", bench / "domain.pddl", p, tmp_path / "out" / f"{p.stem}.plan").returncode == 0


def test_plan_files_exits_1_unless_every_problem_has_a_valid_plan(tmp_path):
    bench = _gripper_bench(tmp_path)
    init = [("room", "rooma"), ("ball", "ball1"), ("gripper", "left"), ("at-robby", "rooma"), ("free", "left"), ("at", "ball1", "rooma")]
    unsolvable = _write_problem(tmp_path / "unsolvable.pddl", "gripper", ["rooma", "ball1", "left"], init, [("at", "ball1", "left")])
    bad = tmp_path / "bad.pddl"
    bad.write_text("(define (problem bad) (:domain gripper) (:objects rooma")
    args = ("--time-limit", "10", "--memory-limit-mb", "2048", "--out-dir", tmp_path / "out")
    out = run_cli("plan-files", bench / "domain.pddl", bench / "train" / "gripper-n1.pddl", unsolvable, *args)
    assert out.returncode == 1, out.stderr
    assert "unsolvable: unsolvable by astar_lmcut" in out.stdout and "1/2 problems have a VAL-valid plan" in out.stdout
    out = run_cli("plan-files", bench / "domain.pddl", bench / "train" / "gripper-n1.pddl", bad, "--planner", "gbfs_ff", *args)
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert "bad: error, not planned: malformed PDDL problem" in out.stdout and "1/2 problems have a VAL-valid plan" in out.stdout
    assert f"{bad}: malformed PDDL problem" in out.stderr
    table = read_table(tmp_path / "out" / "plans.csv")  # the earlier output was replaced
    assert [(r["problem"], r["config"], r["status"], r["valid"]) for r in table] == [
        ("gripper-n1", "gbfs_ff", "satisficing", "yes"), ("bad", "gbfs_ff", "error", "")]
    # a folder of other files is never replaced
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    out = run_cli("plan-files", bench / "domain.pddl", bench / "train" / "gripper-n1.pddl", "--out-dir", other)
    assert out.returncode == 1 and "not written by `genplan plan-files`" in out.stderr
    assert [p.name for p in other.iterdir()] == ["notes.txt"]


def test_plan_files_with_a_limit_under_two_seconds_gives_the_search_its_time(tmp_path):
    """`--overall-time-limit int(t)s` left the driver 0 s under 2 s (a time-out after 0.1 s) and cut
    1.9 to 1; the driver now gets the limit rounded up plus its own start."""
    bench = _gripper_bench(tmp_path)
    out = run_cli("plan-files", "--planner", "astar_lmcut", "--time-limit", "1.9", bench / "domain.pddl",
                  bench / "train" / "gripper-n1.pddl", "--out-dir", tmp_path / "out")
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.startswith("gripper-n1: optimal by astar_lmcut, 3 steps, ") and "VAL: valid" in out.stdout
    assert [driver_time_limit(t) for t in (0.5, 1, 1.9, 60)] == [2, 2, 3, 61]


def test_a_plan_longer_than_val_reads_is_named_not_checked(paper_splits, tmp_path):
    """VAL's parser refuses plans of about 10,000 steps ("Bad plan description!"); the verdict says so
    instead of naming only the plan file. 9,994 steps of the same kind are still checked."""
    problem = paper_splits / "blocks" / "train" / "probBLOCKS-4-0.pddl"
    good = "(pick-up b)\n(stack b a)\n(pick-up c)\n(stack c b)\n(pick-up d)\n(stack d c)\n"
    for loops, valid in ((4994, True), (4995, False)):  # 9,994 and 9,996 steps, both reaching the goal
        plan = tmp_path / f"long{loops}.plan"
        plan.write_text(good + "(unstack d c)\n(stack d c)\n" * loops)
        res = val.validate(BLOCKS, problem, plan)
        assert res.valid is valid, res.message
        if not valid:
            assert res.message == ("not checked: VAL's plan parser refuses plans of about 10,000 steps "
                                   "and more, and this plan has 9996")


def test_every_configurations_plans_are_stored_and_rechecked_by_validate_evaluation(tmp_path):
    # the plan files are not committed: the stored plans beside them are, and `genplan validate
    # --evaluation <plans table>` checks every planner's plans against the table from them alone
    import gzip
    import json

    bench = _gripper_bench(tmp_path)
    root = tmp_path / "root"
    table_path = root / "plans" / "generated" / "gripper" / "train.csv"
    (root / "problems" / "generated").mkdir(parents=True)
    bench = bench.rename(root / "problems" / "generated" / "gripper")
    params = {**PARAMS, "optimal": {"enabled": False, "time_limit": 10}, "fallback": {"enabled": False}}
    table = plan_split(bench, "train", params, table_path.with_suffix(""), table_path)
    assert all(r["cpu_time"] not in ("", None) and float(r["cpu_time"]) > 0 for r in table)  # the protocol's measure
    stored = table_path.with_suffix("") / "lama_first.plans.json.gz"
    doc = json.loads(gzip.decompress(stored.read_bytes()))
    assert doc["benchmark_dir"] == "problems/generated/gripper"  # relative: the results root travels
    ok = run_cli("validate", "--evaluation", table_path)
    assert ok.returncode == 0 and "2 agree, 0 disagree, 0 missing" in ok.stdout + ok.stderr, ok.stdout + ok.stderr
    name = next(iter(doc["problems"]))
    doc["problems"][name]["plan"] = doc["problems"][name]["plan"][:-1]  # one action short of the goal
    stored.write_bytes(gzip.compress((json.dumps(doc) + "\n").encode()))
    bad = run_cli("validate", "--evaluation", table_path)
    assert bad.returncode != 0 and "1 disagree" in bad.stdout + bad.stderr, bad.stdout + bad.stderr
