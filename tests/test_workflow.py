"""The Snakemake workflow as users run it: lint, dry runs of every configuration, and one real
end-to-end run of the smoke configuration in a copy of the repository."""

from __future__ import annotations

import csv
import gzip
import json
import shutil
import subprocess
import sys

import pytest
import yaml
from conftest import NOT_COPIED, REPO, sixth_family_env

from genplan.registry import FAMILIES

# workflow/configs/paper.yaml's dry run (the longest, about 15 s) is tests/test_slurm_profile.py's: the site
# profile selects that configuration, and its test checks the same job counts (expected_jobs) on the same DAG
CONFIGS = ["config.yaml", "workflow/configs/smoke.yaml",
           "workflow/configs/paper-cpu.yaml",
           "workflow/configs/paper-cpu.yaml workflow/configs/paper-cpu-lstm-seeds.yaml",
           "workflow/configs/plangpt.yaml", "workflow/configs/plangpt-cpu.yaml", "workflow/configs/budget-cpu.yaml"]


def snakemake(*args, cwd=REPO, timeout=900, env=None):
    return subprocess.run([sys.executable, "-m", "snakemake", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env=env)


def test_lint_is_clean():
    res = snakemake("--lint")
    assert res.returncode == 0 and "Congratulations" in res.stdout + res.stderr, res.stdout + res.stderr


def load_config(configfiles: list[str]) -> dict:
    """The configuration Snakemake reads from `configfiles`: each one merged into the ones before."""
    def merge(base: dict, over: dict) -> dict:
        out = dict(base)
        for k, v in over.items():
            out[k] = merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
        return out

    config = {}
    for path in configfiles:
        config = merge(config, yaml.safe_load((REPO / path).read_text()))
    return config


def expected_jobs(configfiles: list[str]) -> dict[str, int]:
    """Jobs per rule of a dry run on a fresh checkout (the committed results/ change the paper-cpu
    counts: run in a copy without them), from the configuration and the registries: the data
    stages per benchmark, domain and split, every model's training jobs per domain and seed
    (`train_model_cpu` for the families without a GPU and under `training.device: cpu`) and evaluation jobs per strategy and
    split, one job per report that runs there (genplan.report.registry.runs), and `all`."""
    from genplan import registry
    from genplan.report import registry as reports

    config = load_config(configfiles)
    models, eval_splits = config["models"], config["evaluation"]["splits"]
    places = len(config["benchmarks"]) * len(config["domains"])
    anytime = (config["planner"].get("lama_anytime") or {"enabled": False}).get("enabled", True)
    counts = {"generate_problems": len(config["domains"]) * ("generated" in config["benchmarks"]),
              "import_problems": len(config["domains"]) * ("paper" in config["benchmarks"]),
              "plan_split": places * len(config["splits"]), "trajectories": places * len(config["splits"]),
              "statespace_split": places * len(config["statespace"]["splits"]),
              "anytime_plans": places * len(eval_splits) * anytime, "dataset_statistics": 1, "all": 1}
    for entry in models.values():
        runs = len(config["benchmarks"]) * sum(  # a domain's `domain_settings` may name its own seeds
            len(registry.entry_for(entry, d)["seeds"]) for d in config["domains"]
            if d in entry.get("domains", config["domains"]))
        # as the workflow's trains_on_gpu: a GPU family trains on a GPU unless training.device is cpu
        gpu = registry.family(entry["family"]).gpu and config["training"]["device"] != "cpu"
        rule = "train_model" if gpu else "train_model_cpu"
        counts[rule] = counts.get(rule, 0) + runs
        splits = sum(len(entry.get("strategy_splits", {}).get(s, eval_splits)) for s in entry["strategies"])
        counts["evaluate_model"] = counts.get("evaluate_model", 0) + runs * splits
    families = reports.split_budget(models)  # a budget curve's models count for the budget report only
    for name, rep in reports.REPORTS.items():  # subjects with a model; ipc2023's only with its benchmark
        counts[rep.rule] = int(reports.runs(name, config["benchmarks"], *families))
    return {rule: n for rule, n in counts.items() if n}


def job_counts(output: str) -> dict[str, int]:
    """The `Job stats` table of a dry run: rule -> count."""
    lines = output[output.index("Job stats:"):].splitlines()[3:]
    counts = {}
    for line in lines:
        parts = line.split()
        if len(parts) != 2 or parts[0] == "total":
            break
        counts[parts[0]] = int(parts[1])
    return counts


@pytest.fixture(scope="module")
def fresh_checkout(tmp_path_factory):
    work = tmp_path_factory.mktemp("dry") / "repo"
    shutil.copytree(REPO, work, ignore=NOT_COPIED)
    return work


@pytest.mark.slow
@pytest.mark.parametrize("configfile", CONFIGS)
def test_dry_run(configfile, fresh_checkout):
    res = snakemake("-n", "--cores", "2", "--configfile", *configfile.split(),
                    "--config", "paper_splits=../shared/benchmarks/paper-splits", cwd=fresh_checkout)
    assert res.returncode == 0, res.stderr[-3000:]
    assert job_counts(res.stdout + res.stderr) == expected_jobs(configfile.split())


BAD_CONFIGS = {  # (edit of config.yaml, what the one message must name)
    "misspelt top-level key": (("evaluation:", "evalution:"), "unknown key(s) ['evalution']"),
    "misspelt nested key": (("optimal: {time_limit: 10}", "optimal: {time_limt: 10}"),
                            "planner.optimal: unknown key(s) ['time_limt']"),
    "unknown family": (("family: transition\n", "family: transformer\n"),
                       f"'transformer' is not one of {list(FAMILIES)}"),
    "strategy not offered": (("strategies: [beam3-pooled]", "strategies: [beam3-pooled, unmask-T20]"),
                             "'unmask-T20' is a unmask strategy; family transition offers ['beam']"),
    "unknown strategy": (("strategies: [beam3-pooled]", "strategies: [beam-3]"), "Unknown value strategy='beam-3'"),
    "epochs written as a float": (("train: {epochs: 50,", "train: {epochs: 50.0,"),
                                  "models.wl_lstm_state.train.epochs: 50.0 is not of type 'integer'"),
    "rounds written as a float": (("train: {n_estimators: 100,", "train: {n_estimators: 1.0e+12,"),
                                  "train.n_estimators: 1000000000000.0 is not of type 'integer'"),
    "unbounded strategy": (("strategies: [beam3-pooled]", "strategies: [beam100000-pooled]"),
                           "strategy 'beam100000-pooled': width 100000 is greater than the maximum of 100"),
    "unknown domain": (("domains: [blocks, gripper, logistics, visitall]", "domains: [chess]"),
                       "domains: benchmark 'generated' has no domain 'chess'"),
    "misspelt learner option": (("lr: 0.01, checkpoint_every: 10", "lr: 0.01, checkpoint_evry: 10"),
                                "models.wl_lstm_state.train: unknown key(s) ['checkpoint_evry']"),
}


@pytest.mark.parametrize("case", sorted(BAD_CONFIGS))
def test_bad_configurations_are_refused_before_any_job(case, tmp_path):
    (old, new), message = BAD_CONFIGS[case]
    text = (REPO / "config.yaml").read_text()
    assert old in text
    bad = tmp_path / "bad.yaml"
    bad.write_text(text.replace(old, new, 1))
    res = snakemake("-n", "--cores", "1", "--configfile", str(bad))
    out = res.stdout + res.stderr
    assert res.returncode != 0 and message in out, out[-3000:]
    assert "Job stats" not in out


@pytest.mark.slow
def test_smoke_run_end_to_end(smoke_run):
    res = smoke_run / "runs" / "smoke"
    for domain in ("blocks", "gripper"):
        manifest = list(csv.DictReader(open(res / "problems" / "generated" / domain / "manifest.csv")))
        for split in ("train", "validation", "interpolation", "extrapolation"):
            table = list(csv.DictReader(open(res / "plans" / "generated" / domain / f"{split}.csv")))
            problems = {r["problem"] for r in manifest if r["split"] == split}
            assert {r["problem"] for r in table} == problems, "every problem has a recorded status"
            with gzip.open(res / "trajectories" / "generated" / domain / f"{split}.json.gz", "rt") as fh:
                doc = json.load(fh)
            solved = {p["problem"] for p in doc["problems"]}
            assert solved | {p["problem"] for p in doc["without_plan"]} == problems
        spaces = list(csv.DictReader(open(res / "statespaces" / "generated" / domain / "train.csv")))
        assert spaces and all(int(r["states"]) > 0 for r in spaces)
    stats = list(csv.DictReader(open(res / "tables" / "dataset-statistics.csv")))
    assert len(stats) == 8 and all(r["published_problems"] for r in stats)
    assert (res / "tables" / "dataset-statistics.md").read_text().startswith("# Dataset statistics")
    # training, evaluation and report, by content
    from genplan.formats.evaluation_csv import COLUMNS, read_evaluation
    from genplan.registry import load_model

    for domain in ("blocks", "gripper"):
        for model in ("wl_lstm_delta", "wl_xgb_delta"):
            run = res / "models" / "generated" / domain / model / "seed13"
            summary = json.loads((run / "summary.json").read_text())
            assert summary["model"] == model and summary["feature_dim"] > 0
            assert len((run / "training.csv").read_text().splitlines()) > 1
            loaded = load_model(run / "model.ckpt", expect_domain=domain)
            assert (loaded.name, loaded.system, loaded.variant) == (model, model.rsplit("_", 1)[0], "delta")
            for split in ("validation", "extrapolation"):
                for strategy in ("beam3-pooled", "beam3-reference"):
                    path = res / "evaluation" / "generated" / domain / model / "seed13" / f"{split}.{strategy}.csv"
                    rows = read_evaluation(path)
                    assert list(rows[0]) == COLUMNS and {r["strategy"] for r in rows} == {strategy}
                    assert all(r["val"] == "valid" for r in rows if r["solved"] == "yes")
    table1 = list(csv.DictReader(open(res / "tables" / "state-centric-table1.csv")))
    learned = [r for r in table1 if r["system"] == "wl_xgb" and r["beam_mode"] in ("pooled", "reference")]
    assert {(r["domain"], r["beam_mode"]) for r in learned} >= {("blocks", "pooled"), ("gripper", "reference")}
    assert all(0.0 <= float(r["ours_mean"]) <= 1.0 for r in learned)
    assert (res / "figures" / "state-centric-figure4.png").read_bytes().startswith(b"\x89PNG")
    symt = list(csv.DictReader(open(res / "tables" / "symt-table2.csv")))
    ours = [r for r in symt if r["system"] == "plangpt" and r["ours_mean"] != ""]
    assert {(r["domain"], r["split"], r["variant"]) for r in ours} == {
        (d, s, v) for d in ("blocks", "gripper") for s in ("validation", "extrapolation")
        for v in ("greedy", "applicability")}
    summary = json.loads((res / "models" / "generated" / "blocks" / "plangpt" / "seed13" / "summary.json").read_text())
    assert summary["stop"] == "ce" and summary["protocol"] == "symt" and summary["epochs"] >= 1
    log = (res / "models" / "generated" / "blocks" / "plangpt" / "seed13" / "training.csv").read_text().splitlines()
    assert log[0].split(",")[3] == "val_coverage" and all(row.split(",")[3] for row in log[1:]), "tracked coverage"
    assert (res / "figures" / "plangpt-figure3.png").read_bytes().startswith(b"\x89PNG")
    # every model of every family: trained, evaluated (VAL-checked rows of the one schema), in the leaderboard
    config = load_config([str(smoke_run / "workflow" / "configs" / "smoke.yaml")])  # with the sixth family
    systems = set()
    for model, entry in config["models"].items():
        for domain in entry.get("domains", config["domains"]):
            for strategy in entry["strategies"]:
                rows = read_evaluation(res / "evaluation" / "generated" / domain / model / "seed13" /
                                       f"extrapolation.{strategy}.csv")
                assert rows and list(rows[0]) == COLUMNS
                assert all(r["val"] == "valid" for r in rows if r["solved"] == "yes")
                systems.add(rows[0]["system"])
    gbfs = read_evaluation(res / "evaluation" / "generated" / "gripper" / "heuristic_ridge" / "seed13" /
                           "validation.gbfs.csv")
    assert all(r["solved"] == "yes" for r in gbfs), "a ridge heuristic on WL features solves small Gripper problems"
    board = list(csv.DictReader(open(res / "tables" / "leaderboard.csv")))
    assert systems == {r["system"] for r in board} - {"fast_downward"}
    assert (res / "tables" / "diffusion-table1.md").is_file() and (res / "tables" / "plangpt-table1.md").is_file()


@pytest.mark.slow
def test_every_family_summary_holds_what_the_reports_read(smoke_run):
    """Every family trains through one job (genplan.training.job), so every training
    summary holds every field a report reads (genplan.report.collect.REPORTED: the CPU time `job_cpu_s`
    among them), and the leaderboard's training columns are filled on every row of a trained model."""
    from genplan.report.collect import missing_reported

    res = smoke_run / "runs" / "smoke"
    families = set()
    for path in sorted((res / "models").glob("*/*/*/seed*/summary.json")):
        summary = json.loads(path.read_text())
        assert not missing_reported(summary), f"{path} lacks {missing_reported(summary)}"
        families.add(summary["family"])
    assert families >= set(FAMILIES)
    learned = [r for r in csv.DictReader(open(res / "tables" / "leaderboard.csv")) if r["system"] != "fast_downward"]
    assert learned and all(r["train_cpu_s"] and r["train_wall_s"] for r in learned)


@pytest.mark.slow
def test_rerun_does_nothing_and_tables_regenerate_from_files(smoke_run):
    res = snakemake("-n", "--cores", "2", "--configfile", "workflow/configs/smoke.yaml", cwd=smoke_run,
                    env=sixth_family_env())
    assert "Nothing to be done" in res.stdout + res.stderr
    table = smoke_run / "runs" / "smoke" / "tables" / "dataset-statistics.csv"
    before = table.read_text()
    table.unlink()
    res = snakemake(str(table.relative_to(smoke_run)), "--cores", "1", "--configfile", "workflow/configs/smoke.yaml",
                    cwd=smoke_run, env=sixth_family_env())
    assert res.returncode == 0 and table.read_text() == before


def test_config_paths_reach_the_shell_quoted(fresh_checkout):
    """A paper_splits path with a space or shell metacharacters is one quoted argument."""
    odd = "/tmp/a b;touch PWNED/paper-splits"
    res = snakemake("-n", "-p", "--cores", "1", "--configfile", "workflow/configs/paper-cpu.yaml",
                    "--config", f"paper_splits={odd}", "--", "results/problems/paper/blocks", cwd=fresh_checkout)
    out = res.stdout + res.stderr
    assert res.returncode == 0, out[-3000:]
    assert ("genplan import --domain blocks --source '/tmp/a b;touch PWNED/paper-splits' "
            "--out results/problems/paper/blocks") in out
