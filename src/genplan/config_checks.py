"""What a configuration's schema lets through and a later step failed on, or ran without a word
(so that a mistyped value never costs a run or a silent wrong number): each a line of `genplan.configuration.faults`, checked before any job is planned."""

from __future__ import annotations

from pathlib import Path

MAX_SEED = 2**32 - 1  # numpy's and XGBoost's seeds are 32-bit; the {seed} wildcard is digits only


def faults(config: dict) -> list[str]:
    """One line per seed outside 0..2^32-1 (one of 2^32 failed in the job; -13 gave Snakemake's
    MissingInputException), per model whose `domains` name a domain no configured benchmark has (a
    misspelling: it ran nowhere without a word; a known domain the run's `domains` leave out is a run
    restricted to some domains, `--config domains=[gripper]`, and passes), for a `results_dir` that is a file (a traceback at `snakemake -n`), and
    for an `ipc2023_dir` without a configured domain's domain.pddl (an empty folder planned 182 jobs)."""
    lines = [f"{where}: {seed} is not a seed from 0 to {MAX_SEED} (2^32 - 1)" for where, seed in _seeds(config)
             if not isinstance(seed, bool) and isinstance(seed, int) and not 0 <= seed <= MAX_SEED]
    domains = config.get("domains") or []
    known = _known_domains(config)
    for name, entry in _models(config):
        own = entry.get("domains")
        unknown = [d for d in own if d not in known] if isinstance(own, list) and known else []
        if unknown:
            lines.append(f"models.{name}.domains: {unknown} is no domain of the configured benchmarks "
                         f"{sorted(known)}: the model would train and plan nowhere")
    results = config.get("results_dir")
    if isinstance(results, str) and Path(results).exists() and not Path(results).is_dir():
        lines.append(f"results_dir: {results} is a file, not a folder")
    where = config.get("ipc2023_dir")
    if "ipc2023" in (config.get("benchmarks") or []) and isinstance(where, str) and Path(where).is_dir():
        absent = [d for d in domains if not (Path(where) / d / "domain.pddl").is_file()]
        if absent:
            lines.append(f"ipc2023_dir: {where} has no {absent[0]}/domain.pddl (of {len(absent)} configured "
                         "domain(s) absent): not a copy of the IPC 2023 learning track's benchmarks repository")
    return lines


def notices(config: dict) -> list[str]:
    """One line per model whose `domains` hold none of the run's `domains`: known domains, so not
    refused (tests/slurm-smoke.yaml leaves models out of a run so), but the model trains and plans
    nowhere in this run, and every table leaves it out: said at every check, never silently."""
    domains = config.get("domains") or []
    lines = []
    for name, entry in _models(config):
        own = entry.get("domains")
        if isinstance(own, list) and own and domains and not set(own) & set(domains):
            lines.append(f"models.{name}.domains: {own} holds none of the run's domains {domains}: the model is "
                         "left out of this run (no training, no evaluation, no row in any table)")
    return lines


def _known_domains(config: dict) -> set[str]:
    """Every domain of the benchmarks the configuration names (empty when it names none known)."""
    from genplan import benchmarks

    every = benchmarks.configured(config)
    out: set[str] = set()
    for name in config.get("benchmarks") or []:
        if name in every:
            try:
                out |= set(benchmarks.domains_of(every[name]))
            except (OSError, TypeError):
                continue
    return out


def _models(config: dict):
    models = config.get("models")
    return [(n, e) for n, e in models.items() if isinstance(e, dict)] if isinstance(models, dict) else []


def _seeds(config: dict):
    yield "seed", config.get("seed")
    for name, entry in _models(config):
        for i, seed in enumerate(entry.get("seeds") or []):
            yield f"models.{name}.seeds[{i}]", seed
        for dom, over in (entry.get("domain_settings") or {}).items():
            for i, seed in enumerate((over or {}).get("seeds") or [] if isinstance(over, dict) else []):
                yield f"models.{name}.domain_settings.{dom}.seeds[{i}]", seed
