"""Masked plan diffusion's `network.positions` setting (genplan.models.diffusion.model): the paper's
rotary positions by default, learned absolute plan positions as the CPU-size departure that
experiments/sequence-recipe.md measures."""

from __future__ import annotations

import pytest
import torch
from test_features import DOMAIN

from genplan.errors import GenplanError
from genplan.models.diffusion.atoms import AtomVocabulary
from genplan.models.diffusion.model import DiffusionSettings, make_denoiser, network_config
from genplan.nn.transformer import TransformerConfig
from genplan.pddl_io import parse_domain
from genplan.tokens.vocab import Vocabulary

WIDTH = 24  # plan positions


def test_learned_positions_are_a_setting_kept_apart_from_the_papers_rotary_default():
    """`network.positions: learned` (a diagnosis, experiments/sequence-recipe.md) gives the plan absolute
    positions from a table: every plan position of a fully masked plan then reads differently at the
    first layer, and the condition's atoms still sit together at position 0 (their order does not
    matter). The paper's rotary default is left out of the stored settings; a bad value is refused."""
    with pytest.raises(GenplanError, match="network.positions 'absolute' is not rotary or learned"):
        DiffusionSettings.from_entry({"network": {"positions": "absolute"}})
    assert "positions" not in DiffusionSettings.from_entry({}).to_dict()["network"]
    from genplan.models.diffusion import family

    assert not family.check("m", {"network": {"positions": "learned"}})  # the config schema takes it
    assert family.check("m", {"network": {"positions": "absolute"}})
    torch.manual_seed(0)
    info = parse_domain(DOMAIN)
    vocab = Vocabulary.for_domain(info, 8)
    settings = DiffusionSettings.from_entry({"object_pool": 8, "max_plan_tokens": WIDTH,
                                             "network": {"d_model": 32, "n_heads": 4, "n_layers": 2,
                                                         "positions": "learned"}})
    assert settings.to_dict()["network"]["positions"] == "learned"
    config = TransformerConfig(**network_config(vocab, settings))
    assert config.positions == "learned" and config.max_len == WIDTH + 1
    net = make_denoiser(config, AtomVocabulary(vocab), settings).eval()
    cond = torch.tensor([[3, 17, 40]])
    plan = torch.full((1, 1 + WIDTH), vocab.mask_id)
    plan[0, 0] = vocab.start_id
    with torch.no_grad():
        out = net.plan_logits(cond, torch.ones_like(cond, dtype=torch.bool), plan)[0]
        swapped = net.plan_logits(cond[:, [2, 0, 1]], torch.ones_like(cond, dtype=torch.bool), plan)[0]
    assert not torch.allclose(out[3], out[4], atol=1e-4) and torch.allclose(out, swapped, atol=1e-5)
