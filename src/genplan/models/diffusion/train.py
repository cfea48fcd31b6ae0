"""One diffusion training job: (name, settings, domain, seed) -> checkpoint envelope, training log
(CSV, one row per epoch) and summary, in the shared job and loop (genplan.training: AdamW, warmup
and cosine decay, clipping, bf16 on CUDA, best weights by validation loss, resumable partial
states, divergence counts, patience).

The loss is the masked-diffusion loss of the paper's Eq. 1 as LLaDA trains it: per sequence
t ~ U(eps, 1) (eps = 1e-3), each plan token masked with probability t, cross-entropy at the masked
positions only, each weighted 1/t, summed and divided by the number of plan positions L (and the
batch). `schedule: beta` draws t from Beta(beta_a, beta_b) instead (the paper's second
future-work direction: more heavily corrupted inputs); the 1/t weight is kept.

<PAD> dominance. With L = 220 plan positions and Blocksworld plans of 10-40 tokens, 80-95 % of the
targets are <PAD>: the paper's loss spends most of its weight there, and confidence-based
unmasking commits the padding first (its Table 2). We keep the paper's loss as the default
(`pad_weight: 1`) and offer `pad_weight` < 1, which multiplies the CE of <PAD> targets; the
summary reports the share of the loss weight on <PAD> targets (`pad_weight_share`, measured on
the training data at t = 1, where every position is masked) so that the effect of a setting is
visible. <EOS> stays an ordinary target.

Symmetry-aware training (`symmetry: rename-one | rename-both`, the paper's first future-work
direction): each example is encoded under two renamings (genplan.nn.contrastive.renaming_pair),
masked alike, and the loss is w1 mean(L_pred) + w2 L_att + w3 L_hid (SymT's contrastive losses over
the denoiser's attention probabilities and hidden states, padding excluded). `contrastive_ramp_steps:
N` (not in either paper; 0 by default) raises w2 and w3 linearly from 0 over the first N optimizer
steps (genplan.nn.contrastive.WeightRamp); the log then has the epoch's mean effective weights."""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import torch

from genplan.datasets.domain_text import training_domain
from genplan.datasets.examples import check_object_pool
from genplan.errors import GenplanError
from genplan.models.diffusion import data
from genplan.models.diffusion.model import DiffusionModel, DiffusionSettings, make_denoiser, network_config, variant_of
from genplan.nn.contrastive import WeightRamp
from genplan.nn.transformer import TransformerConfig, parameter_count
from genplan.training.job import Job, digest

log = logging.getLogger("genplan")


def _files(files: list, suffix: str) -> list[Path]:
    return [Path(f) for f in files if str(f).endswith(suffix)]


def _cases(files: dict, settings: DiffusionSettings, seed: int):
    """Training cases (sampled states), validation cases (the validation problems' plans) and the
    trajectories document of the training split and its file (for the domain)."""
    from genplan.datasets.examples import statespace_cases, trajectory_cases
    from genplan.formats.trajectories import load

    train, val = files.get("train", []), files.get("validation", [])
    tables, trajs, vtrajs = _files(train, ".csv"), _files(train, ".json.gz"), _files(val, ".json.gz")
    if not tables or not trajs or not vtrajs:
        raise GenplanError("diffusion trains on the training split's state spaces (statespaces/<benchmark>/<domain>/"
                           "train.csv) and its trajectories (.json.gz), and validates on the validation split's "
                           f"trajectories; got --train {train} --validation {val}")
    doc = load(trajs[0])
    cases, _ = statespace_cases(tables[0].with_suffix(""), settings.train.examples, seed,
                                by=settings.train.sample_by)
    return cases, trajectory_cases(load(vtrajs[0]), suffixes=False), doc, trajs[0]


def pad_share(plans: list[list[int]], pad_id: int, pad_weight: float) -> float:
    """The share of the loss weight on <PAD> targets when every plan position is masked."""
    arr = np.asarray(plans)[:, 1:]
    pads = float((arr == pad_id).sum()) * pad_weight
    return pads / max(pads + float((arr != pad_id).sum()), 1e-12)


def train_diffusion(name: str, entry: dict, domain: str, files: dict, seed: int, out, log_csv=None,
                    summary_json=None, threads: int = 1, device: str = "auto", on_epoch=None) -> dict:
    job = Job("diffusion", name, domain, seed, out, log_csv, summary_json, threads, device, on_epoch)
    settings = DiffusionSettings.from_entry(entry)
    train_cases, val_cases, doc, traj_path = _cases(files, settings, seed)
    domain_pddl, domain_info = training_domain(doc, traj_path, domain)
    check_object_pool(settings.object_pool, train_cases + val_cases)
    with job.seeded():
        model, sequences = _untrained(job, settings, domain_info, train_cases, val_cases)
        state = _fit(job, model, train_cases, sequences, domain_pddl)
    summary = _summary(job, model, state, sequences)
    job.save_model(model, network_config(model.vocab, settings), domain_pddl, state, summary, _log(state.history))
    return summary


def _untrained(job: Job, settings: DiffusionSettings, domain_info, train_cases: list, val_cases: list):
    """The model before training and the (conditions, plans, skipped) of the training and validation cases."""
    from genplan.models.diffusion.atoms import AtomVocabulary
    from genplan.tokens.vocab import Vocabulary

    vocab = Vocabulary.for_domain(domain_info, settings.object_pool)
    atoms = AtomVocabulary(vocab)
    width, rng = settings.max_plan_tokens, np.random.default_rng(job.seed)
    sequences = [data.encode(cases, vocab, atoms, domain_info, rng, width, rename)
                 for cases, rename in ((train_cases, settings.rename), (val_cases, "sorted"))]
    (_, t_plans, t_skip), (_, v_plans, v_skip) = sequences
    if t_skip:
        log.warning("%s %s: %d of %d training plans do not fit max_plan_tokens %d: skipped", job.name, job.domain,
                    t_skip, len(train_cases), width)
    if not t_plans or not v_plans:
        raise GenplanError(f"no training or validation plan fits max_plan_tokens {width} "
                           f"(skipped {t_skip} training, {v_skip} validation)")
    net = make_denoiser(TransformerConfig(**network_config(vocab, settings)), atoms, settings)
    return DiffusionModel(job.identity(domain_info.name), vocab, atoms, net, settings, domain_info), sequences


def _fit(job: Job, model: DiffusionModel, train_cases: list, sequences: list, domain_pddl: str):
    tr = model.settings.train
    (t_conds, t_plans, _), (v_conds, v_plans, _) = sequences
    ramp = WeightRamp(tr.symmetry_weights, tr.contrastive_ramp_steps if tr.symmetry else 0)
    loss_fn, forward_loss = _losses(model, job.device, ramp)
    v_gen = torch.Generator().manual_seed(job.seed)
    v_batches = list(data.batches(v_conds, v_plans, tr.batch_size, list(range(len(v_plans))), v_gen, "uniform",
                                  tr.eps))  # fixed masks: the selection score is deterministic

    def val_loss(m) -> float:
        m.eval()
        total = n = 0.0
        with torch.no_grad():
            for cond, cmask, plan, t, noise in v_batches:
                loss, _ = forward_loss(m, *(x.to(job.device) for x in (cond, cmask, plan, t, noise)))
                total += float(loss) * len(plan)
                n += len(plan)
        m.train()
        return total / max(n, 1.0)

    key = job.key(settings=model.settings.to_dict(),
                  data=digest([t_conds[:200], t_plans[:200], v_plans, domain_pddl]))
    return job.fit(model.net, loss_fn, _batches(model, train_cases), tr.loop_config(), select=val_loss, key=key,
                   steps_per_epoch=tr.steps_per_epoch(len(t_plans)), before_step=ramp.at if ramp.steps else None)


def _losses(model: DiffusionModel, dev, ramp: WeightRamp | None = None):
    """(loss_fn(net, batch) for the loop, forward_loss(net, cond, cmask, plan, t, noise) -> (loss, output));
    with a ramp of N > 0 steps the symmetric loss's weights are the ramp's."""
    tr, vocab, sym = model.settings.train, model.vocab, _symmetry(model.settings)

    def forward_loss(m, cond, cmask, plan, t, noise):
        noisy, masked = data.corrupt(plan, t, noise, vocab.mask_id)
        out = m(cond, cmask, noisy, return_attentions=sym is not None, return_hidden=sym is not None)
        w = data.loss_weights(masked, t, plan, cond.shape[1], vocab.pad_id, tr.pad_weight)
        return data.diffusion_loss(out.logits, data.full_targets(cond, plan), w), out

    def loss_fn(m, batch):
        if sym is None:
            cond, cmask, plan, t, noise = (x.to(dev) for x in batch)
            return forward_loss(m, cond, cmask, plan, t, noise)[0]
        (c1, c2, cmask, plan1, plan2, t, noise) = (x.to(dev) for x in batch)
        l1, o1 = forward_loss(m, c1, cmask, plan1, t, noise)
        l2, o2 = forward_loss(m, c2, cmask, plan2, t, noise)
        real = torch.cat([cmask, torch.ones_like(plan1, dtype=torch.bool)], dim=1)
        att, hid = sym.contrastive_losses([o1], [o2], model.net.config.head_dim, masks=[real])
        ramped = ramp is not None and ramp.steps > 0
        w = ramp.weights_now() if ramped else tr.symmetry_weights
        loss = sym.combine((l1 + l2) / 2, att, hid, w)
        # as SymT's loss; tensors, read by the loop (the halving exact: the float the .item() / 2 of before gave)
        extra = {"l_pred": (l1 + l2).detach() / 2, "l_att": att.detach(), "l_hid": hid.detach()}
        if ramped:
            extra.update(w_att=float(w[1]), w_hid=float(w[2]))
        return loss, extra
    return loss_fn, forward_loss


def _symmetry(settings: DiffusionSettings):
    """genplan.nn.contrastive for symmetry-aware training, else None."""
    if not settings.train.symmetry:
        return None
    from genplan.nn import contrastive

    return contrastive


def _batches(model: DiffusionModel, train_cases: list):
    settings, vocab, atoms, info = model.settings, model.vocab, model.atoms, model.domain_info
    tr, width, sym = settings.train, settings.max_plan_tokens, _symmetry(settings)

    def make_batches(gen):
        """Objects renamed afresh every epoch, from the loop's generator (resumable)."""
        epoch_rng = np.random.default_rng(int(torch.randint(0, 2**31 - 1, (1,), generator=gen)))
        order = torch.randperm(len(train_cases), generator=gen).tolist()
        cases = [train_cases[i] for i in order]
        if sym is None:  # each batch encoded as the loop asks for it (data.encoded_batches)
            return data.encoded_batches(cases, vocab, atoms, info, epoch_rng, width, settings.rename, tr.batch_size,
                                        gen, tr.schedule, tr.eps, (tr.beta_a, tr.beta_b))
        return _pair_batches(cases, vocab, atoms, info, epoch_rng, gen, settings, sym)
    return make_batches


def _summary(job: Job, model: DiffusionModel, state, sequences: list) -> dict:
    settings, tr = model.settings, model.settings.train
    (_, t_plans, t_skip), (_, v_plans, v_skip) = sequences
    share = round(pad_share(t_plans, model.vocab.pad_id, tr.pad_weight), 4)
    return {"model": job.name, "family": "diffusion", "system": model.system, "variant": variant_of(settings),
            "domain": job.domain,
            "seed": job.seed, "device": job.device, "parameters": parameter_count(model.net),
            "vocabulary": len(model.vocab), "atom_tokens": len(model.atoms),
            "max_plan_tokens": settings.max_plan_tokens, "schedule": tr.schedule, "pad_weight": tr.pad_weight,
            "pad_weight_share": share, "symmetry": tr.symmetry, "condition": settings.condition,
            "object_embeddings": settings.object_embeddings,
            "contrastive_ramp_steps": tr.contrastive_ramp_steps if tr.symmetry else 0, "train_sequences": len(t_plans),
            "train_skipped_too_long": t_skip, "val_sequences": len(v_plans), "val_skipped_too_long": v_skip,
            **job.outcome(state)}


def _pair_batches(cases, vocab, atoms, domain_info, rng, gen, settings, sym):
    """Batches of two renamed copies of each example, masked alike: (cond of X, cond of X', cond
    mask, plan of X, plan of X', t, noise); token i of one copy stands for what token i of the
    other does (genplan.models.diffusion.atoms keeps the atoms' own order)."""
    tr, width = settings.train, settings.max_plan_tokens
    pairs = [sym.renaming_pair(c.objects, None, vocab, rng, tr.symmetry, per_type=False) for c in cases]
    c1, p1, c2, p2 = [], [], [], []  # each batch's cases encoded as it is asked for (data.encoded_batches)
    for case, (a, b) in zip(cases, pairs):
        more = data.encode([case], vocab, atoms, domain_info, rng, width, renamings=[a])
        c1, p1 = c1 + more[0], p1 + more[1]
        more = data.encode([case], vocab, atoms, domain_info, rng, width, renamings=[b])
        c2, p2 = c2 + more[0], p2 + more[1]
        if len(p1) == tr.batch_size:
            yield _pair_batch(c1, p1, c2, p2, gen, tr)
            c1, p1, c2, p2 = [], [], [], []
    if p1:
        yield _pair_batch(c1, p1, c2, p2, gen, tr)


def _pair_batch(c1, p1, c2, p2, gen, tr):
    cond1, cmask = data.pad_conditions(c1)
    cond2, _ = data.pad_conditions(c2)
    plan1 = torch.tensor(p1, dtype=torch.long)
    plan2 = torch.tensor(p2, dtype=torch.long)
    t = data.sample_rates(len(p1), gen, tr.schedule, tr.eps, (tr.beta_a, tr.beta_b))
    noise = torch.rand(plan1.shape, generator=gen)
    return cond1, cond2, cmask, plan1, plan2, t, noise


def _log(history: list[dict]) -> tuple[list[str], list[list]]:
    """The log's header and rows: per epoch the training and validation losses (and the symmetric
    losses' parts)."""
    known = {"epoch", "step", "train_loss", "score", "lr", "grad_norm", "seconds"}
    extra = sorted({k for row in history for k in row} - known)  # the symmetric losses' parts
    rows = [[row["epoch"], f"{row['train_loss']:.6f}", "" if row.get("score") is None else f"{row['score']:.6f}",
             f"{row['lr']:.3g}", f"{row['seconds']:.2f}", *(f"{row[k]:.6f}" if k in row else "" for k in extra)]
            for row in history]
    return ["epoch", "train_loss", "val_loss", "lr", "seconds", *extra], rows
