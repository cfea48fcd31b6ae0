"""`genplan cluster-plan` (the cost before the run): the jobs of a dry run, priced by the GPU
check's measured rates and the committed CPU runs' jobstats."""

from __future__ import annotations

import pytest

from genplan import cluster_plan
from genplan.errors import GenplanError

DRY = """Building DAG of jobs...
[Sat Nov 28 21:49:55 2026]
rule train_model:
    output: runs/paper/models/paper/blocks/symt_ed/seed13/model.ckpt
    jobid: 7
    benchmark: runs/paper/jobstats/training/paper/blocks/symt_ed/seed13.tsv
    wildcards: benchmark=paper, domain=blocks, model=symt_ed, seed=13
    threads: 4
    resources: tmpdir=/tmp, mem_mb=16000, slurm_partition=gpu, runtime=720, gpu=1
Shell command: genplan train ...

[Sat Nov 28 21:49:56 2026] Group job evaluation (jobs in lexicogr. order):

    [Sat Nov 28 21:49:56 2026]
    rule evaluate_model:
        jobid: 1695
        benchmark: runs/paper/jobstats/evaluation/paper/blocks/symt_ed/seed14/interpolation.greedy.tsv
        wildcards: benchmark=paper, domain=blocks, model=symt_ed, seed=14, split=interpolation, strategy=greedy
        resources: tmpdir=/tmp, mem_mb=8000, slurm_partition=cpu, runtime=720
Shell command: genplan evaluate ...

    [Sat Nov 28 21:49:56 2026]
    rule evaluate_model:
        jobid: 1696
        benchmark: runs/paper/jobstats/evaluation/paper/gripper/symt_ed/seed14/validation.greedy.tsv
        wildcards: benchmark=paper, domain=gripper, model=symt_ed, seed=14, split=validation, strategy=greedy
        resources: tmpdir=/tmp, mem_mb=8000, slurm_partition=cpu, runtime=720
Shell command: genplan evaluate ...

[Sat Nov 28 21:49:57 2026]
localrule all:
    jobid: 0
"""


def test_dry_run_jobs_and_groups_are_read():
    jobs = cluster_plan.parse_dry_run(DRY)
    assert [j.rule for j in jobs] == ["train_model", "evaluate_model", "evaluate_model", "all"]
    train, ev1, ev2, _ = jobs
    assert train.threads == 4 and train.res("gpu") == 1 and train.res("runtime") == 720 and train.group is None
    assert train.wildcards == {"benchmark": "paper", "domain": "blocks", "model": "symt_ed", "seed": "13"}
    assert ev1.group == ev2.group == 0 and ev1.threads == 1
    assert ev2.benchmark.endswith("gripper/symt_ed/seed14/validation.greedy.tsv")


def test_jobstats_are_found_at_the_nearest_level(tmp_path):
    root = tmp_path / "jobstats"
    head = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"
    for rel, s, cpu in (("evaluation/paper/blocks/symt_ed/seed13/interpolation.greedy.tsv", 100, 90),
                        ("evaluation/paper/blocks/symt_ed/seed13/validation.greedy.tsv", 300, 270),
                        ("evaluation/paper/gripper/plangpt/seed13/validation.greedy.tsv", 50, 40)):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(head + f"{s}\t0:00:00\t1\t1\t1\t1\t0\t2.0\t90\t{cpu}\n")
    m = cluster_plan.Measured([root])
    found, level = m.find("runs/paper/jobstats/evaluation/paper/blocks/symt_ed/seed13/interpolation.greedy.tsv")
    assert level == "same job" and found["cpu_time"] == 90
    found, level = m.find("runs/paper/jobstats/evaluation/paper/blocks/symt_ed/seed14/interpolation.greedy.tsv")
    assert level == "another seed" and found["s"] == 100
    found, level = m.find("runs/paper/jobstats/evaluation/paper/blocks/symt_ed/seed14/extrapolation.greedy.tsv")
    assert level == "its model and domain" and found["s"] == 200
    found, level = m.find("runs/paper/jobstats/evaluation/paper/logistics/symt_ed/seed14/validation.greedy.tsv")
    assert level == "its model" and found["s"] == 200
    found, level = m.find("runs/paper/jobstats/evaluation/paper/visitall/diffusion/seed14/validation.unmask-T1.tsv")
    assert level == "its stage" and found["s"] == 150
    assert m.find("runs/paper/jobstats/training/paper/blocks/x/seed1.tsv") == (None, "unmeasured")


def test_the_plan_prices_gpu_training_by_rate_and_steps(tmp_path):
    from pathlib import Path

    config = tmp_path / "c.yaml"
    config.write_text("models:\n  symt_ed: {family: symt, architecture: encoder_decoder, seeds: [13],\n"
                      "            train: {epochs: 10, examples: 1000, batch_size: 64}}\n")
    profile = tmp_path / "prof"
    profile.mkdir()
    (profile / "config.yaml").write_text("retries: 3\n")
    lines = cluster_plan.plan(config, str(profile), Path(cluster_plan.GPU_CHECK), jobstats=[], text=DRY)
    rates = cluster_plan.gpu_rates(Path(cluster_plan.GPU_CHECK))
    hours = 10 * 16 / rates["symt_ed"][1] / 3600  # 10 epochs of ceil(1000 / 64) = 16 steps
    row = next(line for line in lines if line.startswith("| train_model |"))
    assert f"| {hours:.1f} |" in row and "GPU rate x steps 1" in row
    ev = next(line for line in lines if line.startswith("| evaluate_model |"))
    # nothing measured them: counted apart with the 2 x 12 core-hours they ask for, never priced at them
    assert ev.startswith("| evaluate_model | 2 | 0.0 | 0.0 | 2 (24) |") and "not measured 2" in ev, ev
    assert "| not measured |" in ev
    assert any("2 evaluation jobs packed into 1 group jobs" in line for line in lines)
    # one thread each on the profile's default 1 core: the two stack, 2 x 12 h
    assert any(line.startswith("Group job") and "24.0 h on 1 cores" in line for line in lines), lines
    assert lines[-1].endswith("fits")


def test_a_group_job_asks_for_its_members_side_by_side_then_stacked():
    job = lambda threads, runtime: cluster_plan.Job("evaluate_model", {}, threads, {"runtime": str(runtime)})
    assert cluster_plan.group_runtime([job(1, 60)] * 8, cores=8) == 60
    assert cluster_plan.group_runtime([job(8, 150)] * 3, cores=8) == 450   # ipc2023's 8-thread jobs stack
    assert cluster_plan.group_runtime([job(4, 100), job(4, 30), job(2, 50), job(2, 10)], cores=8) == 130


def test_a_table_without_the_rates_is_refused(tmp_path):
    bad = tmp_path / "gpu.txt"
    bad.write_text("# device: cuda\nnothing measured\n")
    with pytest.raises(GenplanError, match="no measured rate for"):
        cluster_plan.gpu_rates(bad)
