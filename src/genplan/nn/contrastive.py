"""SymT's contrastive losses between two renamed copies of one example (Fritzsche, Gestrin and
Seipp, "Symmetry-Aware Transformer Training for Automated Planning", Section 4, "Contrastive
Training for Object Name Equivariance"; ../shared/papers/symt-symmetry-aware-transformers.md).

For one planning problem two inputs X and X' (and outputs Y and Y') are built that differ only in
the object names; token i of one copy stands for the same atom (or action token) as token i of
the other. The model should process both alike:

    L_att = 1/B  sum_{alpha in Att} sum_i sum_j (alpha_ij - alpha'_ij)^2
    L_hid = 1/B  sum_{H in {X, Y}} sum_l || H^(l)[:, :d_k] - H'^(l)[:, :d_k] ||^2
    L     = w1 L_pred + w2 L_att + w3 L_hid        (the paper: w1 = w2 = w3 = 1)

Att is every attention module of every layer and head (encoder self-attention, decoder
self-attention, cross-attention); H^(l) the hidden states after layer l (genplan.nn.Transformer
returns both with ``return_attentions=True, return_hidden=True``: ``out.attentions``,
``out.cross_attentions``, ``out.hidden_states``); d_k the head size d_model / n_heads. Only the
first d_k dimensions are aligned (the rest may carry name-specific features); with weights shared
across layers (SymT) this cannot collapse to a trivial solution in non-final layers.

Renaming modes (the paper's two): ``rename-one`` gives X fixed object names (the objects in
natural order take the pool's tokens in order, the same across training examples) and X' random
ones; ``rename-both`` draws both at random. Both keep the atom order of the underlying example, so
positions correspond; sequences built by sorting renamed token ids would not.

Signatures (all tensors on one device; float32 is used for the sums):

    attention_loss(attn_a, attn_b, *, query_mask=None, key_mask=None) -> Tensor (scalar)
        attn_a, attn_b: sequences of attention probabilities, each [B, H, T, K] (one per module
        and layer, in the same order for both copies; None entries are skipped); query_mask [B, T]
        and key_mask [B, K] (True = real token) exclude padding rows and columns (pass them for
        padded batches: genplan.nn.Transformer lets a padding query attend to the real keys, so
        its row differs between copies although no loss ever reads it).
    hidden_loss(hidden_a, hidden_b, d_k, *, mask=None) -> Tensor (scalar)
        hidden_a, hidden_b: sequences of hidden states, each [B, T, D]; the first d_k dimensions
        compared; mask [B, T] excludes padding positions.
    contrastive_losses(outs_a, outs_b, d_k, *, masks=None, memory_masks=None) -> (L_att, L_hid)
        outs_a, outs_b: sequences of TransformerOutput of the stacks (encoder, then decoder) of
        each copy, run with return_attentions and return_hidden; masks: per stack [B, T] or None;
        memory_masks: per stack [B, S] (the keys of its cross-attention) or None.
    stacked_losses(outs, d_k, *, masks=None, memory_masks=None) -> (L_att, L_hid)
        the same for stacks run once on both copies stacked along the batch (copy A in rows
        0..B-1, copy B in rows B..2B-1); masks and memory_masks of copy A's rows.
    combine(pred, att, hid, weights=(1, 1, 1)) -> Tensor
        w1 * pred + w2 * att + w3 * hid; a zero weight drops its term (no 0 * NaN).
    WeightRamp(weights, steps=0)
        the weights of optimizer step `step` (`ramp.at(step)`, then `ramp.weights_now()`): with
        steps N > 0 the contrastive weights w2, w3 rise linearly from 0 at step 0 to their values
        at step N (w1 untouched; not in the paper, which uses the weights from the start); N = 0
        gives the configured weights unchanged (the paper).
    renaming_pair(objects, types, vocab, rng, mode, per_type=None) -> (Renaming, Renaming)
        the renamings of X and X' (genplan.tokens.Renaming) for mode rename-one | rename-both.

Every loss is 0 for two identical copies and positive when they differ; all are differentiable.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch

MODES = ("rename-one", "rename-both")


def _batch(tensors: Sequence) -> int:
    for t in tensors:
        if t is not None:
            return t.shape[0]
    raise ValueError("no tensors to compare")


def _pair_mask(query_mask, key_mask, T: int, K: int):
    """[B, 1, T, K] (or a broadcastable part): True where both the query and the key are real; None
    without masks. The masks' last T (queries) and K (keys) positions are the module's."""
    q = None if query_mask is None else query_mask[:, None, -T:, None].bool()
    k = None if key_mask is None else key_mask[:, None, None, -K:].bool()
    return k if q is None else q if k is None else q & k


def attention_loss(attn_a: Sequence, attn_b: Sequence, *, query_mask: torch.Tensor | None = None,
                   key_mask: torch.Tensor | None = None) -> torch.Tensor:
    """L_att: the squared differences of the attention probabilities of every module, layer and
    head, summed, divided by the batch size."""
    if len(attn_a) != len(attn_b):
        raise ValueError(f"the copies have {len(attn_a)} and {len(attn_b)} attention modules")
    total, B = None, _batch(list(attn_a) + list(attn_b))
    keeps: dict = {}  # the float mask of each (T, K): made once for every layer of that shape
    for a, b in zip(attn_a, attn_b):
        if a is None and b is None:
            continue
        if a is None or b is None or a.shape != b.shape:
            raise ValueError(f"attention shapes differ between the copies: "
                             f"{None if a is None else tuple(a.shape)} and {None if b is None else tuple(b.shape)}")
        d = (a.float() - b.float()) ** 2  # [B, H, T, K]
        if d.shape[2:] not in keeps:
            keep = _pair_mask(query_mask, key_mask, d.shape[2], d.shape[3])
            keeps[d.shape[2:]] = None if keep is None else keep.to(d.dtype)
        keep = keeps[d.shape[2:]]
        if keep is not None:  # one product with the [B, 1, T, K] mask (0 or 1: the same sum as two)
            d = d * keep
        s = d.sum()
        total = s if total is None else total + s
    if total is None:
        raise ValueError("no attention probabilities to compare (run the model with return_attentions=True)")
    return total / B


def hidden_loss(hidden_a: Sequence, hidden_b: Sequence, d_k: int, *, mask: torch.Tensor | None = None) -> torch.Tensor:
    """L_hid: the squared differences of the first d_k dimensions of every layer's hidden states,
    summed over layers, tokens and dimensions, divided by the batch size."""
    if len(hidden_a) != len(hidden_b):
        raise ValueError(f"the copies have {len(hidden_a)} and {len(hidden_b)} layers of hidden states")
    if type(d_k) is not int or d_k < 1:
        raise ValueError(f"Invalid value d_k={d_k!r}. Must be a positive integer")
    total, B = None, _batch(list(hidden_a) + list(hidden_b))
    keep = None if mask is None else mask[:, :, None].to(torch.float32)  # once for every layer
    for a, b in zip(hidden_a, hidden_b):
        if a is None or b is None or a.shape != b.shape:
            raise ValueError("hidden states missing or of different shapes between the copies "
                             "(run the model with return_hidden=True)")
        if d_k > a.shape[-1]:
            raise ValueError(f"d_k={d_k} is larger than the hidden size {a.shape[-1]}")
        d = (a[..., :d_k].float() - b[..., :d_k].float()) ** 2  # [B, T, d_k], float32
        if keep is not None:
            d = d * keep
        s = d.sum()
        total = s if total is None else total + s
    if total is None:
        raise ValueError("no hidden states to compare (run the model with return_hidden=True)")
    return total / B


def contrastive_losses(outs_a: Sequence, outs_b: Sequence, d_k: int, *, masks: Sequence | None = None,
                       memory_masks: Sequence | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """(L_att, L_hid) over the stacks of a model (SymT^E: the encoder; SymT^ED: encoder and
    decoder; PlanGPT: its decoder), each given as the TransformerOutput of both copies."""
    if len(outs_a) != len(outs_b):
        raise ValueError("give the same stacks for both copies")
    masks = list(masks) if masks is not None else [None] * len(outs_a)
    memory_masks = list(memory_masks) if memory_masks is not None else [None] * len(outs_a)
    att, hid = [], []
    for oa, ob, m, mm in zip(outs_a, outs_b, masks, memory_masks):
        if oa.attentions is None or oa.hidden_states is None or ob.attentions is None or ob.hidden_states is None:
            raise ValueError("run the model with return_attentions=True and return_hidden=True for the contrastive losses")
        att.append(attention_loss(oa.attentions, ob.attentions, query_mask=m, key_mask=m))
        if oa.cross_attentions is not None or ob.cross_attentions is not None:
            att.append(attention_loss(oa.cross_attentions or [], ob.cross_attentions or [], query_mask=m, key_mask=mm))
        hid.append(hidden_loss(oa.hidden_states, ob.hidden_states, d_k, mask=m))
    return sum(att[1:], att[0]), sum(hid[1:], hid[0])


@dataclass
class _Copy:
    """One copy's attention probabilities and hidden states (what contrastive_losses reads)."""
    attentions: list | None
    cross_attentions: list | None
    hidden_states: list | None


def _copies(out) -> tuple[_Copy, _Copy]:
    """A stack's output run on both copies at once, split into copy A (rows 0..B-1) and copy B
    (rows B..2B-1) by one `unbind` per tensor: its gradient is one stack, where a row slice per copy
    fills a zero tensor of the whole batch each (the same values, a smaller backward pass)."""
    def split(xs):
        if xs is None:
            return None, None
        pairs = [(None, None) if x is None else x.unflatten(0, (2, -1)).unbind(0) for x in xs]
        return [p[0] for p in pairs], [p[1] for p in pairs]
    att, xatt, hid = split(out.attentions), split(out.cross_attentions), split(out.hidden_states)
    return _Copy(att[0], xatt[0], hid[0]), _Copy(att[1], xatt[1], hid[1])


def stacked_losses(outs: Sequence, d_k: int, *, masks: Sequence | None = None,
                   memory_masks: Sequence | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """`contrastive_losses` of stacks run once on both copies stacked along the batch (copy A in
    rows 0..B-1, copy B in rows B..2B-1, as genplan.models.symt.data batches them); `masks` and
    `memory_masks` are copy A's (B rows), as contrastive_losses takes them."""
    pairs = [_copies(o) for o in outs]
    return contrastive_losses([a for a, _ in pairs], [b for _, b in pairs], d_k, masks=masks,
                              memory_masks=memory_masks)


def combine(pred: torch.Tensor, att: torch.Tensor | None, hid: torch.Tensor | None,
            weights: Sequence[float] = (1.0, 1.0, 1.0)) -> torch.Tensor:
    """w1 * pred + w2 * att + w3 * hid; terms with weight 0 (or None) are left out."""
    w1, w2, w3 = (float(w) for w in weights)
    loss = w1 * pred
    if w2 and att is not None:
        loss = loss + w2 * att
    if w3 and hid is not None:
        loss = loss + w3 * hid
    return loss


class WeightRamp:
    """The loss weights (w1, w2, w3) of the optimizer step about to be taken: w2 and w3 scaled by
    min(1, step / steps), w1 as configured. Not in the paper (its weights are constant): a setting
    for training whose L_hid starts far larger than L_pred. `steps` 0: no ramp, `weights_now()` is
    the configured weights themselves. `at(step)` is the training loop's `before_step` hook (the
    loop's step count is in its partial states, so a resumed job continues the ramp)."""

    def __init__(self, weights: Sequence[float], steps: int = 0):
        if type(steps) is not int or steps < 0:
            raise ValueError(f"Invalid value steps={steps!r}. Must be a non-negative integer")
        self.weights, self.steps, self.step = weights, steps, 0

    def at(self, step: int) -> None:
        self.step = step

    def factor(self, step: int | None = None) -> float:
        """The contrastive weights' share at `step` (default: the current one): 1 without a ramp."""
        step = self.step if step is None else step
        return 1.0 if not self.steps else min(1.0, max(step, 0) / self.steps)

    def weights_now(self, step: int | None = None):
        if not self.steps:
            return self.weights
        r = self.factor(step)
        w1, w2, w3 = (float(w) for w in self.weights)
        return (w1, w2 * r, w3 * r)


def renaming_pair(objects, types, vocab, rng, mode: str, per_type: bool | None = None):
    """The renamings of the two copies: rename-one (X fixed: objects in natural order take the
    pool tokens in order; X' random) or rename-both (both random, drawn from `rng`)."""
    from genplan.tokens.renaming import Renaming

    if mode not in MODES:
        raise ValueError(f"Unknown value mode={mode!r}. Must be from {list(MODES)}")
    if mode == "rename-one":
        first = Renaming.identity_order(objects, types, vocab, per_type=per_type)
    else:
        first = Renaming.random(objects, types, vocab, rng, per_type=per_type)
    return first, Renaming.random(objects, types, vocab, rng, per_type=per_type)
