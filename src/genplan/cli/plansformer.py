"""`genplan plansformer`: the Plansformer baseline's row. A user with the authors' pretrained CodeT5
model (a local folder; genplan.models.plansformer) plans one split with it; the plans are VAL-checked and
written as `genplan evaluate` writes every family's: one CSV row per problem (system `plansformer`,
variant `pretrained`) and the stored plans beside it, which the reports read."""

from __future__ import annotations

from pathlib import Path

from genplan.cli import writes
from genplan.cli.solve import STORED_PLANS
from genplan.cli.types import BENCHMARK_DIR, PLANS_TABLE, SPLIT, Command, arg
from genplan.cli.types import json_object as _json


def cmd_plansformer(a) -> int:
    from genplan.errors import GenplanError
    from genplan.evaluation.split import evaluate_split
    from genplan.models.plansformer import family
    from genplan.planners.strategies import parse

    settings = dict(a.settings)
    if a.max_length is not None:
        settings["max_length"] = a.max_length
    family.check(a.strategy, settings)  # before the model loads
    family.check_folder(a.checkpoint)
    for path, what in ((a.plans_table, "plans table"), (Path(a.benchmark_dir) / "domain.pddl", "domain.pddl")):
        if not Path(path).is_file():
            raise GenplanError(f"{what} not found", path)
    if a.threads < 1:
        raise GenplanError(f"--threads must be at least 1, not {a.threads}")
    model = family.load_checkpoint(a.checkpoint, seed=a.seed, name=a.name, device=a.device, threads=a.threads)
    evaluate_split(a.checkpoint, a.benchmark_dir, a.split, a.plans_table, a.strategy, settings, a.out,
                   benchmark=a.benchmark, model=model, out_plans=a.out_plans,
                   planner=family.planner(model, parse(a.strategy), settings))
    return 0


COMMANDS = (
    Command("plansformer", cmd_plansformer, "plan and VAL-check one split with a local Plansformer (CodeT5) "
            "pretrained model folder (one evaluation CSV, system plansformer)", (
                arg("--checkpoint", required=True, path=writes.TREE, help="the pretrained model folder: config.json of a T5, "
                    "pytorch_model.bin or model.safetensors, vocab.json and merges.txt (or tokenizer.json); "
                    "read from local files only"),
                BENCHMARK_DIR, SPLIT, PLANS_TABLE,
                arg("--strategy", default="multibeam2", path=writes.NOT_PATH, help="multibeamN (beam search, N beams, the most probable "
                    "sequence; 2 as the authors' code) or greedy"),
                arg("--max-length", type=int, default=None, help="at most this many generated tokens (default 512)"),
                arg("--settings", type=_json, default={}, help="JSON: max_length, max_source_tokens (the prompt cut "
                    "to this many tokens, 512 as in fine-tuning; 0: never), repetition_penalty (2.5), "
                    "length_penalty (1.0)"),
                arg("--benchmark", default=None, path=writes.NOT_PATH, help="recorded in the CSV (default: the folder's parent)"),
                arg("--seed", default="0", path=writes.NOT_PATH, help="recorded in the CSV (decoding is deterministic)"),
                arg("--name", default="plansformer", path=writes.NOT_PATH, help="the model's name in the CSV (its `model` column)"),
                arg("--device", default=None, path=writes.NOT_PATH, help="torch device (default: cuda where available, else cpu)"),
                arg("--threads", type=int, default=1, help="torch threads on the CPU (CodeT5-base's 220M "
                    "parameters plan faster with more)"),
                arg("--out", required=True, path=writes.OUT_FILE, help="the evaluation CSV, e.g. results/evaluation/paper/blocks/"
                    "plansformer/seed0/validation.multibeam2.csv for the reports"),
                arg("--out-plans", default=None, path=STORED_PLANS, help="the plans found (default: beside --out, "
                    "<split>.<strategy>.plans.json.gz)"))),
)
