"""Plansformer (Pallagani et al. 2022, arXiv:2212.08681) as a baseline row: a pretrained CodeT5
model that a user has on disk (a Hugging Face folder: `config.json` of a T5, the weights, the tokenizer),
loaded with `transformers` without the network, planning through the one planner interface so that
`genplan.evaluation.split` VAL-checks and records its plans as every family's (`genplan plansformer`, which
hands `evaluate_split` this module's planner).

Genplan does not train it: it is no family of the registry (no schema, training or workflow rule),
so that the configurations are unchanged.
Its rows read system `plansformer`, variant `pretrained`, as `published_results.csv` names the
state-centric paper's Plansformer column.

Strategies (genplan.planners.strategies): `multibeamN` (beam search with N beams, the most probable
sequence; the default `multibeam2`, the beam count of the authors' validation and inference code)
and `greedy`. Settings (`genplan plansformer --settings`, all optional): `max_length` (generated
tokens, default 512), `max_source_tokens` (the prompt is cut to this many tokens, default 512,
the fine-tuning's source length; 0: never cut), `repetition_penalty` (2.5) and `length_penalty`
(1.0), both as the authors' code generates.
"""

from __future__ import annotations

import json
import logging
import os
import time
from dataclasses import dataclass
from pathlib import Path

from genplan.errors import GenplanError
from genplan.planners.base import Attempt

log = logging.getLogger("genplan")

NAME = "plansformer"
SYSTEM, VARIANT = "plansformer", "pretrained"  # as published_results.csv names the column
DEFAULT_STRATEGY = "multibeam2"
DEFAULTS = {"max_length": 512, "max_source_tokens": 512, "repetition_penalty": 2.5, "length_penalty": 1.0}
WEIGHTS = ("model.safetensors", "pytorch_model.bin", "model.safetensors.index.json", "pytorch_model.bin.index.json")
INSTALL = "pip install -e '.[plansformer]'"

STRATEGY_KINDS = ("greedy", "multibeam")


@dataclass
class PlansformerModel:
    network: object  # transformers' T5ForConditionalGeneration, in eval mode
    tokenizer: object
    path: Path
    device: str = "cpu"
    name: str = NAME
    seed: str = "0"
    family: str = NAME
    system: str = SYSTEM
    variant: str = VARIANT
    default_strategy: str = DEFAULT_STRATEGY


def check_folder(path: str | Path) -> Path:
    """`path` if it looks like a T5 pretrained model folder with weights and a tokenizer; GenplanError
    naming it and what is missing otherwise (before transformers is imported)."""
    path = Path(path)
    if not path.exists():
        raise GenplanError("Plansformer checkpoint folder not found", path)
    if not path.is_dir():
        raise GenplanError("not a folder: a Plansformer checkpoint is a Hugging Face model folder "
                           "(config.json, the weights, vocab.json and merges.txt)", path)
    config = path / "config.json"
    if not config.is_file():
        raise GenplanError("no config.json: not a Hugging Face model folder", path)
    try:
        model_type = json.loads(config.read_text()).get("model_type")
    except (json.JSONDecodeError, UnicodeDecodeError, AttributeError):
        raise GenplanError("not a JSON object: not a Hugging Face model configuration", config) from None
    if model_type != "t5":
        raise GenplanError(f"model_type {model_type!r}, not 't5': not a CodeT5 (T5) checkpoint", config)
    if not any((path / w).is_file() for w in WEIGHTS):
        raise GenplanError(f"no weights: none of {list(WEIGHTS)}", path)
    bpe = (path / "vocab.json").is_file() and (path / "merges.txt").is_file()
    if not ((path / "tokenizer.json").is_file() or bpe):
        raise GenplanError("no tokenizer: neither tokenizer.json nor vocab.json and merges.txt (CodeT5's "
                           "RoBERTa-style BPE); save the tokenizer into the folder with the model", path)
    return path


def load_checkpoint(path: str | Path, seed: str = "0", name: str = NAME, device: str | None = None,
                    threads: int = 1) -> PlansformerModel:
    """The pretrained model folder's model and tokenizer, from local files only; GenplanError naming the
    folder for one that is missing, not a T5 model, lacks the tokenizer, or does not load."""
    path = check_folder(path)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # local files only: never the network
    try:
        import torch
        from transformers import AutoTokenizer, T5ForConditionalGeneration
        from transformers.utils import logging as hf_logging
    except ImportError as exc:
        raise GenplanError(f"the Plansformer baseline needs `transformers` ({exc}): {INSTALL}", path) from None
    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()
    torch.set_num_threads(threads)
    try:
        tokenizer = _tokenizer(path, AutoTokenizer)
        network = T5ForConditionalGeneration.from_pretrained(path, local_files_only=True)
    except (OSError, ValueError, RuntimeError, KeyError, TypeError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise GenplanError(f"cannot load the checkpoint with transformers: {first}", path) from None
    vocab = network.config.vocab_size
    if len(tokenizer) > vocab:
        raise GenplanError(f"the tokenizer has {len(tokenizer)} tokens, the model's embedding {vocab}: not this "
                           "model's tokenizer", path)
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    try:
        network.to(device).eval()
    except (RuntimeError, AssertionError, ValueError) as exc:  # no such device, or torch built without it
        raise GenplanError(f"cannot put the model on device {device!r}: {exc}", path) from None
    return PlansformerModel(network, tokenizer, path, device=device, name=name, seed=str(seed))


def check(strategy: str, settings: dict) -> None:
    """Before the model loads: ValueError naming a strategy Plansformer does not plan with or a
    setting that is unknown or out of range."""
    from genplan.planners.strategies import UnknownStrategy, parse

    try:
        strat = parse(strategy)
    except UnknownStrategy:
        strat = None
    if strat is None or strat.kind not in STRATEGY_KINDS or (strat.kind == "multibeam" and strat["anyvalid"]):
        raise ValueError(f"Unknown value strategy={strategy!r} for Plansformer. Must be greedy or multibeamN "
                         "(N beams, the most probable sequence)")
    unknown = sorted(set(settings) - set(DEFAULTS))
    if unknown:
        raise ValueError(f"Unknown Plansformer settings {unknown}. Must be from {sorted(DEFAULTS)}")
    for key, value in settings.items():
        least = 0 if key == "max_source_tokens" else 1 if key == "max_length" else 0.0
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < least or (
                key in ("max_length", "max_source_tokens") and not isinstance(value, int)):
            raise ValueError(f"Plansformer setting {key}={value!r}: a number of at least {least} expected"
                             + (" (an integer)" if key in ("max_length", "max_source_tokens") else ""))


def _tokenizer(path: Path, auto):
    """The folder's tokenizer. The authors' pretrained model folder (transformers 4.21) keeps CodeT5's tokenizer as
    vocab.json and merges.txt with a tokenizer_config.json whose special tokens are `{"__type":
    "AddedToken", ...}` objects, which transformers 5 no longer reads (TypeError); such a folder's
    BPE files are read as CodeT5's RobertaTokenizer, with RoBERTa's special tokens (<s> 1, </s> 2,
    <pad> 0, <unk> 3, <mask> 4 in CodeT5's vocabulary) and its 512-token length."""
    try:
        return auto.from_pretrained(path, local_files_only=True)
    except (TypeError, ValueError, KeyError, AttributeError):
        if not ((path / "vocab.json").is_file() and (path / "merges.txt").is_file()):
            raise
    from transformers import RobertaTokenizer

    log.info("%s: tokenizer_config.json of an older transformers: reading vocab.json and merges.txt as "
             "CodeT5's RobertaTokenizer", path)
    return RobertaTokenizer(vocab=str(path / "vocab.json"), merges=str(path / "merges.txt"), model_max_length=512)


def planner(model: PlansformerModel, strategy, settings: dict) -> PlansformerPlanner:
    check(strategy.name, settings)
    return PlansformerPlanner(model, strategy, {**DEFAULTS, **settings})


class PlansformerPlanner:
    """One problem: the prompt (genplan.models.plansformer.prompt), one `generate` call, the text
    read as a plan and simulated (pymimir) for the attempt's reason: `goal`, `not_goal`,
    `inapplicable` (an action not applicable where it stands, or naming an unknown object),
    `malformed` (text that is no list of the domain's actions with their arities: the plan is then
    empty), `token_cap` (`max_length` reached short of the goal). VAL has the final word
    (genplan.planners.solve)."""

    def __init__(self, model: PlansformerModel, strategy, settings: dict):
        self.model, self.strategy, self.settings = model, strategy.name, settings
        self.beams = strategy["beams"] if strategy.kind == "multibeam" else 1

    def solve(self, problem) -> Attempt:
        import torch

        from genplan.models.plansformer.prompt import prompt

        start = time.perf_counter()
        text = prompt(problem.domain_file, problem.problem_file)
        tok, net = self.model.tokenizer, self.model.network
        ids = tok(text, return_tensors="pt").input_ids
        cut = int(self.settings["max_source_tokens"])
        truncated = bool(cut) and ids.shape[1] > cut
        if truncated:  # as the fine-tuning's tokenizer call (truncation=True): the first cut - 1, then </s>
            ids = torch.cat([ids[:, :cut - 1], ids[:, -1:]], dim=1)
        max_length = int(self.settings["max_length"])
        with torch.no_grad():
            out = net.generate(ids.to(self.model.device), attention_mask=torch.ones_like(ids).to(self.model.device),
                               max_length=max_length, num_beams=self.beams, do_sample=False,
                               repetition_penalty=float(self.settings["repetition_penalty"]),
                               length_penalty=float(self.settings["length_penalty"]), early_stopping=False)
        generated = out[0].tolist()[1:]  # after the decoder's start token
        capped = tok.eos_token_id not in generated and len(generated) + 1 >= max_length
        answer = tok.decode(generated, skip_special_tokens=True)
        counters = {"prompt_tokens": int(ids.shape[1]), "truncated": int(truncated)}
        plan, reason = read_answer(answer, problem)
        if reason != "goal" and capped:
            reason = "token_cap"
        if reason != "goal":
            counters["answer"] = answer[:200]  # what the model wrote, for a reader of the CSV
        return Attempt(plan, reason, time.perf_counter() - start, steps=len(plan), horizon=max_length,
                       model_calls=len(generated), tokens_generated=len(generated), counters=counters)


def read_answer(answer: str, problem) -> tuple[list, str]:
    """The plan in the model's answer and the attempt's reason (see `PlansformerPlanner`), by
    simulating the plan with pymimir; the empty plan where the answer is `malformed`."""
    from genplan.models.plansformer.prompt import read_plan_text
    from genplan.pddl_io import parse_domain
    from genplan.planners.autoregressive import simulate

    try:
        plan = read_plan_text(answer)
    except ValueError:
        return [], "malformed"
    actions = parse_domain(problem.domain_file).actions
    if any(actions.get(a[0]) != len(a) - 1 for a in plan):
        return [], "malformed"  # not a list of the domain's actions with their arities
    return plan, simulate(problem, plan)
