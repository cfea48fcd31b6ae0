"""The heuristic family in the registry (genplan.registry): WL-GOOSE-style learned heuristics
("Return to Tradition", Chen, Trevizan, Thiebaux, ICAPS 2024): WL features (wlplan, ILG graphs) of
every state of the training state spaces regressed on h* (ridge in closed form, linear support-vector
regression, a linear ranking model, or XGBoost), or, with `train: {data: plans}`, the states along the training plans regressed
on their plan length to go and ranked against their siblings (no state space: from_plans), planned by eager greedy best-first search (`gbfs`), lazy greedy best-first search (`lazy-gbfs`), eager GBFS ordered by novelty then h (`novelty-gbfs`) or greedy descent
(`descent`) over pymimir successors (genplan.planners.search), or, for the linear learners, the
three GBFS in C++ (`compiled-gbfs`, `compiled-novelty-gbfs`, `compiled-lazy-gbfs`,
genplan.planners.compiled: the same plans as `gbfs`, `novelty-gbfs` and `lazy-gbfs`, faster), or a
hybrid with a classical heuristic, eager GBFS alternating open lists on the learned h and on hFF
(`hybrid-ff-gbfs`, `compiled-hybrid-ff-gbfs`, genplan.planners.hybrid: not the learned h alone,
named so that reports keep its rows apart).
System `learned_heuristic` in tables, the learner as variant.

A model entry of the config:

    heuristic_ridge:
      family: heuristic
      learner: ridge              # ridge | rank | svr | xgb
      encoder: {iterations: 2, multiset_hash: true, statics: true, pruning: none}   # pruning: wlplan's (a-m: WL-GOOSE's)
      train: {alpha: 0.01, weighting: layer, max_states: 50000}   # xgb: n_estimators, max_depth, learning_rate; svr: epsilon
      # or train: {data: plans, alpha: 0.01}: the trajectories' plan states (and rank: siblings), no state spaces
      search: {max_expansions: 100000, time_limit: 60}   # planning limits, per problem (memory_limit_mb: MiB)
      seeds: [13]
      strategies: [gbfs, descent]
"""

from __future__ import annotations

from genplan.models.heuristic import PLANNING_KEYS, XGB_FROM_PLANS  # noqa: F401 (the registry reads PLANNING_KEYS here)


def identity(settings: dict) -> tuple[str, str]:
    return "learned_heuristic", settings.get("learner", "ridge")


ARCHITECTURE = {"ridge": "linear (ridge)", "rank": "linear (ranking)", "svr": "linear (SVR)",
                "xgb": "gradient boosting"}  # per learner


def size_entry(summary: dict) -> tuple[str, str, str]:
    """(system, variant, architecture) of a training summary in the model-sizes table: one row per learner."""
    return summary["system"], summary["variant"], ARCHITECTURE[summary["variant"]]


def check(name: str, settings: dict) -> list[str]:
    from dataclasses import fields

    from genplan.models.heuristic.learners import HeuristicTraining

    known = {f.name for f in fields(HeuristicTraining)}
    unknown = sorted(set(settings.get("train") or {}) - known)
    if unknown:
        return [f"train: unknown settings {unknown} (known: {sorted(known)})"]
    try:
        HeuristicTraining(**(settings.get("train") or {}))
    except (TypeError, ValueError) as exc:
        return [f"train: {exc}"]
    if settings.get("learner") == "xgb" and (settings.get("train") or {}).get("data") == "plans":
        return [XGB_FROM_PLANS]
    return []


def trains_from(settings: dict) -> tuple[str, ...]:
    """The stages whose outputs a model entry trains on (the workflow's inputs): the trajectories
    and the problem files they name with `train: {data: plans}`, else the trajectories and the state spaces."""
    if (settings.get("train") or {}).get("data") == "plans":
        return ("trajectories", "problems")
    return ("trajectories", "statespaces")


def trains_without_validation(settings: dict) -> bool:
    """Whether the entry trains on a benchmark without a validation split (and without state spaces):
    from plans, it needs neither (the validation scores are only reported)."""
    return (settings.get("train") or {}).get("data") == "plans"


def train(name: str, settings: dict, domain: str, data: dict, seed: int, out, log_csv=None, summary_json=None,
          threads: int = 1, device: str = "auto", on_epoch=None) -> dict:
    from genplan.models.heuristic.train import train_heuristic

    return train_heuristic(name, settings, domain, data, seed, out, log_csv, summary_json, threads=threads,
                           device=device)


def load(envelope: dict, path):
    from genplan.models.heuristic.model import HeuristicModel

    return HeuristicModel.from_envelope(envelope, path)


def planner(model, strategy, settings: dict):
    from genplan.planners.search import HeuristicSearchPlanner

    return HeuristicSearchPlanner(model, strategy, settings)
