"""One PlanGPT training job: (name, settings, domain, seed) -> checkpoint envelope, training log
(CSV: one row per epoch with the training loss, validation loss and, for CES, validation
coverage, as PlanGPT Figure 3 plots them) and summary.

Training runs in the shared loop (genplan.training): AdamW, warmup and cosine decay, clipping,
bf16 on CUDA, a copy of the best weights, resumable partial states, divergence counts. The weights
are chosen by validation loss (`ce`) or by validation coverage (`ces`, Planning Coverage Early
Stopping, PlanGPT Section 4.2): after each epoch the model, held in memory, plans the validation
problems greedily, VAL checks each plan, and the weights with the best coverage are kept;
`patience` epochs without improvement stop training (PlanGPT's early stopping)."""

from __future__ import annotations

import csv
import io
import json
import logging
import time
from dataclasses import asdict
from pathlib import Path

import numpy as np
import torch

from genplan import atomic
from genplan.errors import GenplanError
from genplan.models import checkpoint
from genplan.models.plangpt import data
from genplan.models.plangpt.model import PlanGPT, PlanGPTSettings, domain_of_text

log = logging.getLogger("genplan")


def _split_files(files: list, suffix: str) -> list[Path]:
    return [Path(f) for f in files if str(f).endswith(suffix)]


def _cases(files: list, settings: PlanGPTSettings, seed: int, split: str) -> tuple[list, dict, str]:
    """Cases of one split, the trajectories document (for its domain) and the protocol used."""
    from genplan.stages.trajectories import load

    trajs = _split_files(files, ".json.gz")
    if not trajs:
        raise GenplanError(f"PlanGPT needs the {split} split's trajectories file (.json.gz); got {files}")
    doc = load(trajs[0])
    tables = _split_files(files, ".csv")
    if settings.data == "symt" and split == "train":
        if not tables:
            raise GenplanError("the symt protocol samples the training state spaces: give the state-space table "
                               "(statespaces/<benchmark>/<domain>/train.csv) among --train")
        return data.statespace_cases(tables[0].with_suffix(""), settings.train.examples, seed), doc, "symt"
    # validation (both protocols) and the plangpt protocol: the problems' own plans
    return data.trajectory_cases(doc, suffixes=settings.train.suffixes and split == "train"), doc, "plangpt"


def _pool_size(cases: list, settings: PlanGPTSettings) -> int | dict:
    need = max(len(c.objects) for c in cases)
    if isinstance(settings.object_pool, int) and settings.object_pool < need:
        raise GenplanError(f"object_pool {settings.object_pool} is smaller than the {need} objects of a training "
                           "problem: raise it")
    return settings.object_pool


def train_plangpt(name: str, entry: dict, domain: str, files: dict, seed: int, out, log_csv=None,
                  summary_json=None, threads: int = 1, device: str = "auto", on_epoch=None) -> dict:
    from genplan.nn.transformer import Transformer, TransformerConfig, parameter_count
    from genplan.planners.solve import domain_key
    from genplan.stages.trajectories import domain_file
    from genplan.tokens.vocab import Vocabulary
    from genplan.training import LoopConfig, fit

    start = time.perf_counter()
    settings = PlanGPTSettings.from_entry(entry)
    if settings.data not in data.PROTOCOLS or settings.train.stop not in ("ce", "ces") or settings.rename not in data.RENAMINGS:
        raise GenplanError(f"PlanGPT: data must be one of {list(data.PROTOCOLS)}, rename one of {list(data.RENAMINGS)}, "
                           "train.stop ce or ces")
    train_cases, doc, protocol = _cases(files.get("train", []), settings, seed, "train")
    val_cases, val_doc, _ = _cases(files.get("validation", []), settings, seed, "validation")
    traj_path = _split_files(files["train"], ".json.gz")[0]
    with domain_file(doc, traj_path) as dom_path:
        domain_pddl = Path(dom_path).read_text(encoding="utf-8")
    domain_info = domain_of_text(domain_pddl)  # parsed once, from the copy the checkpoint's text maps to
    if domain_key(domain_info.path) != domain:
        raise GenplanError(f"--domain {domain!r} is not the domain of the training data "
                           f"({domain_key(domain_info.path)!r})", traj_path)
    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    dev = "cuda" if device in ("auto", "cuda") and torch.cuda.is_available() else "cpu"
    vocab = Vocabulary.for_domain(domain_info, _pool_size(train_cases + val_cases, settings))
    rng = np.random.default_rng(seed)
    t_ids, t_masks, t_drop = data.encode(train_cases, vocab, domain_info, rng, settings.per_type,
                                         settings.atom_order, settings.network.max_len, settings.rename)
    v_ids, v_masks, v_drop = data.encode(val_cases, vocab, domain_info, rng, settings.per_type, "canonical",
                                         settings.network.max_len, settings.rename)
    if not t_ids or not v_ids:
        raise GenplanError(f"no training or validation sequence fits max_len {settings.network.max_len}")
    net_cfg = dict(vocab_size=len(vocab), causal=True, positions="learned", pad_id=vocab.pad_id,
                   **asdict(settings.network))
    net = Transformer(TransformerConfig(**net_cfg))
    identity = {"name": name, "domain": domain, "pddl_domain": domain_info.name, "seed": seed}
    model = PlanGPT(identity, vocab, net, settings, domain_info)
    tr = settings.train

    def loss_fn(m, batch):
        x, y, mask, real = (t.to(dev) for t in batch)
        logits = m(x, attention_mask=real).logits
        losses = torch.nn.functional.cross_entropy(logits.float().transpose(1, 2), y, reduction="none")
        return (losses * mask).sum() / mask.sum().clamp(min=1)

    def make_batches(gen):
        """Objects renamed afresh every epoch (from the loop's generator, so a resumed job draws the
        same names): the model must read names from the problem, never memorise them."""
        epoch_rng = np.random.default_rng(int(torch.randint(0, 2**31 - 1, (1,), generator=gen)))
        ids, masks, _ = data.encode(train_cases, vocab, domain_info, epoch_rng, settings.per_type,
                                    settings.atom_order, settings.network.max_len, settings.rename)
        order = torch.randperm(len(ids), generator=gen).tolist()
        return data.batches(ids, masks, tr.batch_size, vocab.pad_id, order)

    def val_loss(m) -> float:
        m.eval()
        total = count = 0.0
        for batch in data.batches(v_ids, v_masks, tr.batch_size, vocab.pad_id, list(range(len(v_ids)))):
            x, y, mask, real = (t.to(dev) for t in batch)
            logits = m(x, attention_mask=real).logits.float()
            losses = torch.nn.functional.cross_entropy(logits.transpose(1, 2), y, reduction="none")
            total += float((losses * mask).sum())
            count += float(mask.sum())
        return total / max(count, 1.0)

    curve: list[dict] = []
    planned = tr.stop == "ces" or tr.track_coverage  # PlanGPT Figure 3: both curves of one run
    ces_problems = _validation_problems(files.get("validation", []), tr.ces_problems) if planned else []

    def select(m) -> float:
        row = {"val_loss": val_loss(m)}
        if planned:
            row["val_coverage"] = _coverage(model, ces_problems)
        curve.append(row)
        return row["val_coverage"] if tr.stop == "ces" else row["val_loss"]

    steps = -(-len(t_ids) // tr.batch_size)
    cfg = LoopConfig(epochs=tr.epochs, lr=tr.lr, schedule="cosine", warmup_steps=tr.warmup_steps,
                     min_lr=tr.lr / 10, weight_decay=tr.weight_decay, grad_clip=tr.grad_clip,
                     higher_is_better=tr.stop == "ces", checkpoint_every=tr.checkpoint_every, patience=tr.patience)
    partial = Path(out).with_name(Path(out).name + ".partial")
    import hashlib

    digest = hashlib.sha256(json.dumps([t_ids, v_ids, domain_pddl]).encode()).hexdigest()[:16]
    job = {"name": name, "domain": domain, "seed": seed, "settings": settings.to_dict(), "data": digest}
    state = fit(net, loss_fn, make_batches, cfg, seed=seed, device=dev, select=select, partial=partial, job=job,
                on_epoch=on_epoch, steps_per_epoch=steps, desc=f"{name} {domain}",
                score_name="val coverage" if tr.stop == "ces" else "val loss")
    net.load_state_dict(state["best_weights"])
    summary = {"model": name, "family": "plangpt", "domain": domain, "seed": seed, "protocol": protocol,
               "stop": tr.stop, "device": dev, "parameters": parameter_count(net), "vocabulary": len(vocab),
               "train_sequences": len(t_ids), "train_dropped": t_drop, "val_sequences": len(v_ids),
               "val_dropped": v_drop, "epochs": state["epoch"], "best_epoch": state["best_epoch"],
               "best_score": state["best_score"], "divergences": state["divergences"],
               "resumed_from_epoch": state["resumed_from"], "train_time_s": state["train_time_s"],
               "job_time_s": time.perf_counter() - start}
    config = {"settings": {**settings.to_dict(), "family": "plangpt"}, "network": net_cfg, "domain_pddl": domain_pddl}
    training = {k: state[k] for k in ("epoch", "best_epoch", "best_score", "divergences")}
    checkpoint.save(out, checkpoint.envelope("plangpt", identity, {k: v.cpu() for k, v in net.state_dict().items()},
                                             config, vocab.to_dict(), training, summary))
    if log_csv:
        _write_log(log_csv, state["history"], state["selections"], curve)
    if summary_json:
        atomic.write_text(summary_json, json.dumps(summary, indent=2) + "\n")
    partial.unlink(missing_ok=True)
    return summary


def _validation_problems(files: list, limit: int) -> list:
    """Problem files of the validation split (for CES), from the trajectories file's records and
    the benchmark folder beside the results layout: <root>/problems/<benchmark>/<domain>/."""
    from genplan import manifest
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


def _write_log(path, history, selections, curve) -> None:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["epoch", "train_loss", "val_loss", "val_coverage", "lr", "seconds"])
    curve = [{}] * (len(history) - len(curve)) + list(curve)  # epochs before a resume: not recomputed
    for row, extra in zip(history, curve):
        w.writerow([row["epoch"], f"{row['train_loss']:.6f}", "" if "val_loss" not in extra else f"{extra['val_loss']:.6f}",
                    "" if "val_coverage" not in extra else f"{extra['val_coverage']:.4f}", f"{row['lr']:.3g}",
                    f"{row['seconds']:.2f}"])
    atomic.write_text(path, buf.getvalue())
