# Helpers only: configuration validation, wildcard constraints and input/param functions.
import json

from snakemake.utils import validate


validate(config, schema="../schemas/config.schema.yaml")

SPLITS = ["train", "validation", "interpolation", "extrapolation"]


wildcard_constraints:
    benchmark="generated|paper",
    domain="|".join(config["domains"]),
    split="|".join(SPLITS),


def problems_dir(benchmark, domain):
    return f"results/problems/{benchmark}/{domain}"


def generator_params(wildcards):
    return json.dumps(config["generate"][wildcards.domain], sort_keys=True)


def planner_params(wildcards):
    return json.dumps(config["planner"], sort_keys=True)


def paper_source_arg(wildcards):
    src = config.get("paper_splits")
    return f"--source {src}" if src else ""


def benchmark_problems(wildcards):
    return problems_dir(wildcards.benchmark, wildcards.domain)


def data_outputs():
    """Every data-stage output of the configured benchmarks and domains."""
    out = []
    for b in config["benchmarks"]:
        for d in config["domains"]:
            out.append(problems_dir(b, d))
            for s in config["splits"]:
                out.append(f"results/plans/{b}/{d}/{s}.csv")
                out.append(f"results/trajectories/{b}/{d}/{s}.json.gz")
            for s in config["statespace"]["splits"]:
                out.append(f"results/statespaces/{b}/{d}/{s}.csv")
    return out


def stats_inputs(wildcards):
    out = []
    for b in config["benchmarks"]:
        for d in config["domains"]:
            out.append(problems_dir(b, d))
            out.extend(f"results/plans/{b}/{d}/{s}.csv" for s in SPLITS)
            out.extend(f"results/statespaces/{b}/{d}/{s}.csv" for s in config["statespace"]["splits"])
    return out


def stats_args(wildcards):
    args = [f"--benchmark {b}" for b in config["benchmarks"]]
    args += [f"--domain {d}" for d in config["domains"]]
    args += [f"--statespace-split {s}" for s in config["statespace"]["splits"]]
    return " ".join(args)


def all_outputs():
    return data_outputs() + [
        "results/tables/dataset-statistics.csv",
        "results/tables/dataset-statistics.md",
    ]
