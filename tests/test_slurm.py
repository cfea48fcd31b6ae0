"""Cluster execution, for real: the SLURM profile drives a one-node SLURM cluster on localhost.

The `slurm`-marked tests start munge, slurmctld and slurmd (tests/slurm_cluster.py; apt-get
installs them where missing; skipped with the reason when that is impossible), then, in a
temporary copy of the repository:
- run the smoke configuration through profiles/slurm-noacct and check that every job ran as a
  SLURM job (job ids from the plugin, COMPLETED in `squeue --states=all`, one kept log per job),
  and that the data stages' outputs equal those of the workflow tests' local smoke run
  (conftest.smoke_run, in another copy);
- check that the training jobs (`gpu: 1`) landed in the `gpu` partition with one GPU allocated;
- make one job fail on its first attempt and check that the profile's retries finish the run;
- kill snakemake (SIGKILL) while a job runs, and check that the rerun completes, redoes only the
  unfinished jobs and leaves no incomplete output behind.
The profiles themselves (no cluster needed) are checked in tests/test_slurm_profile.py.
"""

from __future__ import annotations

import csv
import gzip
import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from slurm_cluster import ClusterUnavailable, SlurmCluster

REPO = Path(__file__).resolve().parents[1]
SNAKEMAKE = [sys.executable, "-m", "snakemake"]
TEST_PROFILE = "profiles/slurm-noacct"
SMOKE = "workflow/configs/smoke.yaml"
# the smoke configuration with one of its two domains, evaluated on the validation split only, with one
# GPU-family and one CPU-family model (tests/slurm-smoke.yaml): every stage (problems to the reports, a
# `train_model` and a `train_model_cpu` job), 22 SLURM jobs, so that the file stays within a few minutes
# `--cores 2`: the profiles' group jobs (8 evaluation jobs side by side) fit the one-node cluster of this machine
SMOKE_ARGS = ["--configfile", SMOKE, "tests/slurm-smoke.yaml", "--config", "domains=[gripper]", "--cores", "2",
              # a one-node cluster answers at once: job states every 2 s, the first 1 s after submission (the
              # profile's 5 and Snakemake's 10 are for shared clusters; squeue's MinJobAge covers shorter ones)
              "--seconds-between-status-checks", "2", "--slurm-init-seconds-before-status-checks", "1"]
# the evaluation rule's group (common.smk: evaluation_group, the jobs of one trained model) and the profiles'
# `group-components`; the plugin logs a group job under group_<group>_<its rules>. The test's `--cores 2` over
# one evaluation thread: groups of at most 2
EVAL_GROUP, EVAL_GROUP_SIZE = "group_evaluation", 2
# the only keys in which the test profile may differ from the site profile
NOACCT_KEYS = {"slurm-status-command", "slurm-init-seconds-before-status-checks", "slurm-no-account"}
GPU_RULES = {"train_model"}  # the CPU-only families train in train_model_cpu, on the cpu partition
TRAINING_RULES = GPU_RULES | {"train_model_cpu"}
# copied into the temporary repositories: everything but outputs, caches and VCS data
SKIP_TOP = {"results", "runs", "logs", ".snakemake", ".git", ".pytest_cache", ".benchmarks", ".venv", "build",
            ".whl", ".gl", ".ci"}
DATA_STAGES = ("problems", "plans", "trajectories", "statespaces")  # compared with the local smoke run
# a rule's job has a number, a group job a UUID
SUBMITTED = re.compile(r"Job ([\w-]+) has been submitted with SLURM jobid (\d+) \(log: (\S+)\)\.")


def copy_repo(dest: Path) -> Path:
    def ignore(folder, names):
        skip = {n for n in names if n in ("__pycache__",) or n.endswith(".egg-info")}
        if Path(folder).resolve() == REPO:
            skip |= SKIP_TOP & set(names)
        return skip

    shutil.copytree(REPO, dest, ignore=ignore, symlinks=True)
    return dest


def snakemake_cmd(*args: str, limit: int) -> list[str]:
    # always under `timeout -k`: a plugin that waits on a broken status command never ends by itself
    return ["timeout", "-k", "15", str(limit), *SNAKEMAKE, *args]


def run_snakemake(cwd: Path, *args: str, limit: int = 300, env: dict | None = None) -> tuple[subprocess.CompletedProcess, float]:
    t0 = time.monotonic()
    res = subprocess.run(snakemake_cmd(*args, limit=limit), cwd=cwd, capture_output=True, text=True, env=env)
    return res, time.monotonic() - t0


def submissions(log_text: str, repo: Path) -> list[dict]:
    """The plugin's 'submitted with SLURM jobid' lines: rule, wildcards folder, SLURM id, log."""
    out = []
    for _, slurm_id, log in SUBMITTED.findall(log_text):
        rel = Path(log).relative_to(repo / ".snakemake" / "slurm_logs")
        out.append({"rule": rel.parts[0].removeprefix("rule_"), "where": "/".join(rel.parts[1:-1]),
                    "slurm_id": slurm_id, "log": Path(log)})
    return out


def squeue_all() -> dict[str, dict]:
    res = subprocess.run(["squeue", "--states=all", "-h", "-o", "%i|%T|%P|%j"], capture_output=True,
                         text=True, timeout=30, check=True)
    rows = {}
    for line in res.stdout.splitlines():
        jid, state, part, name = line.strip().split("|")
        rows[jid] = {"state": state, "partition": part, "name": name}
    return rows


def job_counts(log_text: str) -> dict[str, int]:
    """The 'Job stats' table snakemake prints before running."""
    counts = {}
    block = log_text.split("Job stats:", 1)[1].split("total", 1)[0]
    for line in block.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit():
            counts[parts[0]] = int(parts[1])
    return counts


# ----------------------------------------------------------------------------------------------
# deterministic content of the outputs, for comparing two runs (timings left out)

def _drop_timings(value):
    if isinstance(value, dict):
        return {k: _drop_timings(v) for k, v in value.items() if not re.search(r"time|seconds", k)}
    if isinstance(value, list):
        return [_drop_timings(v) for v in value]
    return value


def _csv_rows(path: Path, drop=("time", "seconds")) -> list[dict]:
    with path.open(newline="") as fh:
        return [{k: v for k, v in row.items() if k not in drop} for row in csv.DictReader(fh)]


def deterministic_outputs(repo: Path) -> dict[str, object]:
    res = repo / "runs" / "smoke"
    out: dict[str, object] = {}
    for f in sorted((res / "problems").rglob("*")):
        if f.is_file():  # PDDL files and manifests, byte for byte
            out[str(f.relative_to(repo))] = f.read_bytes()
    for f in sorted((res / "plans").glob("*/*/*.csv")):  # status and plan length per problem and planner
        out[str(f.relative_to(repo))] = [
            (r["problem"], r["config"], r["status"], r["plan_length"], r.get("valid")) for r in _csv_rows(f)]
    for f in sorted((res / "trajectories").rglob("*.json.gz")):
        out[str(f.relative_to(repo))] = _drop_timings(json.loads(gzip.decompress(f.read_bytes())))
    for f in sorted((res / "statespaces").glob("*/*/*.csv")):
        out[str(f.relative_to(repo))] = _csv_rows(f)
    for f in sorted((res / "tables").glob("*.csv")):
        out[str(f.relative_to(repo))] = _csv_rows(f)
    return out


# ----------------------------------------------------------------------------------------------
# the real cluster

@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    if os.environ.get("GENPLAN_SKIP_SLURM"):
        pytest.skip("GENPLAN_SKIP_SLURM is set")
    c = SlurmCluster(tmp_path_factory.mktemp("slurm-cluster"))
    try:
        c.start()
    except ClusterUnavailable as exc:
        if os.environ.get("GENPLAN_REQUIRE_SLURM"):  # CI, where SLURM can be installed: a failure
            pytest.fail(f"GENPLAN_REQUIRE_SLURM is set but the local SLURM cluster did not start: {exc}")
        pytest.skip(f"no local SLURM cluster: {exc}")
    yield c
    c.stop()


@pytest.fixture(scope="module")
def slurm_run(cluster, smoke_run, tmp_path_factory):
    """The smoke configuration through the test profile on the cluster; beside it, for comparison,
    the local smoke run of the workflow tests (conftest.smoke_run, whose data stages are the same)."""
    slurm_repo = copy_repo(tmp_path_factory.mktemp("smoke") / "slurm")
    res, wall = run_snakemake(slurm_repo, "--profile", TEST_PROFILE, "all", *SMOKE_ARGS, limit=600)
    text = res.stdout + res.stderr
    assert res.returncode == 0, text[-4000:]
    return {"repo": slurm_repo, "local_repo": smoke_run, "log": text, "wall": wall}


def _report(title: str, lines: list[str]) -> None:
    print(f"\n== {title}\n" + "\n".join(lines))


@pytest.mark.slurm
def test_every_job_ran_as_a_slurm_job(slurm_run):
    repo, text = slurm_run["repo"], slurm_run["log"]
    counts = job_counts(text)
    # `all` is a local rule; the evaluation jobs go to SLURM in groups (small jobs packed, so that the queue is not flooded)
    expected = sum(n for rule, n in counts.items() if rule not in ("all", "evaluate_model"))
    subs = submissions(text, repo)
    groups = [s for s in subs if s["rule"].startswith(EVAL_GROUP)]
    assert len(subs) - len(groups) == expected, f"{len(subs) - len(groups)} SLURM submissions for {expected} jobs"
    # one trained model's evaluations per group, at most EVAL_GROUP_SIZE of them
    assert -(-counts["evaluate_model"] // EVAL_GROUP_SIZE) <= len(groups) <= counts["evaluate_model"], (
        len(groups), counts["evaluate_model"])
    queue = squeue_all()
    ids = [s["slurm_id"] for s in subs]
    assert len(set(ids)) == len(ids)
    for s in subs:
        assert queue[s["slurm_id"]]["state"] == "COMPLETED", (s, queue.get(s["slurm_id"]))
        assert s["log"].is_file(), f"missing SLURM log {s['log']}"
        assert queue[s["slurm_id"]]["partition"] == ("gpu" if s["rule"] in GPU_RULES else "cpu")
    per_rule = {r: sum(1 for s in subs if s["rule"] == r) for r in sorted({s["rule"] for s in subs})}
    _report("smoke configuration on SLURM", [
        f"jobs: {len(subs)} SLURM jobs ({per_rule}; {counts['evaluate_model']} evaluation jobs in {len(groups)} "
        "group jobs) + the local rule `all`",
        f"SLURM job ids: {', '.join(sorted(ids, key=int))} (all COMPLETED in squeue --states=all)",
        f"wall time: {slurm_run['wall']:.0f} s"])


@pytest.mark.slurm
def test_outputs_equal_a_local_run(slurm_run):
    # the data stages of the cluster run (Gripper only), against the same files of the local run
    ours = {k: v for k, v in deterministic_outputs(slurm_run["repo"]).items() if k.split("/")[2] in DATA_STAGES}
    local = {k: v for k, v in deterministic_outputs(slurm_run["local_repo"]).items() if k in ours}
    assert len(ours) > 10
    assert ours.keys() == local.keys()
    differing = [k for k in ours if ours[k] != local[k]]
    assert not differing, f"SLURM and local runs differ in {differing}"
    kinds = {}
    for k in ours:
        kind = k.split("/")[2]  # runs/smoke/<stage>/...
        kinds[kind] = kinds.get(kind, 0) + 1
    _report("SLURM run against a local run", [f"identical deterministic content of {len(ours)} files: {kinds}"])


@pytest.mark.slurm
def test_training_jobs_ask_for_a_gpu_only_to_train_on_it(slurm_run):
    """A training job asks for a GPU (`train_model`, gpu partition) only when it will train on one: its family
    trains on GPUs and `training.device` is not cpu. tests/slurm-smoke.yaml trains on the CPU (the one-node
    cluster's GPU is a fake one), so every training job, symt_e's too, runs in `train_model_cpu` in the cpu
    partition with no GPU allocated (the GPU route's resources are checked by the profile's dry runs,
    tests/test_slurm_profile.py and tests/test_cluster_resources.py)."""
    jobs = [s for s in submissions(slurm_run["log"], slurm_run["repo"]) if s["rule"] in TRAINING_RULES]
    import yaml

    from genplan import registry

    repo = slurm_run["repo"]
    models = yaml.safe_load((repo / "workflow" / "configs" / "smoke.yaml").read_text())["models"]
    device = yaml.safe_load((repo / "tests" / "slurm-smoke.yaml").read_text())["training"]["device"]
    assert jobs and {s["rule"] for s in jobs} <= TRAINING_RULES, [(s["rule"], s["where"]) for s in jobs]
    queue, lines = squeue_all(), []
    for s in jobs:
        # the plugin's log folder joins the wildcards: <benchmark>_<domain>_<model>_<seed>
        model = next(m for m in models if re.fullmatch(rf"[^_]+_[^_]+_{re.escape(m)}_\d+", s["where"]))
        wants = registry.family(models[model]["family"]).gpu and device != "cpu"
        assert (s["rule"] in GPU_RULES) == wants, s
        partition = queue[s["slurm_id"]]["partition"]
        assert partition == ("gpu" if wants else "cpu"), (s, partition)
        job = subprocess.run(["scontrol", "show", "job", s["slurm_id"]], capture_output=True, text=True).stdout
        gpus = re.search(r"TresPerJob=(gres:gpu:1)|(gres/gpu=1)", job)  # sbatch --gpus=1 (after the job: as asked)
        assert bool(gpus) == wants, job
        lines.append(f"{s['rule']} {s['where']}: SLURM job {s['slurm_id']}, partition {partition}, "
                     f"{gpus.group(0) if gpus else 'no GPU asked (' + models[model]['family'] + ', device ' + device + ')'}")
    _report("a GPU only for a job that trains on it", lines)


FAULT_SHIM = """#!/bin/sh
# Fails the first `genplan plan` of {domain}/{split} once: the marker file is consumed by the
# first attempt (rm succeeds only once), every other call goes to the real genplan.
case " $* " in
  *" plan "*"/{domain} "*"--split {split} "*)
    if rm "{marker}" 2>/dev/null; then echo "$SLURM_JOB_ID" > "{marker}.hit"; exit 3; fi ;;
esac
exec {real} "$@"
"""


@pytest.mark.slurm
def test_failed_job_is_retried(slurm_run, tmp_path):
    repo = slurm_run["repo"]
    shim_dir, marker = tmp_path / "bin", tmp_path / "fault-once"
    shim_dir.mkdir()
    shim = shim_dir / "genplan"
    shim.write_text(FAULT_SHIM.format(domain="gripper", split="validation", marker=marker,
                                      real=shutil.which("genplan")))
    shim.chmod(shim.stat().st_mode | stat.S_IXUSR)
    marker.touch()
    env = dict(os.environ, PATH=f"{shim_dir}{os.pathsep}{os.environ['PATH']}")  # sbatch --export=ALL carries it
    target = "runs/smoke/plans/generated/gripper/validation.csv"
    before = deterministic_outputs(repo)[target]
    res, wall = run_snakemake(repo, "--profile", TEST_PROFILE, target, "--forcerun", "plan_split",
                              *SMOKE_ARGS, env=env, limit=240)
    text = res.stdout + res.stderr
    assert res.returncode == 0, text[-4000:]
    assert not marker.exists(), "the fault was never triggered"
    subs = submissions(text, repo)
    assert [s["rule"] for s in subs] == ["plan_split", "plan_split"], subs
    queue = squeue_all()
    states = [queue[s["slurm_id"]]["state"] for s in subs]
    assert states == ["FAILED", "COMPLETED"], states
    assert Path(f"{marker}.hit").read_text().strip() == subs[0]["slurm_id"]  # the fault hit the first SLURM job
    assert deterministic_outputs(repo)[target] == before
    _report("a job that fails once", [
        f"plan_split gripper/validation: SLURM job {subs[0]['slurm_id']} {states[0]}, "
        f"retried as {subs[1]['slurm_id']} {states[1]}; snakemake exit 0 after {wall:.0f} s; output as before"])


@pytest.mark.slurm
def test_interrupted_run_resumes_without_redoing_finished_jobs(slurm_run):
    repo = slurm_run["repo"]
    # four jobs to redo: plans and trajectories of two gripper splits
    splits = ("train", "interpolation")
    targets = [f"runs/smoke/trajectories/generated/gripper/{s}.json.gz" for s in splits]
    outputs = {f"runs/smoke/plans/generated/gripper/{s}.csv" for s in splits} | set(targets)
    for s in splits:
        shutil.rmtree(repo / f"runs/smoke/plans/generated/gripper/{s}")
    for o in outputs:
        (repo / o).unlink()
    cmd = snakemake_cmd("--profile", TEST_PROFILE, *targets, *SMOKE_ARGS, limit=240)
    proc = subprocess.Popen(cmd, cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    # read until the first job has finished and another has been submitted after it, then kill
    seen, finished, running_after_finish = [], 0, False
    deadline = time.monotonic() + 180
    for line in proc.stdout:
        seen.append(line)
        if line.startswith("Finished jobid"):
            finished += 1
        elif finished and SUBMITTED.search(line):
            running_after_finish = True
            time.sleep(2)  # let the job start on the node
            break
        if time.monotonic() > deadline:
            break
    assert running_after_finish, "".join(seen)[-3000:]
    os.killpg(proc.pid, signal.SIGKILL)  # snakemake and `timeout` die at once, like a lost login node
    proc.wait()
    first = "".join(seen)
    in_flight = submissions(first, repo)
    # the SLURM jobs outlive snakemake: cancel them, as a user would (or wait for them to end)
    # (all jobs of the run by its name, the run's id: one may have been submitted after we stopped reading)
    run_name = squeue_all()[in_flight[0]["slurm_id"]]["name"]
    subprocess.run(["scancel", "--name", run_name], capture_output=True, timeout=30)
    _wait_queue_empty({jid for jid, row in squeue_all().items() if row["name"] == run_name})
    _wait_no_process_in(repo)  # a cancelled job's processes may outlive its CANCELLED state a little
    at_restart = {o: ("complete" if (repo / o).exists() and not _incomplete(repo, o)
                      else "incomplete" if (repo / o).exists() else "missing") for o in sorted(outputs)}
    complete = {o: (repo / o).stat().st_mtime_ns for o, st in at_restart.items() if st == "complete"}
    assert complete, f"no job had finished before the kill: {at_restart}"
    assert len(complete) < len(outputs), f"every job had finished before the kill: {at_restart}"
    # rerun the same command; a killed snakemake leaves its lock behind: --unlock, then rerun
    res, wall = run_snakemake(repo, "--profile", TEST_PROFILE, *targets, *SMOKE_ARGS, limit=240)
    locked = res.returncode != 0 and "cannot be locked" in res.stdout + res.stderr
    if locked:
        unlock, _ = run_snakemake(repo, "--unlock", *targets, *SMOKE_ARGS, limit=120)
        assert unlock.returncode == 0, unlock.stderr[-2000:]
        res, wall = run_snakemake(repo, "--profile", TEST_PROFILE, *targets, *SMOKE_ARGS, limit=240)
    text = res.stdout + res.stderr
    assert res.returncode == 0, text[-4000:]
    rerun = submissions(text, repo)
    # one job per output here: exactly the unfinished ones are redone
    assert len(rerun) == len(outputs) - len(complete), (at_restart, [(s["rule"], s["where"]) for s in rerun])
    for o, mtime in complete.items():
        assert (repo / o).stat().st_mtime_ns == mtime, f"{o} was redone"
    assert all((repo / o).exists() and not _incomplete(repo, o) for o in outputs)
    assert not any(p.is_file() for p in (repo / ".snakemake" / "incomplete").rglob("*")), "incomplete markers left"
    _report("interrupted with SIGKILL, then rerun", [
        f"first run: SLURM jobs {', '.join(s['slurm_id'] for s in in_flight)} submitted, snakemake killed after "
        f"{finished} finished job(s), the running ones cancelled; at restart: {at_restart}",
        f"lock left behind: {locked} (snakemake --unlock)",
        f"rerun: {len(rerun)} job(s) {[(s['rule'], s['where'], s['slurm_id']) for s in rerun]} in {wall:.0f} s; "
        f"the {len(complete)} finished output(s) untouched, no incomplete marker left"])


def _incomplete(repo: Path, output: str) -> bool:
    """Whether snakemake's metadata marks `output` as incomplete (its job started, never finished)."""
    import base64

    marker = base64.urlsafe_b64encode(output.encode()).decode()
    return any(p.name == marker for p in (repo / ".snakemake" / "incomplete").rglob("*"))


def _wait_queue_empty(ids: set[str], timeout: float = 120) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        queue = squeue_all()
        if all(queue.get(i, {}).get("state") not in ("PENDING", "RUNNING", "COMPLETING") for i in ids):
            return
        time.sleep(1)
    raise AssertionError(f"SLURM jobs {ids} still in the queue after {timeout} s")


def _wait_no_process_in(repo: Path, timeout: float = 180) -> None:
    """Wait until no process (the jobs' snakemake, genplan) works in `repo` any more."""
    def busy() -> list[int]:
        pids = []
        for proc in Path("/proc").iterdir():
            if proc.name.isdigit() and int(proc.name) != os.getpid():
                try:
                    if Path(os.readlink(proc / "cwd")) == repo.resolve():
                        pids.append(int(proc.name))
                except OSError:
                    pass
        return pids

    end = time.monotonic() + timeout
    while busy():
        if time.monotonic() > end:
            raise AssertionError(f"processes {busy()} still work in {repo} after {timeout} s")
        time.sleep(0.5)
