"""One PlanGPT training job: (name, settings, domain, seed) -> checkpoint envelope, training log
(CSV: one row per epoch with the training loss, validation loss and, for CES, validation
coverage, as PlanGPT Figure 3 plots them) and summary.

Training runs in the shared job and loop (genplan.training): AdamW, warmup and cosine decay,
clipping, bf16 on CUDA, a copy of the best weights, resumable partial states, divergence counts.
The weights are chosen by validation loss (`ce`) or by validation coverage (`ces`, Planning
Coverage Early Stopping, PlanGPT Section 4.2): after each epoch the model, held in memory, plans the
validation problems greedily, VAL checks each plan, and the weights with the best coverage are
kept; `patience` epochs without improvement stop training (PlanGPT's early stopping)."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

import numpy as np
import torch

from genplan.datasets import examples
from genplan.datasets.domain_text import check_cases, training_domain
from genplan.datasets.examples import check_object_pool
from genplan.errors import GenplanError
from genplan.models.plangpt import data
from genplan.models.plangpt.model import PlanGPT, PlanGPTSettings
from genplan.nn.transformer import (
    OBJECT_EMBEDDINGS,
    Transformer,
    TransformerConfig,
    fixed_objects,
    parameter_count,
)
from genplan.training.job import Job, digest


def _split_files(files: list, suffix: str) -> list[Path]:
    return [Path(f) for f in files if str(f).endswith(suffix)]


def _cases(files: list, settings: PlanGPTSettings, seed: int, split: str) -> tuple[list, dict, str, Path]:
    """Cases of one split, the trajectories document (for its domain), the protocol used and the
    file the cases came from (for messages)."""
    from genplan.formats.trajectories import load

    trajs = _split_files(files, ".json.gz")
    if not trajs:
        raise GenplanError(f"PlanGPT needs the {split} split's trajectories file (.json.gz); got {files}")
    doc = load(trajs[0])
    tables = _split_files(files, ".csv")
    if settings.data == "symt" and split == "train":
        if not tables:
            raise GenplanError("the symt protocol samples the training state spaces: give the state-space table "
                               "(statespaces/<benchmark>/<domain>/train.csv) among --train")
        cases = examples.statespace_cases(tables[0].with_suffix(""), settings.train.examples, seed,
                                           by=settings.train.sample_by)[0]
        return cases, doc, "symt", tables[0]
    # validation (both protocols) and the plangpt protocol: the problems' own plans
    cases = examples.trajectory_cases(doc, suffixes=settings.train.suffixes and split == "train")
    return cases, doc, "plangpt", trajs[0]


def train_plangpt(name: str, entry: dict, domain: str, files: dict, seed: int, out, log_csv=None,
                  summary_json=None, threads: int = 1, device: str = "auto", on_epoch=None) -> dict:
    job = Job("plangpt", name, domain, seed, out, log_csv, summary_json, threads, device, on_epoch)
    settings = PlanGPTSettings.from_entry(entry)
    if (settings.data not in data.PROTOCOLS or settings.train.stop not in ("ce", "ces")
            or settings.rename not in data.RENAMINGS or settings.object_embeddings not in OBJECT_EMBEDDINGS):
        raise GenplanError(f"PlanGPT: data must be one of {list(data.PROTOCOLS)}, rename one of "
                           f"{list(data.RENAMINGS)}, train.stop ce or ces, object_embeddings learned or fixed")
    train_cases, doc, protocol, train_file = _cases(files.get("train", []), settings, seed, "train")
    val_cases, _, _, val_file = _cases(files.get("validation", []), settings, seed, "validation")
    domain_pddl, domain_info = training_domain(doc, _split_files(files["train"], ".json.gz")[0], domain)
    check_cases(train_cases, domain_info, train_file)  # another domain's file is named, not a token
    check_cases(val_cases, domain_info, val_file)
    check_object_pool(settings.object_pool, train_cases + val_cases)
    with job.seeded():
        model, sequences = _untrained(job, settings, domain_info, train_cases, val_cases)
        state = _fit(job, model, train_cases, sequences, domain_pddl, files)
    (t_ids, _, t_drop), (v_ids, _, v_drop) = sequences
    summary = {"model": name, "family": "plangpt", "system": model.system, "variant": model.variant,
               "domain": domain, "seed": seed, "protocol": protocol, "rename": settings.rename,
               "object_embeddings": settings.object_embeddings,
               "stop": settings.train.stop, "device": job.device, "parameters": parameter_count(model.net),
               "vocabulary": len(model.vocab), "train_sequences": len(t_ids), "train_dropped": t_drop,
               "val_sequences": len(v_ids), "val_dropped": v_drop, **job.outcome(state)}
    job.save_model(model, _network(model.vocab, settings), domain_pddl, state, summary, _log(state.history, state.selections))
    return summary


def _network(vocab, settings: PlanGPTSettings) -> dict:
    """The TransformerConfig arguments (stored in the checkpoint)."""
    return dict(vocab_size=len(vocab), causal=True, positions="learned", pad_id=vocab.pad_id,
                **asdict(settings.network), **fixed_objects(vocab, settings.object_embeddings))


def _untrained(job: Job, settings: PlanGPTSettings, domain_info, train_cases: list, val_cases: list):
    """The model before training and the (ids, masks, dropped) of the training and validation cases."""
    from genplan.tokens.vocab import Vocabulary

    vocab = Vocabulary.for_domain(domain_info, settings.object_pool)
    rng = np.random.default_rng(job.seed)
    sequences = [data.encode(cases, vocab, domain_info, rng, settings.per_type, order, settings.network.max_len,
                             settings.rename) for cases, order in ((train_cases, settings.atom_order),
                                                                   (val_cases, "canonical"))]
    if not sequences[0][0] or not sequences[1][0]:
        raise GenplanError(f"no training or validation sequence fits max_len {settings.network.max_len}")
    net = Transformer(TransformerConfig(**_network(vocab, settings)))
    return PlanGPT(job.identity(domain_info.name), vocab, net, settings, domain_info), sequences


def _fit(job: Job, model: PlanGPT, train_cases: list, sequences: list, domain_pddl: str, files: dict):
    """The loop's final state; each selection's validation loss (and coverage) are in its `selections`."""
    tr = model.settings.train
    (t_ids, _, _), (v_ids, v_masks, _) = sequences
    planned = tr.stop == "ces" or tr.track_coverage  # PlanGPT Figure 3: both curves of one run
    problems = _validation_problems(files.get("validation", []), tr.ces_problems) if planned else []

    def select(m) -> float:
        row = {"val_loss": _val_loss(m, v_ids, v_masks, tr.batch_size, model.vocab.pad_id, job.device)}
        if planned:
            row["val_coverage"] = _coverage(model, problems)
        return (row["val_coverage"] if tr.stop == "ces" else row["val_loss"]), row

    key = job.key(settings=model.settings.to_dict(), data=digest([t_ids, v_ids, domain_pddl]))
    state = job.fit(model.net, _loss(job.device), _batches(model, train_cases),
                    tr.loop_config(higher_is_better=tr.stop == "ces"), select=select, key=key,
                    steps_per_epoch=tr.steps_per_epoch(len(t_ids)),
                    score_name="val coverage" if tr.stop == "ces" else "val loss")
    return state


def _loss(dev):
    def loss_fn(m, batch):
        x, y, mask, real = (t.to(dev) for t in batch)
        logits = m(x, attention_mask=real).logits
        losses = torch.nn.functional.cross_entropy(logits.float().transpose(1, 2), y, reduction="none")
        return (losses * mask).sum() / mask.sum().clamp(min=1)
    return loss_fn


def _batches(model: PlanGPT, cases: list):
    settings, vocab = model.settings, model.vocab

    def make_batches(gen):
        """Objects renamed afresh every epoch (from the loop's generator, so a resumed job draws the
        same names): the model must read names from the problem, never memorise them. `once`: the
        same draw every epoch (from the model's seed), as PlanGPT's dataset names each problem once."""
        draw = int(torch.randint(0, 2**31 - 1, (1,), generator=gen))  # drawn always: resumes stay aligned
        epoch_rng = np.random.default_rng([model.seed, 1] if settings.rename == "once" else draw)
        ids, masks, _ = data.encode(cases, vocab, model.domain_info, epoch_rng, settings.per_type,
                                    settings.atom_order, settings.network.max_len, settings.rename)
        order = torch.randperm(len(ids), generator=gen).tolist()
        if settings.train.length_window:
            order = data.length_grouped(order, [len(x) for x in ids], settings.train.batch_size,
                                        settings.train.length_window,
                                        lambda n: torch.randperm(n, generator=gen).tolist())
        return data.batches(ids, masks, settings.train.batch_size, vocab.pad_id, order)
    return make_batches


def _val_loss(m, ids: list, masks: list, batch_size: int, pad_id: int, dev) -> float:
    """The mean token cross-entropy of the plan tokens of the validation sequences."""
    m.eval()
    total = count = 0.0
    for batch in data.batches(ids, masks, batch_size, pad_id, list(range(len(ids)))):
        x, y, mask, real = (t.to(dev) for t in batch)
        logits = m(x, attention_mask=real).logits.float()
        losses = torch.nn.functional.cross_entropy(logits.transpose(1, 2), y, reduction="none")
        total += float((losses * mask).sum())
        count += float(mask.sum())
    return total / max(count, 1.0)


def _validation_problems(files: list, limit: int) -> list:
    """Problem files of the validation split (for CES), from the trajectories file's records and
    the benchmark folder beside the results layout: <root>/problems/<benchmark>/<domain>/."""
    from genplan.formats import manifest
    from genplan.paths import problems_of_trajectories
    from genplan.planners.base import Problem

    traj = _split_files(files, ".json.gz")[0]
    bench = problems_of_trajectories(traj)
    if bench is None:
        raise GenplanError("CES plans the validation problems: the trajectories file must lie in the results "
                           "layout (<root>/trajectories/<benchmark>/<domain>/validation.json.gz)", traj)
    rows = manifest.read(bench, "validation")
    return [Problem(bench / "domain.pddl", r["path"]) for r in rows[:limit]]


def _coverage(model, problems) -> float:
    """Greedy plans of the model in memory, each checked by VAL: the fraction solved."""
    from genplan.planners.autoregressive import SequencePlanner
    from genplan.planners.solve import solve_and_validate
    from genplan.planners.strategies import parse

    if not problems:
        return 0.0
    planner = SequencePlanner(model, parse("greedy"))
    was = model.net.training
    model.net.eval()
    solved = sum(solve_and_validate(planner, p).solved for p in problems)
    model.net.train(was)
    return solved / len(problems)


def _log(history: list[dict], selections: list[dict]) -> tuple[list[str], list[list]]:
    """The log's header and rows: per epoch the training loss, and the validation loss and coverage of
    the epoch's last selection (the loop's records, restored with a resumed job's state: every epoch's)."""
    at_epoch = {sel["epoch"]: sel for sel in selections}
    curve = [at_epoch.get(row["epoch"], {}) for row in history]
    rows = [[row["epoch"], f"{row['train_loss']:.6f}", "" if "val_loss" not in extra else f"{extra['val_loss']:.6f}",
             "" if "val_coverage" not in extra else f"{extra['val_coverage']:.4f}", f"{row['lr']:.3g}",
             f"{row['seconds']:.2f}"] for row, extra in zip(history, curve)]
    return ["epoch", "train_loss", "val_loss", "val_coverage", "lr", "seconds"], rows
