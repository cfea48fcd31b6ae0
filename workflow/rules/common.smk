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
    """What decides the plans (limits), not how the job is scheduled (threads, runtime): changing
    a cluster setting must not replan."""
    keep = ("optimal", "fallback", "lama", "memory_limit_mb")
    return json.dumps({k: config["planner"][k] for k in keep}, sort_keys=True)


def planner_mem_mb(wildcards, threads):
    """Every Fast Downward run of the job may use its memory limit at once."""
    return threads * config["planner"]["memory_limit_mb"] + 1024


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
            out.extend(f"results/plans/{b}/{d}/{s}.csv" for s in config["splits"])
            out.extend(f"results/statespaces/{b}/{d}/{s}.csv" for s in config["statespace"]["splits"])
    return out


def stats_args(wildcards):
    args = [f"--benchmark {b}" for b in config["benchmarks"]]
    args += [f"--domain {d}" for d in config["domains"]]
    args += [f"--split {s}" for s in config["splits"]]
    args += [f"--statespace-split {s}" for s in config["statespace"]["splits"]]
    return " ".join(args)


def transition_params(wildcards):
    """A training job's parameters (JSON): its encoding's and its learner's config sections."""
    t = config["transition"]
    encoding, learner, _ = wildcards.model.split("_")
    params = {"encoder": t.get(encoding) or {}, "learner": t[learner], "device": t["device"], "threads": t["threads"]}
    return json.dumps(params, sort_keys=True)


def training_outputs():
    """Checkpoint, training log and summary of every configured (benchmark, domain, model, seed)."""
    t = config.get("transition")
    if not t:
        return []
    return [
        f"results/models/{b}/{d}/{m}/seed{s}/{f}"
        for b in config["benchmarks"]
        for d in config["domains"]
        for m in t["models"]
        for s in t["seeds"]
        for f in ("model.ckpt", "training.csv", "summary.json")
    ]


def all_outputs():
    return data_outputs() + training_outputs() + state_centric_outputs() + [
        "results/tables/dataset-statistics.csv",
        "results/tables/dataset-statistics.md",
    ]


# --- State-centric decoding, evaluation and report (workflow/rules/evaluation.smk, report.smk) ---


def state_centric_jobs():
    """(model, seed) pairs of the trained transition models that the evaluation decodes: the
    `transition` section's models and seeds (none when the configuration trains no model)."""
    t = config.get("transition") or {}
    return [(m, s) for m in t.get("models", []) for s in t.get("seeds", [])]


def decode_params(wildcards):
    return json.dumps({**config["decode"], "beam_mode": wildcards.beam_mode}, sort_keys=True)


def evaluation_resource(name, default):
    return (config.get("evaluation") or {}).get(name, default)


def state_centric_evaluations():
    if "decode" not in config or "evaluation" not in config:
        return []
    return [
        f"results/evaluation/{b}/{d}/{m}/seed{s}/{split}.{beam}.csv"
        for b in config["benchmarks"]
        for d in config["domains"]
        for m, s in state_centric_jobs()
        for split in config["evaluation"]["splits"]
        for beam in config["decode"]["beam_modes"]
        if not (beam.endswith("-nostatics") and m.startswith("fsf"))  # FSF never embeds statics
    ]


def state_centric_report_inputs(wildcards):
    out = state_centric_evaluations()
    for b in config["benchmarks"]:
        for d in config["domains"]:
            out += [f"results/plans/{b}/{d}/{s}.csv" for s in ("validation", "interpolation", "extrapolation")]
            out += [f"results/models/{b}/{d}/{m}/seed{s}/summary.json" for m, s in state_centric_jobs()]
    return out


def state_centric_report_outputs():
    stem = "results/tables/state-centric"
    out = [f"{stem}-table{n}.{ext}" for n in (1, 3) for ext in ("md", "tex", "csv")]
    out += [f"{stem}-{name}.{ext}" for name in ("quality", "decoders", "agreement") for ext in ("md", "csv")]
    out += [f"{stem}-agreement-cells.csv"]
    out += [f"results/figures/state-centric-figure{n}.{ext}" for n in (2, 3, 4) for ext in ("png", "pdf")]
    return out


def state_centric_outputs():
    """Every evaluation CSV and the state-centric tables and figures (nothing without models)."""
    evals = state_centric_evaluations()
    return evals + state_centric_report_outputs() if evals else []
