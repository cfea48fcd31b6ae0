"""SymT's contrastive losses (genplan.nn.contrastive): zero for identical copies, positive for
different ones, the paper's sums checked by hand, renaming modes."""

from __future__ import annotations

import pytest
import torch

from genplan.nn.contrastive import (
    attention_loss,
    combine,
    contrastive_losses,
    hidden_loss,
    renaming_pair,
    stacked_losses,
)
from genplan.nn.transformer import Transformer, TransformerConfig


def _net(**kw):
    torch.manual_seed(0)
    cfg = dict(vocab_size=20, max_len=16, d_model=16, n_heads=4, n_layers=3, causal=False, positions="none",
               share_weights=True)
    return Transformer(TransformerConfig(**{**cfg, **kw})).eval()


def test_hand_computed_sums():
    a = [torch.tensor([[[[1.0, 0.0], [0.5, 0.5]]]]), torch.zeros(1, 1, 2, 2)]  # [B=1, H=1, 2, 2]
    b = [torch.tensor([[[[0.0, 1.0], [0.5, 0.5]]]]), torch.zeros(1, 1, 2, 2)]
    assert attention_loss(a, b).item() == pytest.approx(2.0)  # (1-0)^2 + (0-1)^2
    # batch of 2: divided by B
    a2, b2 = [torch.cat([a[0], a[0]])], [torch.cat([b[0], a[0]])]
    assert attention_loss(a2, b2).item() == pytest.approx(1.0)
    h = [torch.tensor([[[1.0, 2.0, 3.0], [0.0, 0.0, 9.0]]])]  # [B=1, T=2, D=3]
    g = [torch.tensor([[[0.0, 0.0, -5.0], [1.0, 1.0, 0.0]]])]
    assert hidden_loss(h, g, d_k=2).item() == pytest.approx(1 + 4 + 1 + 1)  # only dims 0..1
    assert hidden_loss(h, g, d_k=2, mask=torch.tensor([[True, False]])).item() == pytest.approx(5.0)
    assert combine(torch.tensor(2.0), torch.tensor(3.0), torch.tensor(5.0), (1, 0, 2)).item() == pytest.approx(12.0)
    assert combine(torch.tensor(2.0), torch.tensor(float("nan")), None, (1, 0, 1)).item() == pytest.approx(2.0)


def test_zero_for_identical_copies_positive_for_renamed_ones():
    net = _net()
    x = torch.tensor([[3, 4, 5, 6, 0], [7, 8, 9, 0, 0]])
    renamed = torch.tensor([[3, 11, 5, 12, 0], [7, 13, 9, 0, 0]])  # same structure, other tokens
    mask = x != 0
    kw = dict(attention_mask=mask, return_attentions=True, return_hidden=True)
    out_a, out_b, out_c = net(x, **kw), net(x.clone(), **kw), net(renamed, **kw)
    att, hid = contrastive_losses([out_a], [out_b], d_k=4, masks=[mask])
    assert att.item() == 0.0 and hid.item() == 0.0
    att, hid = contrastive_losses([out_a], [out_c], d_k=4, masks=[mask])
    assert att.item() > 1e-8 and hid.item() > 1e-6
    # padding queries attend to the real keys: unmasked, their rows add to the sums
    att2, hid2 = contrastive_losses([out_a], [out_c], d_k=4)
    assert att2.item() > att.item() and hid2.item() > hid.item()


def test_cross_attention_is_compared_and_gradients_flow():
    enc = _net()
    dec = _net(causal=True, cross_attention=True)
    x, x2 = torch.tensor([[3, 4, 5]]), torch.tensor([[3, 14, 5]])
    y = torch.tensor([[6, 7]])
    kw = dict(return_attentions=True, return_hidden=True)
    ea, eb = enc(x, **kw), enc(x2, **kw)
    da, db = dec(y, memory=ea.hidden, **kw), dec(y, memory=eb.hidden, **kw)
    assert da.cross_attentions is not None and len(da.cross_attentions) == 3
    att, hid = contrastive_losses([ea, da], [eb, db], d_k=4)
    att_enc, hid_enc = contrastive_losses([ea], [eb], d_k=4)
    assert att.item() > att_enc.item() and hid.item() > hid_enc.item()  # the decoder adds its own terms
    (att + hid).backward()
    assert any(p.grad is not None and p.grad.abs().sum() > 0 for p in enc.parameters())


def test_stacked_copies_give_the_losses_and_gradients_of_the_separate_runs():
    """Both copies in one batch (copy A rows 0..B-1, copy B rows B..2B-1), as SymT trains them:
    the same sums and gradients as the copies' row slices handed to contrastive_losses."""
    enc, dec = _net(), _net(causal=True, cross_attention=True)
    x = torch.tensor([[3, 4, 5, 0], [7, 8, 9, 6], [3, 14, 5, 0], [7, 13, 9, 6]])
    y = torch.tensor([[6, 7, 0], [6, 8, 9], [6, 7, 0], [6, 8, 9]])
    xm, ym = x != 0, y != 0
    kw = dict(return_attentions=True, return_hidden=True)
    grads = []
    for stacked in (False, True):
        for p in list(enc.parameters()) + list(dec.parameters()):
            p.grad = None
        e = enc(x, attention_mask=xm, **kw)
        d = dec(y, attention_mask=ym, memory=e.hidden, memory_mask=xm, **kw)
        masks, memory = [xm[:2], ym[:2]], [None, xm[:2]]
        if stacked:
            att, hid = stacked_losses([e, d], 4, masks=masks, memory_masks=memory)
        else:
            def rows(out, sl):
                cross = None if out.cross_attentions is None else [a[sl] for a in out.cross_attentions]
                return type(out)(logits=None, hidden=None, attentions=[a[sl] for a in out.attentions],
                                 cross_attentions=cross, hidden_states=[h[sl] for h in out.hidden_states])
            att, hid = contrastive_losses([rows(e, slice(0, 2)), rows(d, slice(0, 2))],
                                          [rows(e, slice(2, 4)), rows(d, slice(2, 4))], 4, masks=masks,
                                          memory_masks=memory)
        (att + hid).backward()
        grads.append((att.detach(), hid.detach(), [p.grad.clone() for p in enc.parameters()]))
    assert grads[0][0] > 0 and grads[0][1] > 0
    assert torch.allclose(grads[0][0], grads[1][0]) and torch.allclose(grads[0][1], grads[1][1])
    assert all(torch.allclose(g, h) for g, h in zip(grads[0][2], grads[1][2]))

def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="return_attentions"):
        contrastive_losses([_net()(torch.tensor([[1, 2]]))], [_net()(torch.tensor([[1, 2]]))], d_k=4)
    with pytest.raises(ValueError, match="d_k"):
        hidden_loss([torch.zeros(1, 2, 3)], [torch.zeros(1, 2, 3)], d_k=4)
    with pytest.raises(ValueError, match="shapes differ"):
        attention_loss([torch.zeros(1, 1, 2, 2)], [torch.zeros(1, 1, 3, 3)])


def test_renaming_modes():
    import numpy as np

    from genplan.tokens.vocab import Vocabulary

    vocab = Vocabulary("d", {"on": 2}, {"move": 2}, 10)
    objects = ["b", "a", "c"]
    rng = np.random.default_rng(0)
    firsts = set()
    for _ in range(5):
        x, x2 = renaming_pair(objects, None, vocab, rng, "rename-one")
        firsts.add(tuple(sorted(x.forward.items())))
        assert set(x2.forward) == set(objects)
    assert firsts == {(("a", "o0"), ("b", "o1"), ("c", "o2"))}  # X fixed across examples
    both = {tuple(sorted(renaming_pair(objects, None, vocab, rng, "rename-both")[0].forward.items()))
            for _ in range(5)}
    assert len(both) > 1
    with pytest.raises(ValueError, match="rename-one"):
        renaming_pair(objects, None, vocab, rng, "swap")
