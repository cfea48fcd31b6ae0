# Helpers only: configuration validation, wildcard constraints and input/param functions. Paths
# come from genplan.paths (one layout, under this configuration's results root), the families and
# their strategies from genplan.registry, the reports' inputs and outputs from genplan.report.registry.
import json
import shlex
from pathlib import Path

from snakemake.exceptions import WorkflowError
from snakemake.utils import validate

from genplan import benchmarks, registry

from genplan.formats import manifest
from genplan.configuration import check as check_configuration
from genplan.paths import ALL_SPLITS, EVAL_SPLITS, Layout
from genplan.report import registry as reports


try:  # every problem at once, misspelt keys named first; then Snakemake's own check (defaults)
    check_configuration(config, Path(workflow.basedir) / "workflow" / "schemas" / "config.schema.yaml")
except ValueError as exc:
    raise WorkflowError(str(exc))
validate(config, schema="../schemas/config.schema.yaml")

L = Layout(config["results_dir"])
MODELS = config["models"]
BENCHMARK_KINDS = benchmarks.configured(config)  # the built-in benchmarks and the config's own folders
FOLDERS = benchmarks.folder_names(config)


def check_problem_folders():
    """An existing problems folder is taken as its rule's finished output: one that is not whole (a
    manifest or best known costs without the problems, a copy cut short) stops the run naming it,
    before any job plans on it."""
    for kind in config["benchmarks"]:  # only this run's: another benchmark's folders are not read here
        for domain in config["domains"]:
            folder = Path(L.problems(kind, domain))
            why = manifest.incomplete(folder) if folder.exists() else None
            if why:
                raise WorkflowError(f"{folder}: not a whole problems folder ({why}); Snakemake would take it as "
                                    "made and plan on it. Move it aside (or delete it) so that its import or "
                                    "generation runs again")


check_problem_folders()


wildcard_constraints:
    benchmark="|".join(BENCHMARK_KINDS),
    domain="|".join(config["domains"]),
    split="|".join(ALL_SPLITS),
    model="|".join(MODELS) or "no-model",
    seed=r"\d+",
    strategy="[A-Za-z0-9.-]+",


def generator_params(wildcards):
    return json.dumps(config["generate"][wildcards.domain], sort_keys=True)


def planner_params(wildcards):
    """What decides the plans (limits), not how the job is scheduled (threads, runtime): changing
    a cluster setting must not replan."""
    keep = ("optimal", "fallback", "lama", "memory_limit_mb")
    params = {k: config["planner"][k] for k in keep}
    if "gbfs_ff_eager" in config["planner"]:  # only where configured: the other configs' params stay as they were
        params["gbfs_ff_eager"] = config["planner"]["gbfs_ff_eager"]
    if config["planner"].get("reference_splits"):  # only where configured, as gbfs_ff_eager
        params["reference_splits"] = config["planner"]["reference_splits"]
    return json.dumps(params, sort_keys=True)


def anytime_params(wildcards):
    """What decides anytime LAMA's plans: its block and the memory limit."""
    return json.dumps({k: config["planner"][k] for k in ("lama_anytime", "memory_limit_mb")}, sort_keys=True)


def _with_extra(splits, domain):
    """`splits` and the domain's `extra_splits` after them (each once)."""
    return splits + [s for s in (config.get("extra_splits") or {}).get(domain, []) if s not in splits]


def data_splits(domain):
    """The splits planned and made into trajectories for a domain: `splits` and its `extra_splits`."""
    return _with_extra(config["splits"], domain)


def eval_splits(domain):
    """The splits a domain's models are evaluated on: `evaluation.splits` and its `extra_splits`."""
    return _with_extra(config["evaluation"]["splits"], domain)


def anytime_enabled():
    """Anytime LAMA runs where the config has a `planner.lama_anytime` block that is enabled."""
    return (config["planner"].get("lama_anytime") or {"enabled": False}).get("enabled", True)


def anytime_tables():
    """The anytime LAMA tables of every evaluated split (none when it is not enabled): every
    report's best-known lengths read them."""
    if not anytime_enabled():
        return []
    return [L.anytime_table(b, d, s) for b in config["benchmarks"] for d in config["domains"]
            for s in eval_splits(d)]


def profile_limit(name):
    """A limit the cluster profile sets among its `default-resources` (`mem_mb_max`: the most memory a retry
    may ask; `runtime_max`: the partitions' time limit, minutes), or None (a local run, a profile without
    it). Read from the command line's resources, which Snakemake knows before it reads the workflow."""
    defaults = workflow.resource_settings.default_resources
    for arg in (defaults.args if defaults is not None else None) or []:
        key, _, value = str(arg).partition("=")
        if key.strip() == name:
            try:
                return int(float(value.strip().strip("'\"")))
            except ValueError:
                raise WorkflowError(f"the profile's default-resources: {name}={value} is not a number")
    return None


MEM_MB_MAX = profile_limit("mem_mb_max")
RUNTIME_MAX = profile_limit("runtime_max")


def check_cluster_limits():
    """Under a profile that names its partitions' limits (`runtime_max`), every job the configuration asks
    for must fit them: a runtime over the limit is refused by sbatch for good, and threads over the
    profile's `cores` are silently cut to `cores` by Snakemake, so a job planned for 16 workers runs on 8
    and a group of such jobs runs them one after another. One error naming every such key."""
    if RUNTIME_MAX is None:
        return
    cores = workflow.resource_settings.cores
    problems = []
    for key in ("planner", "training", "evaluation"):
        runtime = config[key].get("runtime_min")
        if runtime is not None and runtime > RUNTIME_MAX:
            problems.append(f"{key}.runtime_min is {runtime} minutes, more than the profile's runtime_max ({RUNTIME_MAX})")
        threads = config[key].get("threads", 1)
        if isinstance(cores, int) and threads > cores:
            problems.append(f"{key}.threads is {threads}, more than the profile's cores ({cores})")
    if problems:
        raise WorkflowError("the configuration asks more than the cluster profile allows: " + "; ".join(problems)
                            + ". Lower these keys, or raise the profile's limits (the lines marked SITE)")


check_cluster_limits()


def attempt_memory(base_mb, attempt):
    """`base_mb` x attempt, up to the profile's `mem_mb_max` (never below the first attempt's): a job killed
    for its memory is retried with more, but a fourth attempt asking 256-299 GB exceeds most nodes and
    would wait in the queue for ever."""
    grown = base_mb * attempt
    return grown if MEM_MB_MAX is None else min(grown, max(base_mb, MEM_MB_MAX))


def planner_mem_mb(wildcards, threads, attempt):
    """Every Fast Downward run of the job may use its memory limit at once; more on a retry."""
    return attempt_memory(threads * config["planner"]["memory_limit_mb"] + 1024, attempt)


def scaled(base):
    """Memory that grows with the attempt: a job killed for its memory is retried (the profiles'
    `retries`) with twice, then three times as much, up to the profile's `mem_mb_max`. Runtimes do not
    grow (a retry past a partition's limit is never scheduled): a retry asks for the first attempt's
    runtime, which stays within the partition's limit, and resumes from the killed attempt's partial state (training: every few minutes; planning
    and evaluation: every finished problem)."""

    def resource(wildcards, attempt):
        return attempt_memory(base, attempt)

    return resource


def paper_source(wildcards):
    """The local copy of the papers' release, or "" to download the pinned release."""
    return config.get("paper_splits") or ""


def ipc2023_source(wildcards):
    """The user's copy of the IPC 2023 learning track (checked to exist by genplan.configuration)."""
    return config["ipc2023_dir"]


def folder_source(wildcards):
    """A folder benchmark's folder (genplan.benchmarks: the config's benchmark_folders)."""
    return BENCHMARK_KINDS[wildcards.benchmark].path


def folder_files(wildcards):
    """A folder benchmark's domain files (genplan.benchmarks.source_files): a changed one re-imports it."""
    return benchmarks.source_files(BENCHMARK_KINDS[wildcards.benchmark], wildcards.domain)


def folder_args(wildcards):
    """`genplan import-folder`'s layout, split patterns and checksum list of a folder benchmark."""
    kind = BENCHMARK_KINDS[wildcards.benchmark]
    args = [f"--layout {kind.layout}"]
    if kind.patterns:
        args.append(f"--splits {shlex.quote(json.dumps({s: list(p) for s, p in kind.patterns.items()}))}")
    if kind.checksums:
        args.append(f"--checksums {shlex.quote(kind.checksums)}")
    return " ".join(args)


def benchmark_problems(wildcards):
    return L.problems(wildcards.benchmark, wildcards.domain)


def data_outputs():
    """Every data-stage output of the configured benchmarks and domains (anytime LAMA's tables
    when it is enabled)."""
    out = []
    for b in config["benchmarks"]:
        for d in config["domains"]:
            out.append(L.problems(b, d))
            for s in data_splits(d):
                out += [L.plans_table(b, d, s), L.trajectories(b, d, s)]
            out += [L.statespace_table(b, d, s) for s in config["statespace"]["splits"]]
    return out + anytime_tables()


def stats_inputs(wildcards):
    out = []
    for b in config["benchmarks"]:
        for d in config["domains"]:
            out.append(L.problems(b, d))
            out += [L.plans_table(b, d, s) for s in config["splits"]]
            out += [L.statespace_table(b, d, s) for s in config["statespace"]["splits"]]
    return out


def stats_args(wildcards):
    args = [f"--benchmark {b}" for b in config["benchmarks"]]
    args += [f"--domain {d}" for d in config["domains"]]
    args += [f"--split {s}" for s in config["splits"]]
    args += [f"--statespace-split {s}" for s in config["statespace"]["splits"]]
    return " ".join(args)


# --- Models of every family: training, evaluation, reports ---


def model_settings(wildcards):
    """The model's family and the settings that decide its trained weights (JSON; genplan.registry:
    the entry without what only schedules or plans with it), so that adding a seed or a strategy
    retrains nothing."""
    return json.dumps(registry.weight_settings(model_entry(wildcards)), sort_keys=True)


def model_entry(wildcards):
    """The model's entry as it trains and plans on the job's domain (its `domain_settings` merged)."""
    return registry.entry_for(MODELS[wildcards.model], wildcards.domain)


def training_data(wildcards):
    """The training and validation inputs of the model's family: trajectories or state spaces."""
    entry = model_entry(wildcards)
    fam = registry.family(entry["family"])
    # a family module may narrow them per model entry (the heuristic family's `train: {data: plans}`)
    sources = getattr(fam.impl, "trains_from", lambda entry: fam.trains_from)(entry)
    b, d = wildcards.benchmark, wildcards.domain
    data = {"train": [], "validation": []}
    for split in data:
        if split not in BENCHMARK_KINDS[b].splits:  # a benchmark without a validation split (ipc2023): none
            continue
        if "trajectories" in sources:
            data[split].append(L.trajectories(b, d, split))
        if "statespaces" in sources and split in config["statespace"]["splits"]:
            data[split].append(L.statespace_table(b, d, split))
    if "problems" in sources:  # the job reads the problem files the trajectories name
        data["problems"] = L.problems(b, d)
    if (entry.get("encoder") or {}).get("slots") == "all_splits":
        # FSF slots sized on every split: the job reads the benchmark's manifest (object counts only)
        data["problems"] = L.problems(b, d)
    return data


def training_device():
    """The device the training jobs are told to use (`training.device`)."""
    return config["training"]["device"]


def trains_on_gpu(model):
    """Whether the model's training job will train on a GPU, and so asks the cluster for one: its family
    trains on GPUs (genplan.registry) and the configuration does not send training to the CPU
    (`training.device: cpu`, e.g. ipc2023.yaml's one-core competition protocol): a GPU held by a job
    that trains with `--device cpu` is a GPU no other job can use."""
    return registry.family(MODELS[model]["family"]).gpu and training_device() != "cpu"


def training_resources(name):
    """A training job's resource `name`; `gpu` is 1 for the families that train on GPUs; the runtime
    the same on every attempt, the memory growing (`scaled`)."""
    if name == "gpu":
        return lambda wildcards: int(trains_on_gpu(wildcards.model))
    if name == "runtime_min":
        return config["training"][name]
    return scaled(config["training"][name])


def models_training_on_gpu(gpu):
    """A `model` wildcard constraint: the configured models that train on a GPU (gpu=True) or on CPUs
    (gpu=False; `trains_on_gpu`), so that the profiles can send each rule to its own partition."""
    return "|".join(m for m in MODELS if trains_on_gpu(m) == gpu) or "no-model"


def model_runs():
    """(model, domain, seed) of every configured model: its domains, and on each the seeds of its
    entry there (a domain's `domain_settings` may name its own)."""
    return [(m, d, s) for m in MODELS for d in model_domains(m) for s in registry.entry_for(MODELS[m], d)["seeds"]]


def model_domains(model):
    """The config's domains the model is trained and evaluated on (its `domains`, else all)."""
    only = MODELS[model].get("domains")
    return [d for d in config["domains"] if only is None or d in only]


def training_outputs():
    out = []
    for b in config["benchmarks"]:
        for m, d, s in model_runs():
            out += [L.checkpoint(b, d, m, s), L.training_log(b, d, m, s), L.training_summary(b, d, m, s)]
    return out


def protocol_args():
    """`genplan evaluate`'s resource-protocol options from `evaluation.protocol` (none where absent)."""
    protocol = config["evaluation"].get("protocol")
    if not protocol:
        return ""
    flags = {"time_limit": "--time-limit", "wall_limit": "--wall-limit", "memory_limit_mb": "--memory-limit-mb"}
    return "".join(f" {flags[k]} {protocol[k]}" for k in flags if k in protocol)


# group sizes the profiles pack evaluation jobs in (their `group-components`, one line each)
EVALUATION_GROUP_SIZES = (8, 4, 2)


def evaluation_group():
    """The group of an evaluation job on a cluster (Snakemake ignores groups on a local run): the jobs of
    one trained model (benchmark, domain, model, seed), so that a group job starts as soon as that one
    training ends and never waits on another (a GPU-trained model's hours never hold back the evaluations
    of a CPU-trained one); and at most as many as run side by side on the group's cores (the profile's
    `cores` over `evaluation.threads`, rounded down to one of EVALUATION_GROUP_SIZES, else 1: no group),
    so that a group job asks for its longest member's runtime, never its members' runtimes stacked."""
    cores = workflow.resource_settings.cores
    fit = (cores if isinstance(cores, int) else 1) // config["evaluation"].get("threads", 1)
    size = next((k for k in EVALUATION_GROUP_SIZES if k <= fit), None)
    return None if size is None else f"evaluation{size}" + "_{benchmark}_{domain}_{model}_{seed}"


def planning_settings(wildcards):
    """The model entry's planning settings (JSON) for `genplan evaluate --settings`."""
    return json.dumps(registry.planning_settings(model_entry(wildcards)), sort_keys=True)


def evaluation_outputs():
    return [
        L.evaluation(b, d, m, s, split, strategy)
        for b in config["benchmarks"]
        for m, d, s in model_runs()
        for strategy in MODELS[m]["strategies"]
        for split in MODELS[m].get("strategy_splits", {}).get(strategy, eval_splits(d))
    ]


def family_models(families):
    return [m for m, entry in MODELS.items() if entry["family"] in families]


def model_files(families, summaries=True, logs=False):
    """The evaluation CSVs of every model of `families`, and their training summaries and logs."""
    mine = set(family_models(families))
    out = [f for f in evaluation_outputs() if Path(f).parts[-3] in mine]
    for b in config["benchmarks"]:
        for m, d, s in model_runs():
            if m in mine:
                out += [L.training_summary(b, d, m, s)] if summaries else []
                out += [L.training_log(b, d, m, s)] if logs else []
    return out


def report_inputs(paper):
    """An input function: what the paper's report reads (genplan.report.registry): its families'
    evaluation CSVs, summaries and logs, its plans tables with anytime LAMA's, and the problems folders
    with the best known costs of the benchmarks that ship them."""
    rep = reports.REPORTS[paper]

    def inputs(wildcards):
        out, groups = [], {}  # what else -> the families read with it
        for fam, extra in rep.reads.items():
            groups.setdefault(extra, []).extend(registry.FAMILIES if fam == reports.ALL else [fam])
        for extra, families in groups.items():
            out += model_files(families, summaries=reports.SUMMARIES in extra, logs=reports.LOGS in extra)
        out += reports.bounds_inputs(paper, config["results_dir"], config["benchmarks"], config["domains"])
        if rep.plans is None:
            return out
        out += [L.plans_table(b, d, s) for b in config["benchmarks"] for d in config["domains"]
                for s in (EVAL_SPLITS if rep.plans == "every" else eval_splits(d))]
        return out + anytime_tables()

    return inputs


def report_outputs(paper):
    """The paper's tables and figures where the config has a model of one of its subjects (all of
    them for a report without subjects: the leaderboard) and one of its benchmarks (for a report that
    names benchmarks: ipc2023's), else none (genplan.report.registry.runs: a budget curve's model counts
    for the budget report only)."""
    families, budget_families = reports.split_budget(MODELS)
    runs = reports.runs(paper, config["benchmarks"], families, budget_families)
    return reports.outputs(paper, config["results_dir"]) if runs else []


# Subcategories of `snakemake --report` inside each report's category (genplan.report.registry): the
# tables that set ours beside the published numbers (for the leaderboard: every system side by side)
# first, then the figures, then the other tables. The summary page is workflow/report/workflow.rst.
REPORT_CATEGORIES = {
    "1. ours beside the published": ("leaderboard", "learned-vs-classical", "ipc2023-domains",
                                     "ipc2023-learned-vs-lama", "state-centric-table1",
                                     "state-centric-agreement", "state-centric-table3", "symt-table1",
                                     "symt-table2", "plangpt-table1", "plangpt-table2", "diffusion-table1"),
    "2. figures": (".png",),
    "3. more tables": (".csv",),
}


def report_subcategory(path):
    """The subcategory of a marked file: the first of REPORT_CATEGORIES naming its stem or suffix."""
    return next(name for name, keys in REPORT_CATEGORIES.items() if {Path(path).stem, Path(path).suffix} & set(keys))


def reported(paper):
    """A report's outputs with its CSV tables and PNG figures marked for `snakemake --report`
    (caption: workflow/report/<paper>.rst; category: the report's, subcategory: REPORT_CATEGORIES;
    the Markdown, LaTeX, PDF and SVG copies stay plain files). Only files present when the workflow
    is read are marked, so that `--report` builds the HTML from whatever tables the results root
    holds (a paper not run yet is left out, not an error); the flag changes nothing else."""
    return [report(f, caption=f"../report/{paper}.rst", category=reports.REPORTS[paper].category,
                   subcategory=report_subcategory(f))
            if f.endswith((".csv", ".png")) and Path(f).is_file() else f
            for f in reports.outputs(paper, config["results_dir"])]


def all_outputs():
    return (data_outputs() + training_outputs() + evaluation_outputs()
            + [f for paper in reports.REPORTS for f in report_outputs(paper)]
            + [L.table("dataset-statistics", "csv"), L.table("dataset-statistics", "md")])


def results_root_of(wildcards, output):
    """The results root of a job whose first output is <root>/tables/<file>."""
    return str(Path(output[0]).parent.parent)
