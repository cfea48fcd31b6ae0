"""The model families: how each trains, loads, plans, and what its jobs ask of a cluster.

A *family* is a kind of learned planner (transition, plangpt, symt, diffusion, heuristic); a
*model* is a named configuration of a family in the config's `models` section; a
*strategy* is a named way of planning with it (`genplan.planners.strategies`). The workflow and
the command line speak these three words only. Families register here with the module that
implements them, imported on first use, so that reading the config (Snakemake parses it for
every job) imports neither torch nor pymimir.

A family module (`Family.module`, its `family.py`) provides what the command line and the workflow call:
    train(name, settings, domain, data, seed, out, log_csv, summary_json, threads, device, on_epoch)
        -> summary (`genplan train`): the checkpoint envelope (genplan.checkpoint), the log and the
        summary written through genplan.training.job, so that every summary holds what the reports
        read (genplan.report.collect.REPORTED)
    load(envelope, path) -> a model held in memory (`load_model`)
    planner(model, strategy, settings) -> a Planner (genplan.planners.base; `planner`)
    check(name, settings) -> list of problems with a model entry beyond its schema (`check_models`)
    size_entry(summary) -> (system, variant, architecture) of a training summary in the model-sizes
        table (genplan.report.leaderboard)
    PLANNING_KEYS: keys of a model entry that only plan with a model (beside genplan.models.settings'
        SCHEDULING_KEYS, which every family shares): neither decides the trained weights; defined
        in the family's package `__init__.py`, so that its model.py reads them without family.py
and may provide:
    trains_from(settings) -> the stages one model entry trains on (default: the entry's
        `trains_from`; the workflow's inputs, workflow/rules/common.smk)
    trains_without_validation(settings) -> True where an entry needs no validation split
        (genplan.configuration)
    identity(settings) -> (system, variant) as published_results.csv names them (the built-in
        families' own summaries and planners use it; nothing here calls it)
and, beside it, `schema.yaml`: its model entry's JSON schema (genplan.configuration). A family's
strategy kinds are rows of genplan.planners.strategies.TABLE, named in its `Family` entry.

A family beyond these five registers with `register`, or, for the workflow and the commands it
runs, by naming its registry entry's module in the environment variable GENPLAN_FAMILIES
(comma-separated): each such module's `FAMILY` holds a `Family`'s fields as a mapping (it need not
import this module).
"""

from __future__ import annotations

import importlib
import os
from dataclasses import dataclass
from pathlib import Path

import yaml

from genplan.errors import GenplanError
from genplan.models.settings import SCHEDULING_KEYS
from genplan.planners import strategies

TRAINING_DATA = ("trajectories", "statespaces")
ENVIRONMENT = "GENPLAN_FAMILIES"  # modules of further families' registry entries, comma-separated


@dataclass(frozen=True)
class Family:
    name: str
    module: str  # implements train, load, planner, identity, check, size_entry (see above)
    trains_from: tuple[str, ...]  # stages whose outputs it trains on: trajectories and/or statespaces
    strategy_kinds: tuple[str, ...]  # kinds of genplan.planners.strategies.TABLE it offers
    gpu: bool  # a training job asks the cluster for one GPU (`gpu: 1`)
    default_strategy: str  # `genplan solve` without --strategy
    numpy_weights: bool = False  # its models load and plan without torch (genplan.checkpoint_numpy)

    def __post_init__(self):
        for kind in self.strategy_kinds:  # one table of kinds: a family offers only kinds of it
            strategies.kind(kind)

    @property
    def impl(self):
        return importlib.import_module(self.module)

    @property
    def planning_keys(self) -> tuple[str, ...]:
        """The keys of a model entry that only plan with the model (the family module's PLANNING_KEYS)."""
        return tuple(getattr(self.impl, "PLANNING_KEYS", ()))

    @property
    def non_weight_keys(self) -> tuple[str, ...]:
        """The keys of a model entry that never decide its trained weights: scheduling and planning."""
        return SCHEDULING_KEYS + self.planning_keys

    def schema(self) -> dict:
        """The `$defs` the family adds to the config schema: `schema.yaml` beside its module, which
        defines at least `<name>` (a model entry of the family)."""
        path = Path(self.impl.__file__).with_name("schema.yaml")
        defs = yaml.safe_load(path.read_text()) if path.is_file() else None
        if not isinstance(defs, dict) or self.name not in defs:
            raise GenplanError(f"family {self.name}: no schema of its model entry (`{self.name}:`)", path)
        return defs


FAMILIES: dict[str, Family] = {
    f.name: f for f in (
        # the transition LSTMs and XGBoost train in 17-337 s on CPUs (paper-cpu's summaries): no GPU held for them
        Family("transition", "genplan.models.transition.family", ("trajectories",), ("beam",), gpu=False,
               default_strategy="beam3-pooled"),
        Family("plangpt", "genplan.models.plangpt.family", ("trajectories", "statespaces"),
               ("greedy", "greedy-applicable", "greedy-reground", "multibeam", "topp", "prefix"), gpu=True,
               default_strategy="greedy"),
        Family("symt", "genplan.models.symt.family", ("trajectories", "statespaces"),
               ("heuristic-greedy", "gbfs", "greedy", "greedy-applicable", "greedy-reground"), gpu=True,
               default_strategy="greedy"),  # SymT^E models plan with heuristic-greedy (their default_strategy)
        Family("diffusion", "genplan.models.diffusion.family", ("trajectories", "statespaces"),
               ("unmask", "unmask-applicable"), gpu=True, default_strategy="unmask-T20"),
        Family("heuristic", "genplan.models.heuristic.family", ("trajectories", "statespaces"),
               ("gbfs", "lazy-gbfs", "novelty-gbfs", "descent", "compiled-gbfs", "compiled-novelty-gbfs",
                "compiled-lazy-gbfs", "hybrid-ff-gbfs", "compiled-hybrid-ff-gbfs"), gpu=False,
               default_strategy="gbfs", numpy_weights=True),
    )
}


def register(fam: Family) -> Family:
    """Add a family to the registry (a name taken already, or data no stage makes: ValueError)."""
    if fam.name in FAMILIES:
        raise ValueError(f"family {fam.name!r} is registered already")
    unknown = sorted(set(fam.trains_from) - set(TRAINING_DATA))
    if unknown:
        raise ValueError(f"family {fam.name!r} trains from {unknown}; the stages make {list(TRAINING_DATA)}")
    FAMILIES[fam.name] = fam
    return fam


def _register_from_environment() -> None:
    """The families whose registry entries' modules GENPLAN_FAMILIES names (see the module docstring)."""
    for module in filter(None, (m.strip() for m in os.environ.get(ENVIRONMENT, "").split(","))):
        entry = dict(importlib.import_module(module).FAMILY)
        register(Family(**{**entry, "trains_from": tuple(entry["trains_from"]),
                           "strategy_kinds": tuple(entry["strategy_kinds"])}))


_register_from_environment()


def family(name: str) -> Family:
    if name not in FAMILIES:
        raise ValueError(f"Unknown value family={name!r}. Must be from {list(FAMILIES)}")
    return FAMILIES[name]


def entry_for(entry: dict, domain: str | None) -> dict:
    """The model entry as it trains and plans on `domain`: its `domain_settings[domain]` keys replace
    the entry's own (whole keys: a `train` there is the whole `train` block), `domain_settings` left
    out (domain None: the entry's own keys). The config names such settings, e.g. a recipe run on some
    domains of a CPU budget only."""
    out = {k: v for k, v in entry.items() if k != "domain_settings"}
    out.update((entry.get("domain_settings") or {}).get(domain) or {})
    return out


def weight_settings(entry: dict) -> dict:
    """A model entry's family and the settings that decide its trained weights (`genplan train
    --settings`): the entry without its family's non-weight keys, so that adding a seed, a strategy
    or a planning limit retrains nothing."""
    fam = family(entry["family"])
    return {"family": fam.name, **{k: v for k, v in entry.items() if k not in fam.non_weight_keys}}


def planning_settings(entry: dict) -> dict:
    """A model entry's planning settings (`genplan evaluate --settings`): its family's planning keys."""
    return {k: entry[k] for k in family(entry["family"]).planning_keys if k in entry}


def check_models(models: dict) -> list[str]:
    """Every problem with the config's `models` section that its JSON schema cannot see: unknown
    families, strategies a family does not offer, settings its family rejects. One line each,
    naming the model."""
    problems = []
    for name, entry in (models or {}).items():
        try:
            fam = family(entry.get("family"))
        except ValueError as exc:
            problems.append(f"models.{name}: {exc}")
            continue
        for s in entry.get("strategies", []):
            try:
                kind = strategies.parse(s).kind
            except ValueError as exc:
                problems.append(f"models.{name}.strategies: {exc}")
                continue
            if kind not in fam.strategy_kinds:
                problems.append(f"models.{name}.strategies: {s!r} is a {kind} strategy; family {fam.name} offers "
                                f"{list(fam.strategy_kinds)} strategies")
        for s in entry.get("strategy_splits") or {}:
            if s not in entry.get("strategies", []):
                problems.append(f"models.{name}.strategy_splits: {s!r} is not among the model's strategies")
        problems += [f"models.{name}: {p}" for p in fam.impl.check(name, entry)]
        for domain in entry.get("domain_settings") or {}:
            if entry.get("domains") is not None and domain not in entry["domains"]:
                problems.append(f"models.{name}.domain_settings: {domain!r} is not among the model's domains "
                                f"{entry['domains']}")
                continue
            problems += [f"models.{name}.domain_settings.{domain}: {p}"
                         for p in fam.impl.check(name, entry_for(entry, domain))]
    return problems


def validate_models(models: dict) -> None:
    problems = check_models(models)
    if problems:
        raise ValueError("invalid configuration:\n  " + "\n  ".join(problems))


def load_model(path: str | Path, expect_domain: str | None = None):
    """The model of any family in a checkpoint file; GenplanError for a missing, corrupt or
    foreign file, or (with expect_domain) a model of another domain."""
    from genplan import checkpoint

    env = checkpoint.read(path, numpy_families=tuple(f.name for f in FAMILIES.values() if f.numpy_weights))
    if env["family"] not in FAMILIES:
        raise GenplanError(f"checkpoint of unknown family {env['family']!r} (this genplan knows {list(FAMILIES)})",
                           path)
    if expect_domain is not None:
        checkpoint.check_domain(env, expect_domain, path)
    return FAMILIES[env["family"]].impl.load(env, path)


def planner(model, strategy, settings: dict | None = None):
    """A planner for a model held in memory (its `family` attribute names the family); `strategy` a
    Strategy (genplan.planners.strategies), or a name, parsed here."""
    fam = family(model.family)
    strat = strategy if isinstance(strategy, strategies.Strategy) else strategies.parse(strategy)
    if strat.kind not in fam.strategy_kinds:
        raise ValueError(f"family {fam.name} offers {list(fam.strategy_kinds)} strategies, not {strat.name!r}")
    return fam.impl.planner(model, strat, settings or {})
