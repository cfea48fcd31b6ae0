"""One SymT training job: (name, settings, domain, seed) -> checkpoint envelope, training log (CSV:
one row per epoch with the total, prediction, attention and hidden-state losses, the validation
loss) and summary (parameters, divergences with and without the contrastive loss, data counts).

Loss (SymT paper, Section 4): w1 L_pred + w2 L_att + w3 L_hid, L_pred the MSE on h (SymT^E) or the
token cross-entropy of the plan (SymT^ED), L_att and L_hid from genplan.nn.contrastive between the
two renamed copies of each example. L_pred is averaged over both copies (the paper has Y and Y'
"the plans predicted for X and X'"), with rename-one too: X then carries the fixed names (objects in
natural order take the pool's tokens in order, the names evaluation gives them) and the contrastive
terms pull the randomly renamed X' towards it. Objects are renamed afresh every epoch. Weights are chosen by validation
L_pred (objects in pool order), in the shared loop (genplan.training.fit: AdamW, warmup + cosine,
clipping, bf16 on CUDA, divergence detection, patience, resumable partial states)."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import time
from dataclasses import asdict
from pathlib import Path

import numpy as np
import torch

from genplan import atomic
from genplan.errors import GenplanError
from genplan.models import checkpoint
from genplan.models.symt import data
from genplan.models.symt.model import SymT, SymTNet, SymTSettings


def _files(files: list, suffix: str) -> list[Path]:
    return [Path(f) for f in files if str(f).endswith(suffix)]


def _half(out, sl):
    """The rows `sl` of a TransformerOutput's attention and hidden-state lists."""
    from genplan.nn.transformer import TransformerOutput

    take = (lambda xs: None if xs is None else [None if x is None else x[sl] for x in xs])
    return TransformerOutput(logits=None, hidden=None, attentions=take(out.attentions),
                             cross_attentions=take(out.cross_attentions), hidden_states=take(out.hidden_states))


def make_loss(settings: SymTSettings, dev):
    """loss_fn(net, batch) -> (loss, {pred, att, hid}) for the shared loop."""
    from genplan.nn.contrastive import combine, contrastive_losses

    decoder = settings.architecture == "encoder_decoder"
    w = settings.loss_weights

    def loss_fn(net, batch, contrastive: bool = settings.contrastive):
        rows, mask = batch["rows"].to(dev), batch["mask"].to(dev)
        copies, B = batch["copies"], batch["h"].shape[0]
        need = contrastive and copies == 2
        if decoder:
            enc = net.encode(rows, mask, need)
            real = batch["dec_real"].to(dev)
            dec = net.decode(batch["dec_in"].to(dev), enc.hidden, mask, attention_mask=real, need=need)
            ce = torch.nn.functional.cross_entropy(dec.logits.float().transpose(1, 2), batch["dec_out"].to(dev),
                                                   reduction="none")
            tmask = batch["dec_mask"].to(dev).float()
            per_row, weight = (ce * tmask).sum(1), tmask.sum(1)
            stacks, masks, mem = [enc, dec], [mask, real], [None, mask]
        else:
            h, enc = net.heuristic(rows, mask, need)
            per_row = (h.float() - batch["h"].to(dev).float().repeat(copies)) ** 2
            weight = torch.ones_like(per_row)
            stacks, masks, mem = [enc], [mask], [None]
        pred = per_row.sum() / weight.sum().clamp(min=1)
        if not need:
            return combine(pred, None, None, w), {"pred": pred.item()}
        a, b = slice(0, B), slice(B, 2 * B)
        att, hid = contrastive_losses([_half(s, a) for s in stacks], [_half(s, b) for s in stacks], net.d_k,
                                      masks=[m[a] for m in masks], memory_masks=[None if m is None else m[a] for m in mem])
        return combine(pred, att, hid, w), {"pred": pred.item(), "att": att.item(), "hid": hid.item()}
    return loss_fn


def train_symt(name: str, entry: dict, domain: str, files: dict, seed: int, out, log_csv=None, summary_json=None,
               threads: int = 1, device: str = "auto", on_epoch=None) -> dict:
    from genplan.models.plangpt.model import domain_of_text
    from genplan.nn.transformer import parameter_count
    from genplan.planners.solve import domain_key
    from genplan.stages.trajectories import domain_file, load
    from genplan.tokens.atom_rows import atom_vocabulary, max_arity
    from genplan.training import LoopConfig, fit

    start = time.perf_counter()
    settings = SymTSettings.from_entry(entry)
    tr, decoder = settings.train, settings.architecture == "encoder_decoder"
    tables, trajs = _files(files.get("train", []), ".csv"), _files(files.get("train", []), ".json.gz")
    val_trajs = _files(files.get("validation", []), ".json.gz")
    if not tables or not trajs or not val_trajs:
        raise GenplanError("SymT trains on the training state spaces (statespaces/<benchmark>/<domain>/train.csv) and "
                           "the trajectories files of the train and validation splits (.json.gz): give them with "
                           f"--train and --validation; got {files}")
    train_cases, info = data.statespace_cases(tables[0].with_suffix(""), tr.examples, seed, keep_goal_states=not decoder)
    doc = load(trajs[0])
    val_cases = data.validation_cases(load(val_trajs[0]), tr.val_examples, seed, keep_goal_states=not decoder)
    if not val_cases:
        raise GenplanError("the validation trajectories hold no state with a plan", val_trajs[0])
    with domain_file(doc, trajs[0]) as dom_path:
        domain_pddl = Path(dom_path).read_text(encoding="utf-8")
    domain_info = domain_of_text(domain_pddl)
    if domain_key(domain_info.path) != domain:
        raise GenplanError(f"--domain {domain!r} is not the domain of the training data "
                           f"({domain_key(domain_info.path)!r})", trajs[0])
    need = max(len(c.objects) for c in train_cases + val_cases)
    if isinstance(settings.object_pool, int) and settings.object_pool < need:
        raise GenplanError(f"object_pool {settings.object_pool} is smaller than the {need} objects of a training or "
                           "validation problem: raise it")
    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    dev = "cuda" if device in ("auto", "cuda") and torch.cuda.is_available() else "cpu"
    vocab = atom_vocabulary(domain_info, settings.object_pool)
    net_cfg = {"architecture": settings.architecture, "network": asdict(settings.network), "vocab_size": len(vocab),
               "width": 1 + max_arity(vocab), "pad_id": vocab.pad_id}
    net = SymTNet(net_cfg)
    rename = settings.rename if settings.contrastive or settings.rename in ("random", "sorted") else "random"
    max_len = settings.network.max_len if settings.network.decoder_positions == "learned" else settings.max_tokens
    v_enc = data.encode(val_cases, vocab, domain_info, np.random.default_rng(seed), "sorted", settings.per_type,
                        decoder, max_len)
    loss_fn = make_loss(settings, dev)

    def make_batches(gen):
        """Objects renamed afresh every epoch, from the loop's generator (a resumed job draws the same)."""
        rng = np.random.default_rng(int(torch.randint(0, 2**31 - 1, (1,), generator=gen)))
        enc = data.encode(train_cases, vocab, domain_info, rng, rename, settings.per_type, decoder, max_len)
        order = torch.randperm(len(enc.rows), generator=gen).tolist()
        return data.batches(enc, tr.batch_size, order, vocab.pad_id)

    curve: list[float] = []

    def select(m) -> float:
        m.eval()
        total = count = 0.0
        for batch in data.batches(v_enc, tr.batch_size, list(range(len(v_enc.rows))), vocab.pad_id):
            n = float(batch["dec_mask"].sum()) if decoder else float(batch["h"].shape[0])
            total += float(loss_fn(m, batch, contrastive=False)[1]["pred"]) * n
            count += n
        curve.append(total / max(count, 1.0))
        return curve[-1]

    steps = -(-tr.examples // tr.batch_size)
    cfg = LoopConfig(epochs=tr.epochs, lr=tr.lr, schedule="cosine", warmup_steps=tr.warmup_steps, min_lr=tr.lr / 10,
                     weight_decay=tr.weight_decay, grad_clip=tr.grad_clip, checkpoint_every=tr.checkpoint_every,
                     patience=tr.patience)
    partial = Path(out).with_name(Path(out).name + ".partial")
    digest = hashlib.sha256(json.dumps([[c.state and sorted(c.state) for c in train_cases[:50]], len(train_cases),
                                        domain_pddl]).encode()).hexdigest()[:16]
    identity = {"name": name, "domain": domain, "pddl_domain": domain_info.name, "seed": seed}
    job = {**identity, "settings": settings.to_dict(), "data": digest}
    state = fit(net, loss_fn, make_batches, cfg, seed=seed, device=dev, select=select, partial=partial, job=job,
                on_epoch=on_epoch, steps_per_epoch=steps, desc=f"{name} {domain}", score_name="val loss")
    net.load_state_dict(state["best_weights"])
    model = SymT(identity, vocab, net, settings, domain_info)
    summary = {"model": name, "family": "symt", "system": model.system, "variant": model.variant,
               "architecture": settings.architecture, "domain": domain, "seed": seed, "device": dev,
               "contrastive": settings.contrastive, "loss_weights": list(settings.loss_weights), "rename": rename,
               "decoder_positions": settings.network.decoder_positions if decoder else None,
               "object_pool": settings.object_pool, "parameters": parameter_count(net),
               "parameters_by_part": {k: parameter_count(getattr(net, k)) for k in ("atoms", "encoder", "readout", "decoder")
                                      if hasattr(net, k)},
               "vocabulary": len(vocab), "train_examples": len(train_cases), "val_examples": len(v_enc.rows),
               "val_dropped": v_enc.dropped, **info, "epochs": state["epoch"], "best_epoch": state["best_epoch"],
               "best_score": state["best_score"], "divergences": state["divergences"],
               "divergence_events": state["divergence_events"], "skipped_steps": state["skipped_steps"],
               "resumed_from_epoch": state["resumed_from"], "train_time_s": state["train_time_s"],
               "job_time_s": time.perf_counter() - start}
    config = {"settings": {**settings.to_dict(), "family": "symt"}, "network": net_cfg, "domain_pddl": domain_pddl}
    training = {k: state[k] for k in ("epoch", "best_epoch", "best_score", "divergences")}
    checkpoint.save(out, checkpoint.envelope("symt", identity, {k: v.cpu() for k, v in net.state_dict().items()},
                                             config, vocab.to_dict(), training, summary))
    if log_csv:
        _write_log(log_csv, state["history"], curve)
    if summary_json:
        atomic.write_text(summary_json, json.dumps(summary, indent=2) + "\n")
    partial.unlink(missing_ok=True)
    return summary


def _write_log(path, history, curve) -> None:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["epoch", "train_loss", "pred_loss", "att_loss", "hid_loss", "val_loss", "lr", "grad_norm", "seconds"])
    curve = [None] * (len(history) - len(curve)) + list(curve)  # epochs before a resume: not recomputed
    fmt = (lambda v: "" if v is None else f"{v:.6f}")
    for row, val in zip(history, curve):
        w.writerow([row["epoch"], fmt(row["train_loss"]), fmt(row.get("pred")), fmt(row.get("att")),
                    fmt(row.get("hid")), fmt(val), f"{row['lr']:.3g}", fmt(row.get("grad_norm")), f"{row['seconds']:.2f}"])
    atomic.write_text(path, buf.getvalue())
