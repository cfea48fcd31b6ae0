"""The plangpt family in the registry (genplan.registry). A model entry of the config:

    plangpt:
      family: plangpt
      data: symt              # symt: states sampled from the training state spaces; plangpt: the plans
      object_pool: 32         # object tokens o0..o31 (or {type: K} with per_type: true)
      per_type: false
      atom_order: canonical   # canonical | shuffled
      object_embeddings: learned  # learned | fixed (object rows fixed apart; experiments/sequence-recipe.md)
      max_tokens: 500         # generation cap
      network: {d_model: 128, n_heads: 4, n_layers: 2, max_len: 512, dropout: 0.0}
      train: {epochs: 20, batch_size: 16, lr: 0.0003, stop: ce, patience: 5, examples: 2000}
      seeds: [13]
      strategies: [greedy, greedy-applicable, greedy-reground]
      names: {order: random, samples: 16, seed: 0}   # planning only (default: pool order)

`names` (not in the papers) names the objects at planning as SymT^ED does
(genplan.planners.autoregressive): one random renaming a problem drawn from `seed`, or with `samples: K`
a renaming ensemble of K (genplan.planners.renaming_ensemble), for the greedy strategies only.
"""

from __future__ import annotations

from genplan.models.plangpt import PLANNING_KEYS  # noqa: F401 (the registry reads it here)


def identity(settings: dict) -> tuple[str, str]:
    return "plangpt", (settings.get("train") or {}).get("stop", "ce")


def size_entry(summary: dict) -> tuple[str, str, str]:
    """(system, variant, architecture) of a training summary in the model-sizes table: one row per
    configured model, under its name."""
    return summary["model"], "", "GPT-2 decoder"


def check(name: str, settings: dict) -> list[str]:
    from genplan.planners.autoregressive import ensemble_refusal
    from genplan.planners.strategies import kinds_of
    from genplan.tokens.renaming import pool_setting_problems

    names = settings.get("names")
    refusals = (ensemble_refusal(s, kind, names) for s, kind in kinds_of(settings.get("strategies", [])))
    return pool_setting_problems(settings) + [r for r in refusals if r]


def train(name: str, settings: dict, domain: str, data: dict, seed: int, out, log_csv=None, summary_json=None,
          threads: int = 1, device: str = "auto", on_epoch=None) -> dict:
    from genplan.models.plangpt.train import train_plangpt

    return train_plangpt(name, settings, domain, data, seed, out, log_csv, summary_json, threads=threads,
                         device=device, on_epoch=on_epoch)


def load(envelope: dict, path):
    from genplan.models.plangpt.model import PlanGPT

    return PlanGPT.from_envelope(envelope, path)


def planner(model, strategy, settings: dict):
    from genplan.planners.autoregressive import SequencePlanner

    return SequencePlanner(model, strategy, (settings or {}).get("generate"), names=(settings or {}).get("names"))
