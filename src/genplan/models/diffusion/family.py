"""The diffusion family in the registry (genplan.registry). A model entry of the config:

    diffusion:
      family: diffusion
      object_pool: 32          # object tokens o0..o31 (one global pool; atom tokens are over it)
      max_plan_tokens: 220     # plan positions after <BOS> (the paper's Table 2: 220)
      rename: random           # random | sorted
      condition: table         # table | factored (atoms from predicate and object tokens)
      object_embeddings: learned  # learned | fixed (needs factored; experiments/sequence-recipe.md)
      network: {d_model: 128, n_heads: 4, n_layers: 4, dropout: 0.0}
      train: {epochs: 20, batch_size: 32, lr: 0.0003, examples: 2000, schedule: uniform, pad_weight: 1.0}
      seeds: [13]
      strategies: [unmask-T20, unmask-T20-applicable]

`schedule: beta` (with beta_a, beta_b) and `symmetry: rename-one | rename-both` are the paper's
future-work variants; the model's variant name says which (genplan.models.diffusion.model.variant_of).
"""

from __future__ import annotations

from genplan.models.diffusion import PLANNING_KEYS  # noqa: F401 (the registry reads it here)


def identity(settings: dict) -> tuple[str, str]:
    from genplan.models.diffusion.model import DiffusionSettings, variant_of

    return "diffusion", variant_of(DiffusionSettings.from_entry(settings))


def size_entry(summary: dict) -> tuple[str, str, str]:
    """(system, variant, architecture) of a training summary in the model-sizes table: one row per
    configured model, under its name."""
    return summary["model"], summary["variant"], "bidirectional transformer"


def check(name: str, settings: dict) -> list[str]:
    from genplan.errors import GenplanError
    from genplan.models.diffusion.model import DiffusionSettings

    try:
        DiffusionSettings.from_entry(settings)
    except GenplanError as exc:
        return [exc.message]
    return []


def train(name: str, settings: dict, domain: str, data: dict, seed: int, out, log_csv=None, summary_json=None,
          threads: int = 1, device: str = "auto", on_epoch=None) -> dict:
    from genplan.models.diffusion.train import train_diffusion

    return train_diffusion(name, settings, domain, data, seed, out, log_csv, summary_json, threads=threads,
                           device=device, on_epoch=on_epoch)


def load(envelope: dict, path):
    from genplan.models.diffusion.model import DiffusionModel

    return DiffusionModel.from_envelope(envelope, path)


def planner(model, strategy, settings: dict):
    from genplan.planners.diffusion import UnmaskPlanner

    return UnmaskPlanner(model, strategy, settings)
