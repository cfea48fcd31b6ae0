"""The contrastive weights' ramp (`train.contrastive_ramp_steps`, genplan.nn.contrastive.WeightRamp):
the effective weights along the ramp, SymT's loss of one batch with the default (no ramp) the same
tensor as the paper's constant weights and, along a ramp, w1 L_pred + r (w2 L_att + w3 L_hid); the
loop's step hook continues after a resume; the schema and the settings refuse bad values. Seconds."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from test_symt_data import _case
from test_training_loop import make_batches, make_model, mse

from genplan.configuration import check_value
from genplan.domains import domain_file
from genplan.errors import GenplanError
from genplan.models.diffusion.model import DiffusionSettings
from genplan.models.symt import data
from genplan.models.symt.model import SymTNet, SymTSettings
from genplan.models.symt.train import _log, _ramp_summary, make_loss
from genplan.nn.contrastive import WeightRamp, combine, stacked_losses
from genplan.pddl_io import parse_domain
from genplan.tokens.atom_rows import atom_vocabulary, max_arity
from genplan.training import LoopConfig, fit
from genplan.training.state import TrainState

N = 40


def _floats(out):
    """(loss, metrics) of a family's loss function with the metrics as floats (the loss returns 0-dim
    tensors, read by the training loop at its intervals, never inside a step)."""
    loss, parts = out
    return loss, {k: float(v) for k, v in parts.items()}


def test_effective_weights_at_0_half_n_and_beyond():
    ramp = WeightRamp([1, 2, 0.5], N)
    assert ramp.weights_now(0) == (1.0, 0.0, 0.0)
    assert ramp.weights_now(N // 2) == (1.0, 1.0, 0.25)
    assert ramp.weights_now(N) == (1.0, 2.0, 0.5)
    assert ramp.weights_now(10 * N) == (1.0, 2.0, 0.5)
    ramp.at(N // 4)  # the loop's hook sets the step the next loss is computed at
    assert ramp.weights_now() == (1.0, 0.5, 0.125) and ramp.factor() == 0.25
    weights = [1, 1, 1]
    assert WeightRamp(weights).weights_now(0) is weights  # no ramp: the configured weights themselves
    for bad in (-1, 1.5, True):
        with pytest.raises(ValueError, match="steps"):
            WeightRamp(weights, bad)


@pytest.fixture(scope="module", params=["encoder", "encoder_decoder"])
def one_batch(request):
    """A SymT net and one batch of two renamed copies (rename-both) of tiny Gripper examples."""
    arch = request.param
    info = parse_domain(domain_file("gripper"))
    vocab = atom_vocabulary(info, 12)
    decoder = arch == "encoder_decoder"
    cases = [_case(n) for n in (1, 3, 2)]
    prepared = data.prepare(cases, vocab, info, False, decoder)
    enc = data.encode(prepared, vocab, info, np.random.default_rng(0), "rename-both", False, decoder, 500)
    batch = next(iter(data.batches(enc, 8, list(range(len(enc.rows))), vocab.pad_id)))
    torch.manual_seed(0)
    net = SymTNet({"architecture": arch, "network": {"d_model": 32, "n_heads": 2, "n_layers": 2, "d_token": 8},
                   "vocab_size": len(vocab), "width": 1 + max_arity(vocab), "pad_id": vocab.pad_id})
    return arch, net, batch


def _settings(arch: str, **train) -> SymTSettings:
    return SymTSettings.from_entry({"family": "symt", "architecture": arch, "object_pool": 12,
                                    "rename": "rename-both", "loss_weights": [1, 1, 1], "train": train})


def test_default_is_the_paper_loss_and_a_ramp_scales_the_contrastive_terms(one_batch):
    arch, net, batch = one_batch
    plain = _settings(arch)
    assert plain.train.contrastive_ramp_steps == 0
    loss, parts = _floats(make_loss(plain, "cpu")(net, batch))  # the signature and path before the ramp existed
    same, same_parts = _floats(make_loss(plain, "cpu", WeightRamp(plain.loss_weights, 0))(net, batch))
    assert torch.equal(loss, same) and parts == same_parts and set(parts) == {"pred", "att", "hid"}
    # the paper's w1 L_pred + w2 L_att + w3 L_hid, computed here from the parts' tensors
    assert parts["att"] > 0 and parts["hid"] > 0
    ramped = _settings(arch, contrastive_ramp_steps=N)
    ramp = WeightRamp(ramped.loss_weights, N)
    fn = make_loss(ramped, "cpu", ramp)
    ramp.at(0)
    start, p0 = _floats(fn(net, batch))
    assert start.item() == pytest.approx(parts["pred"], rel=1e-6)  # L_pred alone at step 0
    assert (p0["att_weight"], p0["hid_weight"]) == (0.0, 0.0) and p0["hid"] == parts["hid"]
    ramp.at(N // 2)
    half, p_half = _floats(fn(net, batch))
    assert half.item() == pytest.approx(parts["pred"] + 0.5 * (parts["att"] + parts["hid"]), rel=1e-5)
    assert (p_half["att_weight"], p_half["hid_weight"]) == (0.5, 0.5)
    for step in (N, 3 * N):
        ramp.at(step)
        assert torch.equal(fn(net, batch)[0], loss)  # the configured weights: the default's loss, bit for bit


def test_default_loss_equals_the_old_combination(one_batch):
    """The default path against the loss composed as before the ramp (stacked_losses, combine)."""
    arch, net, batch = one_batch
    loss = make_loss(_settings(arch), "cpu")(net, batch)[0]
    rows, mask, B = batch["rows"], batch["mask"], batch["h"].shape[0]
    if arch == "encoder_decoder":
        enc = net.encode(rows, mask, True)
        real = batch["dec_real"]
        dec = net.decode(batch["dec_in"], enc.hidden, mask, attention_mask=real, need=True)
        ce = torch.nn.functional.cross_entropy(dec.logits.float().transpose(1, 2), batch["dec_out"], reduction="none")
        tmask = batch["dec_mask"].float()
        pred = (ce * tmask).sum() / tmask.sum().clamp(min=1)
        att, hid = stacked_losses([enc, dec], net.d_k, masks=[mask[:B], real[:B]], memory_masks=[None, mask[:B]])
    else:
        h, enc = net.heuristic(rows, mask, True)
        per_row = (h.float() - batch["h"].float().repeat(2)) ** 2
        pred = per_row.sum() / torch.ones_like(per_row).sum()
        att, hid = stacked_losses([enc], net.d_k, masks=[mask[:B]], memory_masks=[None])
    assert torch.equal(loss, combine(pred, att, hid, [1, 1, 1]))


def test_the_loop_hands_the_step_on_and_a_resumed_job_continues_the_ramp(tmp_path):
    cfg = LoopConfig(epochs=3, lr=0.05, checkpoint_every=1, spike_factor=None)  # 4 steps per epoch
    job = {"model": "tiny", "seed": 7}
    straight: list[int] = []
    fit(make_model(), mse, make_batches, cfg, seed=7, steps_per_epoch=4, before_step=straight.append)
    assert straight == list(range(12))

    def kill(epoch):
        if epoch == 2:
            raise KeyboardInterrupt

    partial, first, second = tmp_path / "m.ckpt.partial", [], []
    with pytest.raises(KeyboardInterrupt):
        fit(make_model(), mse, make_batches, cfg, seed=7, steps_per_epoch=4, partial=partial, job=job,
            on_epoch=kill, before_step=first.append)
    state = fit(make_model(), mse, make_batches, cfg, seed=7, steps_per_epoch=4, partial=partial, job=job,
                before_step=second.append)
    assert state.resumed_from == 2 and first == list(range(8)) and second == [8, 9, 10, 11]


def test_summary_and_log_show_the_effective_weights():
    settings = SymTSettings.from_entry({"family": "symt", "train": {"contrastive_ramp_steps": 6}})
    history = [{"epoch": e, "step": 4 * e, "train_loss": 1.0, "score": v, "lr": 1e-3, "seconds": 1.0, "pred": 1.0,
                "att": 0.1, "hid": 9.0, "att_weight": w, "hid_weight": w}
               for e, w, v in ((1, 0.25, 2.0), (2, 0.875, 1.5), (3, 1.0, 1.2))]
    state = TrainState(best_score=1.0, best_weights={}, step=12, history=history)
    assert _ramp_summary(settings, state) == {"contrastive_ramp_steps": 6, "contrastive_ramp_done_step": 6,
                                              "contrastive_ramp_done_epoch": 2, "loss_weights_last_step": [1, 1, 1]}
    short = TrainState(best_score=1.0, best_weights={}, step=4, history=history[:1])
    assert _ramp_summary(settings, short)["loss_weights_last_step"] == [1.0, 0.5, 0.5]
    assert _ramp_summary(settings, short)["contrastive_ramp_done_step"] is None
    header, rows = _log(history)  # the validation loss is each epoch's selection score, kept in its history row
    assert header[-2:] == ["att_weight", "hid_weight"] and rows[0][-2:] == ["0.250000", "0.250000"]
    assert [row[header.index("val_loss")] for row in rows] == ["2.000000", "1.500000", "1.200000"]
    plain = [{k: v for k, v in r.items() if not k.endswith("_weight")} for r in history]
    assert _log(plain)[0][-1] == "seconds"  # no ramp: the log's columns as before
    assert _ramp_summary(SymTSettings.from_entry({"family": "symt"}), state) == {"contrastive_ramp_steps": 0}


def test_schema_and_settings_refuse_a_bad_value_naming_the_key():
    entry = {"family": "symt", "seeds": [1], "strategies": ["greedy"], "train": {"contrastive_ramp_steps": -5}}
    with pytest.raises(GenplanError, match="contrastive_ramp_steps"):
        check_value(entry, ("$defs", "symt"), "model entry")
    check_value({**entry, "train": {"contrastive_ramp_steps": 100}}, ("$defs", "symt"), "model entry")
    for bad in (-5, 2.5, "10"):
        with pytest.raises(GenplanError, match="train.contrastive_ramp_steps must be a non-negative integer"):
            SymTSettings.from_entry({"family": "symt", "train": {"contrastive_ramp_steps": bad}})
        with pytest.raises(GenplanError, match="train.contrastive_ramp_steps must be a non-negative integer"):
            DiffusionSettings.from_entry({"family": "diffusion", "train": {"contrastive_ramp_steps": bad,
                                                                           "symmetry": "rename-both"}})
    diffusion = {"family": "diffusion", "seeds": [1], "strategies": ["unmask-T5"],
                 "train": {"symmetry": "rename-both", "contrastive_ramp_steps": -1}}
    with pytest.raises(GenplanError, match="contrastive_ramp_steps"):
        check_value(diffusion, ("$defs", "diffusion"), "model entry")


def test_no_ramp_stores_the_settings_as_before_and_a_ramp_is_in_the_key():
    """Checkpoints and partial-state keys without a ramp carry no new key (old partial states resume)."""
    assert "contrastive_ramp_steps" not in SymTSettings.from_entry({"family": "symt"}).to_dict()["train"]
    assert "contrastive_ramp_steps" not in DiffusionSettings.from_entry({"family": "diffusion"}).to_dict()["train"]
    ramped = SymTSettings.from_entry({"family": "symt", "train": {"contrastive_ramp_steps": 50}})
    assert ramped.to_dict()["train"]["contrastive_ramp_steps"] == 50
    assert SymTSettings.from_entry({**ramped.to_dict(), "family": "symt"}) == ramped  # as the checkpoint reloads it


def test_the_diffusion_symmetry_loss_ramps_too():
    from genplan.models.diffusion.atoms import AtomVocabulary
    from genplan.models.diffusion.model import Denoiser, DiffusionModel, network_config
    from genplan.models.diffusion.train import _losses
    from genplan.nn.transformer import TransformerConfig
    from genplan.tokens.vocab import Vocabulary

    info = parse_domain(domain_file("gripper"))
    vocab = Vocabulary.for_domain(info, 8)
    atoms = AtomVocabulary(vocab)
    entry = {"object_pool": 8, "max_plan_tokens": 12, "network": {"d_model": 32, "n_heads": 4, "n_layers": 2,
                                                                  "share_weights": True},
             "train": {"symmetry": "rename-both", "contrastive_ramp_steps": N}}
    settings = DiffusionSettings.from_entry(entry)
    torch.manual_seed(0)
    net = Denoiser(TransformerConfig(**network_config(vocab, settings)), len(atoms))
    model = DiffusionModel({"name": "tiny", "domain": "gripper", "seed": 0}, vocab, atoms, net, settings, info)
    g = torch.Generator().manual_seed(0)
    c1, c2 = (torch.randint(1, len(atoms), (2, 5), generator=g) for _ in range(2))
    p1, p2 = (torch.randint(0, len(vocab), (2, 13), generator=g) for _ in range(2))
    batch = (c1, c2, torch.ones(2, 5, dtype=torch.bool), p1, p2, torch.tensor([0.5, 0.9]), torch.rand(2, 13, generator=g))
    plain, parts = _floats(_losses(model, "cpu")[0](net, batch))  # no ramp: the configured weights
    ramp = WeightRamp(settings.train.symmetry_weights, N)
    fn = _losses(model, "cpu", ramp)[0]
    ramp.at(0)
    start, p0 = _floats(fn(net, batch))
    assert start.item() == pytest.approx(parts["l_pred"], rel=1e-6) and (p0["w_att"], p0["w_hid"]) == (0.0, 0.0)
    assert parts["l_hid"] > 0
    ramp.at(N)
    assert torch.equal(fn(net, batch)[0], plain)
