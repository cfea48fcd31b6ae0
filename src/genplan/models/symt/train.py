"""One SymT training job: (name, settings, domain, seed) -> checkpoint envelope, training log (CSV:
one row per epoch with the total, prediction, attention and hidden-state losses, the validation
loss) and summary (parameters, divergences with and without the contrastive loss, data counts).

Loss (SymT paper, Section 4): w1 L_pred + w2 L_att + w3 L_hid, L_pred the MSE on h (SymT^E) or the
token cross-entropy of the plan (SymT^ED), L_att and L_hid from genplan.nn.contrastive between the
two renamed copies of each example. L_pred is averaged over both copies (the paper has Y and Y'
"the plans predicted for X and X'"), with rename-one too: X then carries the fixed names (objects in
natural order take the pool's tokens in order, the names evaluation gives them) and the contrastive
terms pull the randomly renamed X' towards it. Objects are renamed afresh every epoch. Weights are chosen by validation
L_pred (objects in pool order), in the shared job and loop (genplan.training: AdamW, warmup +
cosine, clipping, bf16 on CUDA, divergence detection, patience, resumable partial states).

`train: {contrastive_ramp_steps: N}` (not in the paper; default 0, the paper's constant weights):
w2 and w3 rise linearly from 0 at optimizer step 0 to their configured values at step N
(genplan.nn.contrastive.WeightRamp), w1 untouched; the log then has the epoch's mean effective
weights (att_weight, hid_weight) and the summary the ramp's length and the step it ended."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from genplan.datasets.domain_text import training_domain
from genplan.datasets.examples import check_object_pool
from genplan.errors import GenplanError
from genplan.models.symt import data
from genplan.models.symt.model import SymT, SymTNet, SymTSettings, network_dict
from genplan.nn.contrastive import WeightRamp
from genplan.nn.transformer import parameter_count
from genplan.training.job import Job, digest


def _files(files: list, suffix: str) -> list[Path]:
    return [Path(f) for f in files if str(f).endswith(suffix)]


def make_loss(settings: SymTSettings, dev, ramp=None):
    """loss_fn(net, batch) -> (loss, {pred, att, hid}: 0-dim tensors) for the shared loop; with a ramp
    (genplan.nn.contrastive.WeightRamp of N > 0 steps) the weights are the ramp's at its step, and
    the metrics add the effective contrastive weights (att_weight, hid_weight)."""
    from genplan.nn.contrastive import combine, stacked_losses

    decoder = settings.architecture == "encoder_decoder"
    ramped = ramp is not None and ramp.steps > 0

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
        w = ramp.weights_now() if ramped else settings.loss_weights
        if not need:
            return combine(pred, None, None, w), {"pred": pred.detach()}
        a = slice(0, B)  # copy A's rows; copy B's are B..2B-1
        att, hid = stacked_losses(stacks, net.d_k, masks=[m[a] for m in masks],
                                  memory_masks=[None if m is None else m[a] for m in mem])
        extra = {"pred": pred.detach(), "att": att.detach(), "hid": hid.detach()}  # read by the loop, not here
        if ramped:
            extra.update(att_weight=float(w[1]), hid_weight=float(w[2]))
        return combine(pred, att, hid, w), extra
    return loss_fn


def train_symt(name: str, entry: dict, domain: str, files: dict, seed: int, out, log_csv=None, summary_json=None,
               threads: int = 1, device: str = "auto", on_epoch=None) -> dict:
    job = Job("symt", name, domain, seed, out, log_csv, summary_json, threads, device, on_epoch)
    settings = SymTSettings.from_entry(entry)
    train_cases, info, val_cases, doc, traj = _cases(files, settings, seed)
    domain_pddl, domain_info = training_domain(doc, traj, domain)
    check_object_pool(settings.object_pool, train_cases + val_cases)
    with job.seeded():
        model = _untrained(job, settings, domain_info)
        state, v_enc = _fit(job, model, train_cases, val_cases, domain_pddl)
    summary = _summary(job, model, state, len(train_cases), v_enc, info)
    job.save_model(model, model.net.cfg, domain_pddl, state, summary, _log(state.history))
    return summary


def _summary(job: Job, model: SymT, state, train_examples: int, v_enc, info: dict) -> dict:
    settings, net = model.settings, model.net
    decoder = settings.architecture == "encoder_decoder"
    parts = {k: parameter_count(getattr(net, k)) for k in ("atoms", "encoder", "readout", "decoder", "token_map")
             if hasattr(net, k)}
    return {"model": job.name, "family": "symt", "system": model.system, "variant": model.variant,
            "architecture": settings.architecture, "domain": job.domain, "seed": job.seed, "device": job.device,
            "contrastive": settings.contrastive, "loss_weights": list(settings.loss_weights),
            **_ramp_summary(settings, state),
            "rename": _rename(settings), "decoder_positions": settings.network.decoder_positions if decoder else None,
            "decoder_tokens": settings.network.decoder_tokens if decoder else None,
            "object_pool": settings.object_pool, "parameters": parameter_count(net), "parameters_by_part": parts,
            "vocabulary": len(model.vocab), "train_examples": train_examples, "val_examples": len(v_enc.rows),
            "val_dropped": v_enc.dropped, **info,
            **({"memory_mean_cosine": memory_cosine(net, v_enc, model.vocab.pad_id)} if decoder else {}),
            **job.outcome(state, divergence_events=state.divergence_events, skipped_steps=state.skipped_steps)}


def memory_cosine(net, enc, pad_id: int, states: int = 256) -> float:
    """The mean cosine between the encoder outputs (the decoder's memory) of every two real atoms (each
    with itself too) of the first `states` encoded examples (copy A), in [-1, 1]. Near 1 the encoder maps every atom
    alike and the decoder cannot read the state: the collapse the contrastive L_hid drove the CPU
    models into (experiments/sequence-recipe.md, "SymT^ED's encoder collapses"); a trained model that reads its states is far below."""
    if not enc.rows:
        return float("nan")
    idx = list(range(min(states, len(enc.rows))))
    batch = next(data.batches(enc, len(idx), idx, pad_id))
    dev = next(net.parameters()).device
    was = net.training
    net.eval()
    with torch.no_grad():
        rows, mask = batch["rows"][:len(idx)].to(dev), batch["mask"][:len(idx)].to(dev)
        value = mean_cosine(net.encode(rows, mask).hidden[mask])
    net.train(was)
    return round(value, 4)


def mean_cosine(vectors: torch.Tensor) -> float:
    """The mean cosine of every two rows of vectors [N, D] (each with itself too): the mean of
    unit @ unit.T, computed as |sum of the unit rows|^2 / N^2 without the N x N matrix."""
    unit = torch.nn.functional.normalize(vectors.float(), dim=-1)
    return float(unit.sum(0).square().sum()) / len(unit) ** 2


def _ramp_summary(settings: SymTSettings, state) -> dict:
    """The contrastive weights' ramp: its length in optimizer steps (0: none, the paper's constant
    weights) and, with one, the step and epoch where the configured weights were reached (None if
    training stopped before)."""
    n = settings.train.contrastive_ramp_steps
    out = {"contrastive_ramp_steps": n}
    if n:
        done = state.step >= n
        out["contrastive_ramp_done_step"] = n if done else None
        out["contrastive_ramp_done_epoch"] = next((r["epoch"] for r in state.history if r["step"] >= n), None) \
            if done else None
        out["loss_weights_last_step"] = [round(x, 6) for x in WeightRamp(settings.loss_weights, n)
                                         .weights_now(max(state.step - 1, 0))]
    return out


def _cases(files: dict, settings: SymTSettings, seed: int):
    """Training cases (sampled states, or with `data: plans` the plan states) and their counts,
    validation cases, the training split's trajectories document and its file (for the domain)."""
    from genplan.datasets.examples import statespace_cases
    from genplan.formats.trajectories import load

    if settings.train.data == "plans":
        return _plan_cases(files, settings, seed)
    tables, trajs = _files(files.get("train", []), ".csv"), _files(files.get("train", []), ".json.gz")
    val_trajs = _files(files.get("validation", []), ".json.gz")
    if not tables or not trajs or not val_trajs:
        raise GenplanError("SymT trains on the training state spaces (statespaces/<benchmark>/<domain>/train.csv) and "
                           "the trajectories files of the train and validation splits (.json.gz): give them with "
                           f"--train and --validation; got {files}")
    tr, goals = settings.train, settings.architecture == "encoder"  # SymT^E learns h = 0 at goal states
    train_cases, info = statespace_cases(tables[0].with_suffix(""), tr.examples, seed, by=tr.sample_by,
                                          keep_goal_states=goals)
    doc = load(trajs[0])
    val_cases = data.validation_cases(load(val_trajs[0]), tr.val_examples, seed, keep_goal_states=goals)
    if not val_cases:
        raise GenplanError("the validation trajectories hold no state with a plan", val_trajs[0])
    return train_cases, info, val_cases, doc, trajs[0]


def _plan_cases(files: dict, settings: SymTSettings, seed: int):
    """`_cases` with `train: {data: plans}` (genplan.models.symt.plan_data): no state space."""
    from genplan.formats.trajectories import load
    from genplan.models.symt.plan_data import plan_cases, plan_inputs

    traj, val_traj = plan_inputs(files)
    doc = load(traj)
    val_doc = load(val_traj) if val_traj is not None else None
    train_cases, info, val_cases = plan_cases(doc, traj, val_doc, val_traj, settings.train, seed,
                                              keep_goal_states=settings.architecture == "encoder")
    return train_cases, info, val_cases, doc, traj


def _rename(settings: SymTSettings) -> str:
    """The training examples' renaming: one random copy without contrastive weights."""
    return settings.rename if settings.contrastive or settings.rename in ("random", "sorted") else "random"


def _untrained(job: Job, settings: SymTSettings, domain_info) -> SymT:
    from genplan.tokens.atom_rows import atom_vocabulary, max_arity

    vocab = atom_vocabulary(domain_info, settings.object_pool)
    net_cfg = {"architecture": settings.architecture, "network": network_dict(settings.network), "vocab_size": len(vocab),
               "width": 1 + max_arity(vocab), "pad_id": vocab.pad_id}
    if settings.network.decoder_tokens == "fixed":  # the decoder's own table, its object rows fixed (Transformer.token_table)
        net_cfg["object_ids"] = list(vocab.object_ids())
    return SymT(job.identity(domain_info.name), vocab, SymTNet(net_cfg), settings, domain_info)


def _fit(job: Job, model: SymT, train_cases: list, val_cases: list, domain_pddl: str):
    """The loop's final state and the encoded validation examples."""
    settings, vocab, info, tr = model.settings, model.vocab, model.domain_info, model.settings.train
    decoder = settings.architecture == "encoder_decoder"
    max_len = settings.network.max_len if settings.network.decoder_positions == "learned" else settings.max_tokens
    v_enc = data.encode(val_cases, vocab, info, np.random.default_rng(job.seed), "sorted", settings.per_type,
                        decoder, max_len)
    ramp = WeightRamp(settings.loss_weights, tr.contrastive_ramp_steps)
    loss_fn = make_loss(settings, job.device, ramp)
    prepared = data.prepare(train_cases, vocab, info, settings.per_type, decoder)  # encoded once, renamed per epoch

    def make_batches(gen):
        """Objects renamed afresh every epoch, from the loop's generator (a resumed job draws the same)."""
        rng = np.random.default_rng(int(torch.randint(0, 2**31 - 1, (1,), generator=gen)))
        enc = data.encode(prepared, vocab, info, rng, _rename(settings), settings.per_type, decoder, max_len)
        order = torch.randperm(len(enc.rows), generator=gen).tolist()
        return data.batches(enc, tr.batch_size, order, vocab.pad_id)

    def select(m) -> float:
        return _val_loss(m, loss_fn, v_enc, tr.batch_size, vocab.pad_id, decoder)

    data_digest = digest([[c.state and sorted(c.state) for c in train_cases[:50]], len(train_cases), domain_pddl])
    key = {**model.identity, "settings": settings.to_dict(), "data": data_digest}
    state = job.fit(model.net, loss_fn, make_batches, tr.loop_config(), select=select, key=key,
                    steps_per_epoch=tr.steps_per_epoch(tr.examples if tr.data == "statespace" else len(train_cases)),
                    before_step=ramp.at if ramp.steps else None)
    return state, v_enc


def _val_loss(m, loss_fn, enc, batch_size: int, pad_id: int, decoder: bool) -> float:
    """L_pred over the validation examples (objects in pool order), weighted by plan tokens or examples."""
    m.eval()
    total = count = 0.0
    for batch in data.batches(enc, batch_size, list(range(len(enc.rows))), pad_id):
        n = float(batch["dec_mask"].sum()) if decoder else float(batch["h"].shape[0])
        total += float(loss_fn(m, batch, contrastive=False)[1]["pred"]) * n
        count += n
    return total / max(count, 1.0)


def _log(history: list[dict]) -> tuple[list[str], list[list]]:
    """The log's header and rows: per epoch the total, prediction, attention and hidden-state losses and
    the validation loss (with a contrastive ramp also the epoch's mean effective w2 and w3)."""
    # the epoch's selection score is its validation loss: in the history row, which a resumed job restores
    curve = [row.get("score") for row in history]
    fmt = (lambda v: "" if v is None else f"{v:.6f}")
    ramped = any("att_weight" in row for row in history)  # a ramp: the epoch's mean effective weights too
    more = ["att_weight", "hid_weight"] if ramped else []
    rows = [[row["epoch"], fmt(row["train_loss"]), fmt(row.get("pred")), fmt(row.get("att")), fmt(row.get("hid")),
             fmt(val), f"{row['lr']:.3g}", fmt(row.get("grad_norm")), f"{row['seconds']:.2f}",
             *(fmt(row.get(k)) for k in more)]
            for row, val in zip(history, curve)]
    return ["epoch", "train_loss", "pred_loss", "att_loss", "hid_loss", "val_loss", "lr", "grad_norm", "seconds",
            *more], rows
