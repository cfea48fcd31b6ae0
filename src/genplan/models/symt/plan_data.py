"""SymT's training data from plans (`train: {data: plans}`, for benchmarks such as the IPC 2023
track whose training problems are too large to expand): no state space is expanded.

- training: the states along each training problem's plan (the trajectories stage's VAL-checked
  plans: the shipped reference plans or our planners'), each with the rest of its plan: SymT^E's
  target h is its plan length to go (an upper bound of h*, exact where the plan is optimal), its
  goal state with h = 0; SymT^ED's target the rest of the plan itself (goal states left out). At
  most `examples` of them, drawn uniformly without replacement (seeded) where there are more.
- validation (the weights' selection by validation L_pred): the validation split's plan states as
  on the state-space path where the benchmark has one; where it has none (IPC 2023), a seeded
  `val_fraction` of the training PROBLEMS (at least one) is held out and its plans' states are the
  validation examples: whole problems, so that no state of a validation plan is trained on, and
  the selection scores problems the model has not seen, as a validation split would.

The cases are those of `genplan.models.symt.data.validation_cases` (the trajectories' states, statics
and goals): the problem files are not read."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from genplan.errors import GenplanError
from genplan.models.symt import data


def plan_inputs(files: dict) -> tuple[Path, Path | None]:
    """(the training trajectories file, the validation split's or None); GenplanError for other inputs."""
    train = [Path(f) for f in files.get("train", [])]
    val = [Path(f) for f in files.get("validation", [])]
    if len(train) != 1 or not str(train[0]).endswith(".json.gz") or len(val) > 1 or \
            any(not str(f).endswith(".json.gz") for f in val):
        raise GenplanError("SymT with `train: {data: plans}` trains on one trajectories file of the train split "
                           "(trajectories/<benchmark>/<domain>/train.json.gz) and, where the benchmark has one, "
                           f"the validation split's (.json.gz); no state space: got {files}")
    return train[0], (val[0] if val else None)


def held_out(names: list[str], fraction: float, seed: int) -> set[str]:
    """round(fraction * n) of the problems (at least one, never all), drawn with the job's seed."""
    k = min(len(names) - 1, max(1, round(fraction * len(names))))
    order = np.random.default_rng(seed).permutation(len(names))
    return {names[int(i)] for i in order[:k]}


def plan_cases(doc: dict, path: Path, val_doc: dict | None, val_path: Path | None, train_settings, seed: int,
               keep_goal_states: bool) -> tuple[list, dict, list]:
    """(training cases, what the summary reports of them, validation cases) of the module doc."""
    problems = [rec["problem"] for rec in doc["problems"]]
    if not problems:
        raise GenplanError("no training problem has a plan: nothing to learn from", path)
    if val_doc is None:
        if len(problems) < 2:
            raise GenplanError("one training problem with a plan and no validation split: no problem to hold out "
                               "for selecting the weights (give a validation split or more training plans)", path)
        held = held_out(problems, train_settings.val_fraction, seed)
        val_doc = {**doc, "problems": [rec for rec in doc["problems"] if rec["problem"] in held]}
        doc = {**doc, "problems": [rec for rec in doc["problems"] if rec["problem"] not in held]}
        source, val_path = "held-out training problems", path
    else:
        held, source = set(), "validation split"
    every = data.validation_cases(doc, float("inf"), seed, keep_goal_states)
    cases = every
    if len(cases) > train_settings.examples:
        keep = np.random.default_rng(seed).choice(len(cases), size=train_settings.examples, replace=False)
        cases = [cases[i] for i in sorted(keep.tolist())]
    if not cases:
        raise GenplanError("the training plans hold no state to learn from (every plan is empty)", path)
    val_cases = data.validation_cases(val_doc, train_settings.val_examples, seed, keep_goal_states)
    if not val_cases:
        raise GenplanError("the validation plans hold no state with a plan", val_path)
    info = {"training_data": "plans", "target": "plan_length_to_go" if keep_goal_states else "rest_of_plan",
            "train_problems": len(doc["problems"]), "plan_states": len(every), "validation_from": source,
            "held_out_problems": sorted(held)}
    return cases, info, val_cases
