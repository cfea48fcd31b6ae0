"""The SLURM profiles themselves, no cluster needed: the test profile differs from the site
profile only in its accounting keys, rules name no cluster-specific resource, and the site profile
selects the paper configuration with GPU training jobs in the GPU partition. The live cluster is
tests/test_slurm.py's."""

from __future__ import annotations

import contextlib
import json

import pytest
import yaml
from test_slurm import GPU_RULES, NOACCT_KEYS, REPO, TEST_PROFILE, TRAINING_RULES, copy_repo, job_counts, run_snakemake
from test_workflow import expected_jobs

from genplan.cluster_plan import parse_dry_run


def _profile(path: str) -> dict:
    return yaml.safe_load((REPO / path / "config.yaml").read_text())


def test_profiles_differ_only_in_accounting_keys():
    site, noacct = _profile("slurm"), _profile(TEST_PROFILE)
    assert site["executor"] == noacct["executor"] == "slurm"
    differing = {k for k in site.keys() | noacct.keys() if site.get(k) != noacct.get(k)}
    assert differing == NOACCT_KEYS, f"the profiles differ in {sorted(differing - NOACCT_KEYS)} too"
    assert noacct["slurm-status-command"] == "squeue"
    # rules declare portable resources only: cluster names live in the profiles
    for smk in (REPO / "workflow" / "rules").glob("*.smk"):
        text = smk.read_text()
        for key in ("slurm_partition", "slurm_account", "gpu_model", "slurm_extra"):
            assert key not in text, f"{smk.name} names a cluster-specific resource ({key}); move it to the profile"


@pytest.mark.slow
def test_site_profile_selects_paper_configuration(tmp_path):
    repo = copy_repo(tmp_path / "repo")
    res, _ = run_snakemake(repo, "-n", "--profile", "slurm", "all", limit=240)
    assert res.returncode == 0, res.stderr[-3000:]
    text = res.stdout + res.stderr
    counts = job_counts(text)
    configfiles = _profile("slurm")["configfile"]
    assert configfiles == "workflow/configs/paper.yaml"  # the paper benchmark: imported, not generated
    assert counts == expected_jobs(configfiles.split()), counts
    assert "slurm_partition=cpu" in text
    assert counts.get("train_model") and counts.get("train_model_cpu"), counts
    jobs = parse_dry_run(text)  # the jobs' own lines: a "Group job" heading may follow a job with no blank line
    for rule in TRAINING_RULES:  # every job's block, not only the first: the DAG's order varies
        blocks = [job for job in jobs if job.rule == rule]
        assert len(blocks) == counts[rule], (rule, len(blocks), counts[rule])
        # the learned heuristics train on CPUs: the CPU partition, no GPU asked
        partition, gpus = ("gpu", 1) if rule in GPU_RULES else ("cpu", 0)
        for block in blocks:
            resources = block.resources
            assert resources.get("slurm_partition") == partition and resources.get("gpu") == str(gpus), block
            if rule in GPU_RULES:  # the transition models (17-337 s each) hold no GPU
                model = block.wildcards["model"]
                assert "_lstm_" not in model and "_xgb_" not in model, block
    # evaluation (decoding on CPUs) asks for no GPU
    for block in (job for job in jobs if job.rule == "evaluate_model"):
        assert block.resources.get("gpu") != "1", block


@contextlib.contextmanager
def _paper_workflow():
    """The paper configuration's parsed workflow (rules, resources, local rules), through Snakemake's API."""
    from snakemake.api import SnakemakeApi
    from snakemake.settings.types import ConfigSettings, OutputSettings, ResourceSettings

    with SnakemakeApi(OutputSettings()) as api:
        wf = api.workflow(resource_settings=ResourceSettings(), snakefile=REPO / "Snakefile", workdir=REPO,
                          config_settings=ConfigSettings(configfiles=[REPO / "workflow" / "configs" / "paper.yaml"]))
        yield wf._workflow


def test_retries_keep_the_runtime_and_grow_the_memory():
    """A retry asks for the first attempt's runtime (36 h on a third attempt passed many partitions'
    limits, and sbatch's refusal ended the job for good), so that retries can succeed; memory still grows.
    The profiles' defaults (evaluated as Snakemake evaluates a profile's resources) and every rule's own."""
    from snakemake.resources import Resource

    for path in ("slurm", TEST_PROFILE):
        profile = _profile(path)
        assert profile["retries"] >= 3, path
        for name, grows in (("runtime", False), ("mem_mb", True)):
            res = Resource.from_cli_expression(name, str(profile["default-resources"][name]))
            got = [res.evaluate(wildcards=None, input=None, attempt=a, threads=1, rulename="r", async_run=None).value
                   for a in (1, 2, 3)]
            assert got == ([got[0] * a for a in (1, 2, 3)] if grows else [got[0]] * 3), (path, name, got)
        assert "runtime" not in profile["set-resources"]["statespace_split"], path
    with _paper_workflow() as workflow:
        timed = {r.name: r.resources["runtime"] for r in workflow.rules if "runtime" in r.resources}
    assert {"plan_split", "statespace_split", "train_model", "train_model_cpu", "evaluate_model"} <= set(timed)
    for rule, res in timed.items():
        assert not callable(res.value), f"{rule}: a runtime that depends on the attempt"


def test_rules_that_need_the_network_run_where_snakemake_runs():
    """The imports (a download when `paper_splits` is unset) are local rules, never jobs on a
    compute node that may have no internet."""
    with _paper_workflow() as workflow:
        assert {"import_problems", "import_ipc2023"} <= set(workflow._localrules)


def test_profiles_pack_the_evaluation_jobs():
    """The evaluation rule's group (common.smk: evaluation_group, one trained model's jobs, at most as many as
    fit side by side on `cores`) has a `group-components` line for each of its sizes, and no profile `groups`
    entry replaces it with one group of every model's evaluations."""
    assert "group: evaluation_group()" in (REPO / "workflow" / "rules" / "evaluation.smk").read_text()
    for path in ("slurm", TEST_PROFILE):
        profile = _profile(path)
        assert not any(g.startswith("evaluate_model=") for g in profile.get("groups", [])), path
        sizes = {int(g.split("=")[1]) for g in profile["group-components"] if g.startswith("evaluation")}
        for size in sizes:
            assert f"evaluation{size}_{{benchmark}}_{{domain}}_{{model}}_{{seed}}={size}" in profile["group-components"]
        assert sizes == {8, 4, 2}, (path, sizes)


def test_a_link_left_by_a_killed_test_cluster_is_not_kept(tmp_path):
    """tests/slurm_cluster.py: an /etc/slurm link into an earlier cluster's folder (its `cluster.json`
    there, or a deleted pytest `slurm-cluster*` folder) is a leftover; the machine's own configuration (a
    file, a link elsewhere, relative or dangling) is not. A leftover's cluster may have set the machine's
    own file aside: that file is moved back when the leftover goes."""
    from slurm_cluster import _leftover, _restore_backup_of

    etc = tmp_path / "etc"
    etc.mkdir()
    old = tmp_path / "pytest-of-root" / "pytest-9" / "slurm-cluster0"
    old.mkdir(parents=True)
    (old / "slurm.conf").write_text("ClusterName=x\n")
    (old / "slurm.conf.orig").write_text("ClusterName=site\n")  # the site's file, set aside by that cluster
    (old / "cluster.json").write_text(json.dumps({"started": {}, "replaced": {"ours.conf": str(old / "slurm.conf.orig")}}))
    own = tmp_path / "site"
    own.mkdir()
    (own / "slurm.conf").write_text("ClusterName=site\n")
    links = {"ours": old / "slurm.conf",
             "gone": tmp_path / "pytest-of-root" / "pytest-1" / "slurm-cluster0" / "slurm.conf",
             "site": own / "slurm.conf", "relative": "../site/slurm.conf",
             "dangling": tmp_path / "elsewhere" / "slurm.conf"}
    for name, to in links.items():
        (etc / f"{name}.conf").symlink_to(to)
    (etc / "plain.conf").write_text("ClusterName=plain\n")
    assert {n: _leftover(etc / f"{n}.conf") for n in [*links, "plain"]} == {
        "ours": True, "gone": True, "site": False, "relative": False, "dangling": False, "plain": False}
    _restore_backup_of(etc / "ours.conf")
    assert not (etc / "ours.conf").is_symlink() and (etc / "ours.conf").read_text() == "ClusterName=site\n"
