"""The symt family in the registry (genplan.registry). A model entry of the config:

    symt_ed:
      family: symt
      architecture: encoder_decoder   # encoder: SymT^E (heuristic) | encoder_decoder: SymT^ED (plans)
      object_pool: 32                 # object tokens o0..o31 (or {type: K} with per_type: true)
      loss_weights: [1, 1, 1]         # w1 L_pred + w2 L_att + w3 L_hid; [1, 0, 0]: no contrastive loss
      rename: rename-both             # rename-both | rename-one (the contrastive pairs) | random | sorted
      max_tokens: 500                 # generation cap
      network: {d_model: 128, n_heads: 4, n_layers: 4, d_token: 32, decoder_positions: none}
      train: {epochs: 20, batch_size: 32, lr: 0.0003, examples: 2000}
      # or train: {data: plans, ...}: the states along the training plans, no state space (IPC 2023)
      seeds: [13]
      strategies: [greedy, greedy-applicable, greedy-reground]   # SymT^E: [heuristic-greedy, gbfs]
      search: {max_expansions: 100000, time_limit: 60}          # SymT^E's gbfs: limits per problem
      names: {order: random, samples: 4, seed: 0}   # SymT^E h, SymT^ED tokens: K renamings (default: pool order)

System names as published_results.csv: `symt_e` (encoder) and `symt_ed` (encoder_decoder); the
variant says how it was trained (contrastive | att_only | hid_only | no_contrastive).

`train: {data: plans}` trains on the states along the training problems' plans (the trajectories
stage's VAL-checked plans), each with its plan length to go as target (SymT^ED: the rest of the
plan), without state spaces and, where the benchmark has no validation split (IPC 2023), selecting
its weights on training problems held out (`val_fraction`; genplan.models.symt.plan_data).

SymT^E plans with the searches of genplan.planners.search, its estimate as the heuristic
(`SymT.bind`): `heuristic-greedy` (the paper's greedy heuristic guidance) or `gbfs`. By default
the objects are named in pool order (objects in natural order take the pool's tokens in order: the
names rename-one's fixed copy X trains on); `names: {order: random, samples: K, seed: S}` (not in the
paper) names them at random instead, K renamings drawn per problem from seed S, h the mean of the
K estimates (experiments/sequence-recipe.md: the pool-order names are memorised). SymT^ED reads
`names: {order: random, seed: S}` too: its decoding plans under one random renaming a problem
(genplan.planners.autoregressive), or with `samples: K` under K at once, each token chosen from the
mean of their next-token distributions (genplan.planners.renaming_ensemble; not in the paper either).
"""

from __future__ import annotations

from genplan.models.symt import PLANNING_KEYS  # noqa: F401 (the registry reads it here)

ENCODER_KINDS = ("heuristic-greedy", "gbfs")
DECODER_KINDS = ("greedy", "greedy-applicable", "greedy-reground")


def identity(settings: dict) -> tuple[str, str]:
    from genplan.models.symt.model import variant_of

    system = "symt_e" if settings.get("architecture", "encoder_decoder") == "encoder" else "symt_ed"
    return system, variant_of(settings.get("loss_weights", [1, 1, 1]))


def size_entry(summary: dict) -> tuple[str, str, str]:
    """(system, variant, architecture) of a training summary in the model-sizes table: one row per
    configured model, under its name."""
    return summary["model"], summary["variant"], "shared-weight transformer"


def check(name: str, settings: dict) -> list[str]:
    from genplan.planners.strategies import kinds_of
    from genplan.tokens.renaming import pool_setting_problems

    problems = pool_setting_problems(settings)
    arch = settings.get("architecture", "encoder_decoder")
    offered = ENCODER_KINDS if arch == "encoder" else DECODER_KINDS
    for s, kind in kinds_of(settings.get("strategies", [])):
        if kind not in offered:
            problems.append(f"strategy {s!r} is not one of architecture {arch}'s kinds {list(offered)}")
    weights = settings.get("loss_weights", [1, 1, 1])
    if settings.get("rename") in ("random", "sorted") and list(weights[1:]) != [0, 0]:
        problems.append(f"rename: {settings['rename']} has no renamed pairs for the contrastive losses: set "
                        "loss_weights [w1, 0, 0]")
    return problems


def _from_plans(settings: dict) -> bool:
    return (settings.get("train") or {}).get("data") == "plans"


def trains_from(settings: dict) -> tuple[str, ...]:
    """The stages whose outputs a model entry trains on (the workflow's inputs): the trajectories only
    with `train: {data: plans}` (their records hold every state, the statics and the goal), else the
    trajectories and the state spaces."""
    return ("trajectories",) if _from_plans(settings) else ("trajectories", "statespaces")


def trains_without_validation(settings: dict) -> bool:
    """Whether the entry trains on a benchmark without a validation split and without state spaces:
    from plans, holding out training problems to select its weights on."""
    return _from_plans(settings)


def train(name: str, settings: dict, domain: str, data: dict, seed: int, out, log_csv=None, summary_json=None,
          threads: int = 1, device: str = "auto", on_epoch=None) -> dict:
    from genplan.models.symt.train import train_symt

    return train_symt(name, settings, domain, data, seed, out, log_csv, summary_json, threads=threads, device=device,
                      on_epoch=on_epoch)


def load(envelope: dict, path):
    from genplan.models.symt.model import SymT

    return SymT.from_envelope(envelope, path)


def planner(model, strategy, settings: dict):
    offered = ENCODER_KINDS if model.settings.architecture == "encoder" else DECODER_KINDS
    if strategy.kind not in offered:
        raise ValueError(f"a {model.system} model offers the strategies {list(offered)}, not {strategy.name!r}")
    if strategy.kind in ENCODER_KINDS:
        from genplan.planners.search import HeuristicSearchPlanner

        return HeuristicSearchPlanner(model, strategy, settings, max_tokens=model.settings.max_tokens)
    from genplan.planners.autoregressive import SequencePlanner

    settings = settings or {}
    return SequencePlanner(model, strategy, settings.get("generate"), names=settings.get("names"))
