"""The shared transformer core (genplan.nn.transformer): masks, positions, shared weights,
cross-attention, attention probabilities, the key/value cache, and that it learns (tiny sizes)."""

from __future__ import annotations

import math

import pytest
import torch

from genplan.nn import GPT2_SMALL, Transformer, TransformerConfig, init_weights, parameter_count, reorder_cache
from genplan.nn.transformer import apply_rotary, rotary_cos_sin

V = 23
ATOL = 1e-5


def make(seed=0, **kw) -> Transformer:
    torch.manual_seed(seed)
    kw = {"vocab_size": V, "max_len": 32, "d_model": 32, "n_heads": 4, "n_layers": 2, **kw}
    return Transformer(TransformerConfig(**kw)).eval()


def ids(B=2, T=9, seed=1) -> torch.Tensor:
    return torch.randint(1, V, (B, T), generator=torch.Generator().manual_seed(seed))


# --- configuration -----------------------------------------------------------------------------

@pytest.mark.parametrize("kw, field", [
    ({"positions": "sinusoidal"}, "positions"), ({"d_model": 30}, "d_model"), ({"n_layers": 0}, "n_layers"),
    ({"dropout": 1.5}, "dropout"), ({"causal": "yes"}, "causal"), ({"pad_id": V}, "pad_id"),
    ({"d_model": 24, "n_heads": 8, "positions": "rotary"}, "d_model"), ({"d_ff": -1}, "d_ff")])
def test_config_names_the_bad_field(kw, field):
    with pytest.raises(ValueError, match=field):
        TransformerConfig(vocab_size=V, max_len=8, **kw)
    with pytest.raises(ValueError, match=r"Must be from \['learned', 'none', 'rotary'\]"):
        TransformerConfig(vocab_size=V, max_len=8, positions="alibi")


def test_config_round_trips_through_a_dict():
    cfg = TransformerConfig(vocab_size=V, positions="rotary", share_weights=True, **GPT2_SMALL)
    assert TransformerConfig(**cfg.to_dict()) == cfg


# --- masks -------------------------------------------------------------------------------------

@pytest.mark.parametrize("positions", ["learned", "none", "rotary"])
def test_causal_mask_hides_the_future_and_bidirectional_does_not(positions):
    x = ids()
    y = x.clone()
    y[:, 6] = (y[:, 6] % (V - 1)) + 1  # change a later token
    causal = make(positions=positions)
    a, b = causal(x).logits, causal(y).logits
    assert torch.allclose(a[:, :6], b[:, :6], atol=ATOL)
    assert not torch.allclose(a[:, 6:], b[:, 6:], atol=1e-3)
    bidir = make(positions=positions, causal=False)
    assert not torch.allclose(bidir(x).logits[:, :6], bidir(y).logits[:, :6], atol=1e-3)


@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("positions", ["learned", "none", "rotary"])
def test_padding_is_never_attended(causal, positions):
    model = make(positions=positions, causal=causal)
    x = ids(B=1, T=5)
    alone = model(x).logits
    padded = torch.cat([x, torch.zeros(1, 3, dtype=torch.long)], 1)  # right padding
    mask = model.padding_mask(padded)
    out = model(padded, attention_mask=mask).logits
    assert torch.allclose(out[:, :5], alone, atol=ATOL)
    garbage = padded.clone()
    garbage[:, 5:] = 7  # what sits under the mask does not matter
    assert torch.allclose(model(garbage, attention_mask=mask).logits[:, :5], alone, atol=ATOL)
    if positions != "learned":  # left padding, positions shifted back (rotary: offset -3)
        left = torch.cat([torch.zeros(1, 3, dtype=torch.long), x], 1)
        out = model(left, attention_mask=left != 0, position_offset=-3).logits
        assert torch.allclose(out[:, 3:], alone, atol=ATOL)
        assert torch.isfinite(out).all()


def test_nope_bidirectional_model_is_permutation_equivariant():
    model = make(positions="none", causal=False, share_weights=True, n_layers=3)
    x = ids(B=2, T=10)
    perm = torch.randperm(10, generator=torch.Generator().manual_seed(3))
    out, out_p = model(x, return_hidden=True), model(x[:, perm], return_hidden=True)
    assert torch.allclose(out.logits[:, perm], out_p.logits, atol=ATOL)
    for h, h_p in zip(out.hidden_states, out_p.hidden_states):
        assert torch.allclose(h[:, perm], h_p, atol=ATOL)
    learned = make(positions="learned", causal=False)  # positions break the symmetry
    assert not torch.allclose(learned(x).logits[:, perm], learned(x[:, perm]).logits, atol=1e-3)


# --- positions ---------------------------------------------------------------------------------

def test_rotary_scores_depend_on_relative_positions_only():
    g = torch.Generator().manual_seed(0)
    q, k = torch.randn(1, 1, 1, 8, generator=g), torch.randn(1, 1, 1, 8, generator=g)

    def score(m, n):
        cq = rotary_cos_sin(torch.tensor([[float(m)]]), 8, 10000.0, torch.float32)
        ck = rotary_cos_sin(torch.tensor([[float(n)]]), 8, 10000.0, torch.float32)
        return (apply_rotary(q, *cq) * apply_rotary(k, *ck)).sum()

    assert torch.allclose(score(5, 2), score(105, 102), atol=1e-4)
    assert torch.allclose(score(0, 0), (q * k).sum(), atol=1e-6)
    assert not torch.allclose(score(5, 2), score(5, 3), atol=1e-3)


def test_rotary_offset_keeps_attention_and_learned_offset_moves_it():
    x = ids()
    rot = make(positions="rotary")
    a0, a7 = rot(x, return_attentions=True), rot(x, return_attentions=True, position_offset=7)
    for p, q in zip(a0.attentions, a7.attentions):
        assert torch.allclose(p, q, atol=ATOL)
    per_row = rot(x, position_offset=torch.tensor([7, 7])).logits  # [B] offsets
    assert torch.allclose(per_row, a7.logits, atol=ATOL)
    learned = make(positions="learned")
    assert not torch.allclose(learned(x).logits, learned(x, position_offset=7).logits, atol=1e-3)


def test_learned_positions_beyond_max_len_raise():
    model = make(positions="learned", max_len=8)
    model(ids(T=8))
    with pytest.raises(ValueError, match="max_len=8"):
        model(ids(T=9))
    with pytest.raises(ValueError, match="outside 0..7"):
        model(ids(T=4), position_offset=5)
    make(positions="rotary", max_len=8)(ids(T=20))  # rotary and none have no table to run out of


# --- shared weights, cross-attention -----------------------------------------------------------

def test_shared_weights_hold_one_block():
    shared, one = make(share_weights=True, n_layers=4), make(n_layers=1)
    assert parameter_count(shared) == parameter_count(one) < parameter_count(make(n_layers=4))
    assert len(shared.blocks) == 1
    out = shared(ids(), return_hidden=True, return_attentions=True)
    assert len(out.hidden_states) == len(out.attentions) == 4
    one.load_state_dict(shared.state_dict())  # same weights, applied once instead of four times
    assert not torch.allclose(one(ids()).logits, out.logits, atol=1e-3)


def test_cross_attention_uses_the_memory():
    model = make(cross_attention=True, positions="none")
    g = torch.Generator().manual_seed(5)
    memory = torch.randn(2, 6, 32, generator=g)
    x = ids()
    out = model(x, memory=memory).logits
    other = memory.clone()
    other[:, 2] += 1.0
    assert not torch.allclose(out, model(x, memory=other).logits, atol=1e-4)
    mmask = torch.ones(2, 6, dtype=torch.bool)
    mmask[:, 2] = False  # a masked memory slot is ignored
    assert torch.allclose(model(x, memory=memory, memory_mask=mmask).logits,
                          model(x, memory=other, memory_mask=mmask).logits, atol=ATOL)
    with pytest.raises(ValueError, match="memory"):
        model(x)
    with pytest.raises(ValueError, match="memory"):
        make()(x, memory=memory)



@pytest.mark.parametrize("need", [False, True])
def test_bidirectional_padding_uses_a_key_mask_equal_to_the_full_one(need):
    model = make(causal=False, positions="rotary")
    mask = torch.ones(3, 6, dtype=torch.bool)
    mask[1, 4:] = False
    key = model._self_mask(mask, 6, 0, need, "cpu")["mask"]
    assert key.shape == (3, 1, 1, 6)  # broadcast over the queries, not built [B, 1, T, T]
    all_padding = torch.cat([mask, torch.zeros(1, 6, dtype=torch.bool)])  # a row without a real key
    full = model._self_mask(all_padding, 6, 0, need, "cpu")["mask"]
    assert full.shape == (4, 1, 6, 6) and torch.equal(full[:3], key.expand(3, 1, 6, 6))
    assert torch.equal(full[3, 0], torch.eye(6, dtype=torch.bool))  # its queries look at themselves
    x = ids(B=4, T=6)
    out = model(x[:3], attention_mask=mask, return_attentions=need)
    ref = model(x, attention_mask=all_padding, return_attentions=need)
    assert torch.allclose(out.logits, ref.logits[:3], atol=ATOL)
    if need:
        assert torch.allclose(out.attentions[0], ref.attentions[0][:3], atol=ATOL)

# --- attention probabilities -------------------------------------------------------------------

@pytest.mark.parametrize("kw", [dict(), dict(causal=False, positions="none"), dict(positions="rotary"),
                                dict(cross_attention=True, share_weights=True, positions="none")])
def test_attention_probabilities_are_rows_summing_to_one_and_match_the_fast_path(kw):
    model = make(**kw)
    x = ids(T=7)
    mask = torch.ones(2, 7, dtype=torch.bool)
    mask[1, 5:] = False
    memory = torch.randn(2, 4, 32) if kw.get("cross_attention") else None
    for attention_mask in (None, mask):
        fast = model(x, attention_mask=attention_mask, memory=memory)
        slow = model(x, attention_mask=attention_mask, memory=memory, return_attentions=True)
        assert fast.attentions is None
        assert torch.allclose(fast.logits, slow.logits, atol=ATOL)
        assert len(slow.attentions) == 2
        for att in slow.attentions + (slow.cross_attentions or []):
            assert torch.allclose(att.sum(-1), torch.ones(att.shape[:-1]), atol=ATOL)
        att = slow.attentions[0]
        assert att.shape == (2, 4, 7, 7)
        if model.config.causal:
            assert att.triu(1).abs().max() == 0
        if attention_mask is not None:
            assert att[1, :, :5, 5:].abs().max() == 0  # real queries never look at padding


# --- key/value cache ---------------------------------------------------------------------------

@pytest.mark.parametrize("kw", [dict(positions="learned"), dict(positions="rotary"), dict(positions="none"),
                                dict(positions="rotary", share_weights=True, n_layers=3),
                                dict(positions="none", cross_attention=True)])
def test_cached_incremental_logits_equal_the_full_forward(kw):
    model = make(**kw)
    x = ids(T=10)
    memory = torch.randn(2, 5, 32) if kw.get("cross_attention") else None
    full = model(x, memory=memory, position_offset=2).logits
    out = model(x[:, :4], memory=memory, position_offset=2, use_cache=True)  # a prompt, then one by one
    steps, past = [out.logits], out.past
    for t in range(4, 10):
        out = model(x[:, t:t + 1], memory=memory, position_offset=2, past=past, use_cache=True)
        steps.append(out.logits)
        past = out.past
    assert past[0][0].shape == (2, 4, 10, 8)
    assert torch.allclose(torch.cat(steps, 1), full, atol=ATOL)


def test_cache_with_left_padding_and_reordering():
    model = make(positions="rotary")
    x = ids(T=6)
    x[0, :2] = 0  # row 0 is left-padded: its real tokens start at position 0 after the offset
    mask = x != 0
    offset = torch.tensor([-2, 0])
    full = model(x, attention_mask=mask, position_offset=offset).logits
    out = model(x[:, :3], attention_mask=mask[:, :3], position_offset=offset, use_cache=True)
    past, steps = out.past, [out.logits]
    for t in range(3, 6):
        out = model(x[:, t:t + 1], attention_mask=mask[:, :t + 1], position_offset=offset, past=past, use_cache=True)
        past, steps = out.past, steps + [out.logits]
    assert torch.allclose(torch.cat(steps, 1)[mask], full[mask], atol=ATOL)
    swapped = reorder_cache(past, torch.tensor([1, 1]))  # beam search keeps row 1 twice
    nxt = model(x[[1, 1], :1], attention_mask=torch.ones(2, 7, dtype=torch.bool), past=swapped,
                position_offset=0).logits
    assert torch.allclose(nxt[0], nxt[1], atol=ATOL)
    with pytest.raises(ValueError, match="attention_mask"):
        model(x[:, :1], attention_mask=mask[:, :1], past=past)


# --- sizes, initialisation, learning -----------------------------------------------------------

def test_parameter_count_and_gpt2_initialisation():
    model = make(n_layers=3)
    cfg = model.config
    assert model.lm_head.weight is model.wte.weight
    embeddings = V * 32 + 32 * 32
    assert parameter_count(model) - parameter_count(model, embeddings=False) == embeddings
    untied = make(n_layers=3, tie_embeddings=False)
    assert parameter_count(untied) == parameter_count(model) + V * 32
    for p in model.parameters():
        p.requires_grad_(False)
    assert parameter_count(model) == 0 and parameter_count(model, trainable=False) > 0
    big = Transformer(TransformerConfig(vocab_size=V, max_len=64, d_model=256, n_heads=4, n_layers=6))
    init_weights(big)
    assert abs(big.blocks[0].mlp.c_proj.weight.std().item() - 0.02 / math.sqrt(12)) < 5e-4
    assert abs(big.blocks[0].mlp.c_fc.weight.std().item() - 0.02) < 5e-4
    assert cfg.head_dim == 8


def test_a_tiny_model_learns_to_copy():
    torch.manual_seed(0)
    n, sep = 6, 1  # tokens 2..11 to copy, then the separator, then the copy
    model = Transformer(TransformerConfig(vocab_size=12, max_len=2 * n + 1, d_model=48, n_heads=4, n_layers=2))
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    losses = []
    for _ in range(300):
        src = torch.randint(2, 12, (32, n))
        seq = torch.cat([src, torch.full((32, 1), sep), src], 1)
        logits = model(seq[:, :-1]).logits[:, n:]  # predict the copy from the separator on
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, 12), seq[:, n + 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[0] > 2.0 and sum(losses[-10:]) / 10 < 0.2, (losses[0], losses[-10:])


def test_fixed_tokens_keep_distinct_rows_through_training_and_a_checkpoint():
    """`fixed_tokens`: those rows of the token table are orthogonal vectors of a GPT-2 row's norm plus one
    learned shift; an AdamW step with weight decay moves the other rows and the shift, never them; the
    tied LM head reads the same table; a state dict round trip gives the same logits."""
    fixed = [5, 6, 7]
    net = make(fixed_tokens=fixed).train()
    table = net.token_table().detach()
    gram = table[fixed] @ table[fixed].T
    assert torch.allclose(gram, torch.eye(3) * (0.02 ** 2 * 32), atol=1e-6)
    out = net(ids())
    assert torch.allclose(out.logits, out.hidden @ net.token_table().T, atol=ATOL)
    opt = torch.optim.AdamW(net.parameters(), lr=0.05, weight_decay=0.5)
    out.logits.logsumexp(-1).mean().backward()
    opt.step()
    after = net.token_table().detach()
    shift = net.fixed_shift.detach()
    assert shift.abs().sum() > 0
    assert torch.allclose(after[fixed] - shift, table[fixed], atol=1e-6)
    assert not torch.allclose(after[1], table[1])
    twin = make(seed=9, fixed_tokens=fixed)
    twin.load_state_dict(net.state_dict())
    assert torch.allclose(twin.eval()(ids()).logits, net.eval()(ids()).logits, atol=ATOL)


@pytest.mark.parametrize("bad", [[3, 3], [V], [-1], ["o1"]])
def test_fixed_tokens_must_be_distinct_ids_of_the_vocabulary(bad):
    with pytest.raises(ValueError, match="fixed_tokens"):
        TransformerConfig(vocab_size=V, max_len=8, fixed_tokens=bad)


def test_cpu_autocast_runs_attention_in_float32_and_agrees_with_float32(monkeypatch):
    """`train.cpu_bf16`: under CPU autocast the linear layers run in bfloat16 and SDPA in float32
    (torch's bfloat16 SDPA is the slower on a CPU: perf/results/cpu-bf16.txt); the logits stay
    close to float32's and gradients reach every parameter."""
    import torch.nn.functional as F

    from genplan.nn import transformer

    seen = []
    real_sdpa = F.scaled_dot_product_attention

    def watched(q, k, v, **kw):
        seen.append(q.dtype)
        return real_sdpa(q, k, v, **kw)

    monkeypatch.setattr(transformer.F, "scaled_dot_product_attention", watched)
    model, x = make(), ids()
    mask = torch.ones_like(x, dtype=torch.bool)
    mask[0, -3:] = False
    ref = model(x, attention_mask=mask).logits
    with torch.autocast("cpu", dtype=torch.bfloat16):
        out = model(x, attention_mask=mask).logits
    assert seen and set(seen) == {torch.float32}
    assert out.dtype == torch.bfloat16 and torch.allclose(out.float(), ref, atol=0.1)
    out.float().sum().backward()
    assert all(p.grad is not None for p in model.parameters() if p.requires_grad and p.dim() > 1)


# --- the CPU training attention: SDPA's bytes in fewer operators --------------------

@pytest.mark.parametrize("mask_shape", [None, (2, 1, 1, 7), (2, 1, 7, 7)])
def test_math_attention_has_the_bytes_of_sdpa_with_dropout(mask_shape):
    """math_attention (with the mask made once as additive_mask) gives SDPA's outputs and gradients, bit for
    bit, the dropout drawn alike from the global generator."""
    from genplan.nn.transformer import additive_mask, math_attention

    g = torch.Generator().manual_seed(3)
    q, k, v = (torch.randn(2, 4, 7, 6, generator=g) for _ in range(3))
    mask = None
    if mask_shape is not None:
        mask = torch.rand(mask_shape, generator=g) < 0.6
        mask[..., 0] = True  # every row has a key, as the model's masks
    results = []
    for attend in (lambda a, b, c: torch.nn.functional.scaled_dot_product_attention(a, b, c, attn_mask=mask,
                                                                                      dropout_p=0.1),
                   lambda a, b, c: math_attention(a, b, c, additive_mask(mask), 0.1)):
        leaves = [t.clone().requires_grad_() for t in (q, k, v)]
        torch.manual_seed(5)
        y = attend(*leaves)
        y.square().sum().backward()
        results.append([y.detach(), *(t.grad for t in leaves)])
    for a, b in zip(*results):
        assert torch.equal(a, b)


@pytest.mark.parametrize("kw", [{"causal": True}, {"causal": False, "positions": "rotary"}])
def test_a_training_forward_with_dropout_has_the_bytes_of_sdpa(kw, monkeypatch):
    """The model's CPU training forward with attention dropout (math_attention) against the same forward
    through torch's SDPA: equal logits and gradients."""
    import genplan.nn.transformer as tr

    x = ids(T=9)
    real = torch.ones_like(x, dtype=torch.bool)
    real[1, 6:] = False
    results = []
    for math_path in (True, False):
        if not math_path:
            monkeypatch.setattr(tr, "uses_math_attention", lambda *a: False)
        model = make(dropout=0.1, **kw).train()
        torch.manual_seed(7)
        out = model(x, attention_mask=real)
        out.logits.square().sum().backward()
        results.append([out.logits.detach(), *(p.grad for p in model.parameters())])
    for a, b in zip(*results):
        assert torch.equal(a, b)
