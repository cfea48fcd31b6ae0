"""`genplan train`: one model (name, domain, seed) of any family, trained on its stage's outputs."""

from __future__ import annotations

import logging

from genplan.cli import writes
from genplan.cli.types import Command, arg
from genplan.cli.types import json_object as _json

log = logging.getLogger("genplan")


def cmd_train(a) -> int:
    from genplan import devices, registry
    from genplan.configuration import check_value

    settings = dict(a.settings)
    if a.family is not None:
        settings["family"] = a.family
    settings.setdefault("seeds", [a.seed])
    settings.setdefault("strategies", [])
    check_value(settings, ("$defs", "model"), f"--settings of model {a.model!r}")
    registry.validate_models({a.model: settings})
    fam = registry.family(settings["family"])
    device = devices.resolve(a.device, a.gpus)  # before any data is read: a GPU job without one stops here
    log.info("%s %s seed %d: training on %s (asked: --device %s, %d GPU(s)); %s", a.model, a.domain, a.seed, device,
             a.device, a.gpus, devices.report().line())
    data = {"train": a.train, "validation": a.validation}
    summary = fam.impl.train(a.model, settings, a.domain, data, a.seed, a.out, a.log, a.summary,
                             threads=a.threads, device=device)
    log.info("trained %s for %s (seed %d) in %.1f s: %s", a.model, a.domain, a.seed, summary["job_time_s"], a.out)
    return 0


def _training_reads(a, path: str):
    """What a training file implies: a state-space table's .npz files in the folder beside it
    (statespaces/<benchmark>/<domain>/train.csv -> train/), a trajectories file's problems folder."""
    from pathlib import Path

    from genplan.paths import problems_of_trajectories

    if path.endswith(".csv"):
        yield "its state spaces", Path(path).with_suffix(""), True
    problems = problems_of_trajectories(Path(path).resolve())
    if problems is not None:
        yield "its problems", problems, True


TRAINING_DATA = writes.PathArg("read", also=_training_reads)
COMMANDS = (
    Command("train", cmd_train, "train one model (name, domain, seed) of any family on its stage's outputs", (
        arg("--model", required=True, path=writes.NOT_PATH, help="the model's name in the config's `models` section"),
        arg("--settings", type=_json, required=True,
            help="the model's config entry (JSON): family and the family's settings"),
        arg("--family", default=None, path=writes.NOT_PATH, help="overrides the settings' family"),
        arg("--domain", required=True, path=writes.NOT_PATH, help="the workflow's domain key (blocks, gripper, ...)"),
        arg("--train", nargs="+", required=True, path=TRAINING_DATA,
            help="training data: trajectories (.json.gz) or state-space folders, as the family trains"),
        arg("--validation", nargs="*", default=[], path=TRAINING_DATA, help="validation data, as --train (none for a benchmark "
            "without a validation split, e.g. ipc2023: the families that select on it refuse)"),
        arg("--seed", type=int, required=True),
        arg("--threads", type=int, default=1, help="torch / XGBoost threads (scheduling: not a parameter)"),
        arg("--device", choices=["auto", "cpu", "cuda"], default="auto",
            help="auto: CUDA when present; inside a SLURM job that was given GPUs (--gpus > 0), CUDA or a refusal "
            "(genplan.devices); cuda: CUDA or a refusal"),
        arg("--gpus", type=int, default=0, help="the GPUs the scheduler gave this job (the rule's `gpu` resource)"),
        arg("--out", required=True, path=writes.OUT_FILE, help="the checkpoint"),
        arg("--log", default=None, path=writes.OUT_FILE, help="training log (CSV)"),
        arg("--summary", default=None, path=writes.OUT_FILE, help="summary (JSON)"))),
)
