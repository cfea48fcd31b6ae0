"""One transformer core for the sequence families: PlanGPT, SymT^E / SymT^ED, masked diffusion.

Shaped after nanoGPT's model.py (Andrej Karpathy, https://github.com/karpathy/nanoGPT, MIT): a
dataclass config, pre-LayerNorm blocks of attention and a GELU MLP, a final LayerNorm, an LM head
tied to the token embedding, GPT-2 initialisation. Written anew here, with what the planning papers
need on top of it:

- positions: "learned" absolute (GPT-2, PlanGPT), "none" (NoPE: SymT's encoder, a set, and its
  decoder) or "rotary" (RoFormer, as the diffusion planner; rotate-half layout applied to q and k).
  All start at `position_offset` (an int, or a tensor [B] or [B,T] added to 0..T-1), so a
  continuation or a regrounded sequence can start anywhere (diffusion: goal atoms share a position);
- causal self-attention (GPT) or bidirectional (SymT encoder, diffusion denoiser), a padding mask,
  and cross-attention to a memory (SymT^ED's decoder);
- `share_weights`: one block applied n_layers times (SymT; without it L_hid collapses);
- attention probabilities and per-layer hidden states on request (SymT's contrastive losses);
  torch's scaled_dot_product_attention otherwise;
- a key/value cache so greedy and beam decoding append one token at a time.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import torch
import torch.nn.functional as F
from torch import nn

POSITIONS = ("learned", "none", "rotary")
# GPT-2 small (PlanGPT's network): TransformerConfig(vocab_size=..., **GPT2_SMALL)
GPT2_SMALL = dict(d_model=768, n_heads=12, n_layers=12, max_len=1024)


@dataclass
class TransformerConfig:
    vocab_size: int
    max_len: int  # learned positions: the table's size; otherwise informative only
    d_model: int = 128
    n_heads: int = 4
    n_layers: int = 2
    d_ff: int | None = None  # None: 4 * d_model
    dropout: float = 0.0
    causal: bool = True
    positions: str = "learned"  # learned | none | rotary
    rope_base: float = 10000.0
    share_weights: bool = False  # one block applied n_layers times (SymT)
    cross_attention: bool = False  # blocks also attend to a memory [B,S,d_model]
    bias: bool = True
    tie_embeddings: bool = True
    pad_id: int = 0
    # token ids whose rows of the token table are fixed, distinct random vectors plus one learned shift
    # (`Transformer.token_table`): a model's object tokens, where objects are named at random per example
    fixed_tokens: tuple[int, ...] | list = ()

    def __post_init__(self):
        if self.positions not in POSITIONS:
            raise ValueError(f"Unknown value positions={self.positions!r}. Must be from {list(POSITIONS)}")
        for name in ("vocab_size", "max_len", "d_model", "n_heads", "n_layers", "d_ff"):
            value = getattr(self, name)
            if not (value is None and name == "d_ff") and (type(value) is not int or value < 1):
                raise ValueError(f"Invalid value {name}={value!r}. Must be a positive integer")
        for name in ("causal", "share_weights", "cross_attention", "bias", "tie_embeddings"):
            if type(getattr(self, name)) is not bool:
                raise ValueError(f"Invalid value {name}={getattr(self, name)!r}. Must be from [True, False]")
        if self.d_model % self.n_heads:
            raise ValueError(f"Invalid value d_model={self.d_model}. Must be divisible by n_heads={self.n_heads}")
        if self.positions == "rotary" and self.head_dim % 2:
            raise ValueError(f"Invalid value d_model={self.d_model}: rotary positions need an even "
                             f"head size, d_model / n_heads = {self.head_dim}")
        if not isinstance(self.dropout, (int, float)) or not 0 <= self.dropout < 1:
            raise ValueError(f"Invalid value dropout={self.dropout!r}. Must be in [0, 1)")
        if not isinstance(self.rope_base, (int, float)) or self.rope_base <= 1:
            raise ValueError(f"Invalid value rope_base={self.rope_base!r}. Must be a number > 1")
        if type(self.pad_id) is not int or not 0 <= self.pad_id < self.vocab_size:
            raise ValueError(f"Invalid value pad_id={self.pad_id!r}. Must be in [0, vocab_size={self.vocab_size})")
        ids = list(self.fixed_tokens)
        if any(type(i) is not int or not 0 <= i < self.vocab_size for i in ids) or len(set(ids)) != len(ids):
            raise ValueError(f"Invalid value fixed_tokens={self.fixed_tokens!r}. Must be distinct token ids "
                             f"in [0, vocab_size={self.vocab_size})")

    @property
    def head_dim(self) -> int:
        return self.d_model // self.n_heads

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class TransformerOutput:
    logits: torch.Tensor  # [B,T,V]
    hidden: torch.Tensor  # [B,T,D] final hidden states, after the final LayerNorm
    attentions: list | None = None  # per layer, self-attention probabilities [B,H,T,P+T]
    cross_attentions: list | None = None  # per layer, [B,H,T,S] (cross_attention models)
    hidden_states: list | None = None  # per layer, the residual stream after the block [B,T,D]
    past: list | None = None  # use_cache: per layer (keys, values), each [B,H,P+T,head_dim]


def rotary_cos_sin(positions: torch.Tensor, head_dim: int, base: float, dtype):
    """cos and sin [B|1, 1, T, head_dim] of positions [B|1, T] (any real numbers, offsets included)."""
    inv_freq = base ** (-torch.arange(0, head_dim, 2, device=positions.device, dtype=torch.float32) / head_dim)
    angles = positions.to(torch.float32)[..., None] * inv_freq
    angles = torch.cat([angles, angles], dim=-1)[:, None]
    return angles.cos().to(dtype), angles.sin().to(dtype)


def apply_rotary(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """Rotate x [B,H,T,hd] pairwise (i, i + hd/2) by its positions' angles: q.k then depends on the
    difference of positions only."""
    x1, x2 = x.chunk(2, dim=-1)
    cos, sin = cos.to(x.dtype), sin.to(x.dtype)  # bf16 q and k under autocast stay bf16
    return x * cos + torch.cat([-x2, x1], dim=-1) * sin


class Attention(nn.Module):
    """Multi-head attention: self-attention (c_attn: q, k, v of x) or cross-attention (c_q of x,
    c_kv of the memory); c_proj is the residual projection."""

    def __init__(self, cfg: TransformerConfig, cross: bool = False):
        super().__init__()
        d = cfg.d_model
        if cross:
            self.c_q, self.c_kv = nn.Linear(d, d, bias=cfg.bias), nn.Linear(d, 2 * d, bias=cfg.bias)
        else:
            self.c_attn = nn.Linear(d, 3 * d, bias=cfg.bias)
        self.c_proj = nn.Linear(d, d, bias=cfg.bias)
        self.attn_drop, self.resid_drop = nn.Dropout(cfg.dropout), nn.Dropout(cfg.dropout)
        self.n_heads, self.dropout, self.cross = cfg.n_heads, cfg.dropout, cross

    def forward(self, x, mask=None, is_causal=False, rope=None, past=None, memory=None, need_probs=False, bias=None,
                wt=None):
        """`bias`: `mask` as `additive_mask` gives it, where the forward made it once for every layer (see
        `math_attention`); `mask` is then not read. `wt`: see `linear`."""
        B, T, D = x.shape
        H, hd = self.n_heads, D // self.n_heads
        if self.cross:
            q, (k, v) = linear(self.c_q, x, wt), linear(self.c_kv, memory, wt).split(D, dim=2)
        elif rope is not None:  # q and k rotated together (elementwise: the bytes of one rotation each)
            qk, v = linear(self.c_attn, x, wt).split([2 * D, D], dim=2)
            q, k = apply_rotary(qk.view(B, T, 2, H, hd).permute(2, 0, 3, 1, 4), *rope).unbind(0)
        else:
            q, k, v = linear(self.c_attn, x, wt).split(D, dim=2)
        if rope is None:
            q, k = (t.view(B, t.shape[1], H, hd).transpose(1, 2) for t in (q, k))
        v = v.view(B, v.shape[1], H, hd).transpose(1, 2)
        if past is not None:
            k, v = torch.cat([past[0], k], dim=2), torch.cat([past[1], v], dim=2)
        probs = None
        if need_probs:  # explicit, to hand the probabilities out; same result as the fast path
            scores = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])  # the model never asks is_causal here
            if bias is not None:  # the padded keys' -inf, made once a forward (the bytes of masked_fill's)
                scores = scores + bias
            elif mask is not None:
                scores = scores.masked_fill(~mask, float("-inf"))
            probs = scores.float().softmax(dim=-1)  # float32 even under autocast (contrastive losses)
            y = self.attn_drop(probs).to(v.dtype) @ v
        elif bias is not None or (self.training and self.dropout and not is_causal and mask is None
                                  and q.device.type == "cpu" and q.dtype == torch.float32):
            y = math_attention(q, k, v, bias, self.dropout if self.training else 0.0)
        elif q.dtype == torch.bfloat16 and q.device.type == "cpu":
            # CPU autocast (`train.cpu_bf16`): SDPA in float32, the matrix products around it in bfloat16; torch
            # 2.13's bfloat16 SDPA took 2.91x float32's CPU time (perf/results/cpu-bf16.txt)
            with torch.autocast("cpu", enabled=False):
                y = F.scaled_dot_product_attention(q.float(), k.float(), v.float(), attn_mask=mask, is_causal=is_causal,
                                                   dropout_p=self.dropout if self.training else 0.0).to(q.dtype)
        else:
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=is_causal,
                                               dropout_p=self.dropout if self.training else 0.0)
        y = self.resid_drop(linear(self.c_proj, y.transpose(1, 2).reshape(B, T, D), wt))
        return y, probs, (k, v)


def additive_mask(mask: torch.Tensor | None, dtype=torch.float32) -> torch.Tensor | None:
    """A boolean attention mask (True = attend) as the scores' summand: 0 where True, -inf where False."""
    return None if mask is None else torch.where(mask, 0.0, float("-inf")).to(dtype)


def uses_math_attention(training: bool, dropout: float, x: torch.Tensor) -> bool:
    """Whether a training forward's attention runs `math_attention` rather than torch's SDPA: on a CPU in
    float32 with dropout on the probabilities, where SDPA takes its math path anyway (its fused CPU kernel
    has no dropout)."""
    return training and dropout > 0 and x.device.type == "cpu" and x.dtype == torch.float32 \
        and not torch.is_autocast_enabled("cpu")


def math_attention(q, k, v, bias: torch.Tensor | None, dropout: float) -> torch.Tensor:
    """softmax(q k^T / sqrt(hd) + bias) v, the probabilities dropped out: the operators of torch's SDPA math
    path (`_scaled_dot_product_attention_math`, which SDPA runs on a CPU with dropout), so the same bytes
    forward and backward, less what the model does not need of it: the boolean mask turned into `bias` by
    every layer (here once a forward, `additive_mask`) and `_safe_softmax`'s search for rows without a key
    (four operators over the whole [B,H,T,K] scores a layer; every row of the model's masks has a key, where
    `_safe_softmax` is `softmax`). Not for `is_causal` (the model gives causal masks explicitly in training)."""
    scale = math.sqrt(1.0 / math.sqrt(q.shape[-1]))  # SDPA scales q and k by its square root each
    scores = (q * scale) @ (k.transpose(-2, -1) * scale)
    if bias is not None:
        scores = scores + bias
    return F.dropout(scores.softmax(-1), dropout) @ v


def _plain_float32(x: torch.Tensor) -> bool:
    """A CPU forward in float32 without autocast: where the model's shortcuts keep the bytes of the plain path."""
    return x.device.type == "cpu" and x.dtype == torch.float32 and not torch.is_autocast_enabled("cpu")


def linear(module: nn.Linear, x: torch.Tensor, wt: dict | None) -> torch.Tensor:
    """module(x); with `wt` (a dict kept for one forward), the weight's transpose taken once there and reused
    by every application of a shared block, in the operators aten::linear runs (addmm on the rows of a
    contiguous input with a bias, else matmul and the bias added in place): the same products, and the layers'
    gradients summed into the one transpose in the order they came to the weight before, so the same bytes,
    with one transpose a layer and its backward fewer (SymT's shared encoder and decoder blocks)."""
    if wt is None:
        return module(x)
    t = wt.get(module)
    if t is None:
        t = wt[module] = module.weight.t()
    if module.bias is not None and x.dim() == 3 and x.is_contiguous():
        B, T, D = x.shape
        return torch.addmm(module.bias, x.view(B * T, D), t).view(B, T, t.shape[1])
    if module.bias is not None and x.dim() == 2:
        return torch.addmm(module.bias, x, t)
    out = torch.matmul(x, t)
    return out if module.bias is None else out.add_(module.bias)


class MLP(nn.Module):
    def __init__(self, cfg: TransformerConfig):
        super().__init__()
        d_ff = cfg.d_ff or 4 * cfg.d_model
        self.c_fc = nn.Linear(cfg.d_model, d_ff, bias=cfg.bias)
        self.c_proj = nn.Linear(d_ff, cfg.d_model, bias=cfg.bias)
        self.dropout = nn.Dropout(cfg.dropout)

    def forward(self, x, wt=None):
        return self.dropout(linear(self.c_proj, F.gelu(linear(self.c_fc, x, wt)), wt))


class Block(nn.Module):
    """Pre-LayerNorm: x + attn(ln(x)), [x + cross(ln(x), memory)], x + mlp(ln(x))."""

    def __init__(self, cfg: TransformerConfig):
        super().__init__()
        self.ln_1, self.attn = nn.LayerNorm(cfg.d_model, bias=cfg.bias), Attention(cfg)
        if cfg.cross_attention:
            self.ln_x, self.xattn = nn.LayerNorm(cfg.d_model, bias=cfg.bias), Attention(cfg, cross=True)
        self.ln_2, self.mlp = nn.LayerNorm(cfg.d_model, bias=cfg.bias), MLP(cfg)

    def forward(self, x, ctx: dict, past=None, need_probs=False):
        a, probs, present = self.attn(self.ln_1(x), ctx["mask"], ctx["is_causal"], ctx["rope"], past,
                                      need_probs=need_probs, bias=ctx["bias"], wt=ctx["wt"])
        x, xprobs = x + a, None
        if hasattr(self, "xattn"):
            a, xprobs, _ = self.xattn(self.ln_x(x), ctx["memory_mask"], memory=ctx["memory"], need_probs=need_probs,
                                      bias=ctx["memory_bias"], wt=ctx["wt"])
            x = x + a
        return x + self.mlp(self.ln_2(x), ctx["wt"]), probs, xprobs, present


class Transformer(nn.Module):
    def __init__(self, config: TransformerConfig):
        super().__init__()
        self.config = cfg = config
        self.wte = nn.Embedding(cfg.vocab_size, cfg.d_model)
        if cfg.positions == "learned":
            self.wpe = nn.Embedding(cfg.max_len, cfg.d_model)
        self.drop = nn.Dropout(cfg.dropout)
        self.blocks = nn.ModuleList([Block(cfg) for _ in range(1 if cfg.share_weights else cfg.n_layers)])
        self.ln_f = nn.LayerNorm(cfg.d_model, bias=cfg.bias)
        self.lm_head = nn.Linear(cfg.d_model, cfg.vocab_size, bias=False)
        init_weights(self)
        if cfg.tie_embeddings:
            self.lm_head.weight = self.wte.weight
        if cfg.fixed_tokens:
            self.register_buffer("fixed_ids", torch.tensor(list(cfg.fixed_tokens), dtype=torch.long))
            self.register_buffer("fixed_rows", distinct_rows(len(cfg.fixed_tokens), cfg.d_model))
            self.fixed_shift = nn.Parameter(torch.zeros(cfg.d_model))

    def token_table(self) -> torch.Tensor:
        """The token table [V,D]: `wte`'s rows, those of `fixed_tokens` replaced by their fixed vectors
        plus the learned shift. Fixed rows stay apart: with objects named at random per example every
        object token plays every role alike, and learned rows drift together into one "an object" vector
        from which no object can be told apart or copied (measured on masked diffusion:
        experiments/sequence-recipe.md). The shift carries what all of them share."""
        if not self.config.fixed_tokens:
            return self.wte.weight
        return self.wte.weight.index_copy(0, self.fixed_ids, self.fixed_rows + self.fixed_shift)

    def embed(self, ids: torch.Tensor, table: torch.Tensor | None = None) -> torch.Tensor:
        """The token embeddings of ids [...] -> [..., D], as `token_table` (or the `table` it gave) holds them."""
        if not self.config.fixed_tokens:
            return self.wte(ids)
        return F.embedding(ids, self.token_table() if table is None else table)

    def padding_mask(self, ids: torch.Tensor) -> torch.Tensor:
        """attention_mask of ids padded with pad_id: True = real token."""
        return ids != self.config.pad_id

    def forward(self, ids=None, *, inputs_embeds=None, attention_mask=None, memory=None, memory_mask=None,
                position_offset=0, past=None, use_cache=False, return_attentions=False,
                return_hidden=False) -> TransformerOutput:
        """ids [B,T] (or inputs_embeds [B,T,D], as SymT's atom embeddings); attention_mask [B,P+T]
        bool, True = real token (P = cached length; masked keys are never attended); memory [B,S,D]
        with memory_mask [B,S]; the new tokens sit at positions P + 0..T-1 + position_offset."""
        cfg = self.config
        if (ids is None) == (inputs_embeds is None):
            raise ValueError("give exactly one of ids [B,T] and inputs_embeds [B,T,D]")
        table = self.token_table() if cfg.fixed_tokens else None  # once a forward: embedding and tied head
        x = self.embed(ids, table) if inputs_embeds is None else inputs_embeds
        B, T, _ = x.shape
        if past is not None and len(past) != cfg.n_layers:
            raise ValueError(f"past holds {len(past)} layers, the model has n_layers={cfg.n_layers}")
        P = 0 if past is None else past[0][0].shape[2]
        if attention_mask is not None and tuple(attention_mask.shape) != (B, P + T):
            raise ValueError(f"attention_mask has shape {tuple(attention_mask.shape)}, expected "
                             f"[batch, cached + new tokens] = {(B, P + T)}")
        if (memory is not None) != cfg.cross_attention:
            raise ValueError("memory is given exactly when cross_attention=True "
                             f"(cross_attention={cfg.cross_attention}, memory given: {memory is not None})")
        rope = None
        if cfg.positions != "none":
            pos = self._positions(B, T, P, position_offset, x.device)
            if cfg.positions == "learned":
                self._check_learned(pos, B, T, P, position_offset, attention_mask)
                x = x + self.wpe(pos.long().clamp(0, cfg.max_len - 1))  # padding may sit outside
            else:
                rope = rotary_cos_sin(pos, cfg.head_dim, cfg.rope_base, x.dtype)
        ctx = dict(rope=rope, memory=memory, **self._self_mask(attention_mask, T, P, return_attentions, x.device))
        if memory_mask is not None:
            mm = memory_mask.bool()
            ctx["memory_mask"] = (mm | ~mm.any(-1, keepdim=True))[:, None, None, :]  # all padding: attend all
        else:
            ctx["memory_mask"] = None
        ctx["bias"] = ctx["memory_bias"] = None
        # one block applied n_layers times: its weights' transposes made once a forward (see `linear`)
        ctx["wt"] = {} if cfg.share_weights and cfg.n_layers > 1 and _plain_float32(x) else None
        if self._bias_once(x, return_attentions):  # every layer's mask as the scores' summand, made once here
            ctx["bias"], ctx["memory_bias"] = additive_mask(ctx["mask"]), additive_mask(ctx["memory_mask"])
        x = self.drop(x)
        attns, xattns, hiddens, presents = [], [], [], []
        for i in range(cfg.n_layers):
            block = self.blocks[0 if cfg.share_weights else i]
            x, probs, xprobs, present = block(x, ctx, None if past is None else past[i], return_attentions)
            attns.append(probs), xattns.append(xprobs), hiddens.append(x), presents.append(present)
        hidden = self.ln_f(x)
        return TransformerOutput(
            logits=self._logits(hidden, table), hidden=hidden,
            attentions=attns if return_attentions else None,
            cross_attentions=xattns if return_attentions and cfg.cross_attention else None,
            hidden_states=hiddens if return_hidden else None,
            past=presents if use_cache else None)

    def _bias_once(self, x: torch.Tensor, need_probs: bool) -> bool:
        """Whether the layers' attention adds the masks as `additive_mask`s made once a forward: where the
        attention is explicit (the probabilities handed out, or `math_attention`) on a CPU in float32, the
        bytes of what each layer did with the boolean mask (masked_fill; SDPA's math path)."""
        if not _plain_float32(x):
            return False
        return need_probs or uses_math_attention(self.training, self.config.dropout, x)

    def _logits(self, hidden: torch.Tensor, table: torch.Tensor | None) -> torch.Tensor:
        if table is not None and self.config.tie_embeddings:
            return F.linear(hidden, table)
        return self.lm_head(hidden)

    def _check_learned(self, pos, B, T, P, offset, attention_mask) -> None:
        """ValueError where a real token's learned position is outside the table. With an int offset the
        positions are known on the host (no device work, no synchronisation: the check is free); with a
        tensor offset they are read from the device, on a CPU only and not under torch.compile (on CUDA that
        read would make every step wait: there positions outside are clamped, as padding's are)."""
        max_len = self.config.max_len
        if not isinstance(offset, torch.Tensor):
            if T == 0 or (P + offset >= 0 and P + T - 1 + offset < max_len):
                return
        elif pos.device.type == "cuda" or torch.compiler.is_compiling():
            return
        real = pos if attention_mask is None else pos.expand(B, T)[attention_mask[:, P:].bool()]
        if real.numel() and (real.min() < 0 or real.max() >= max_len):
            raise ValueError(f"learned positions {int(real.min())}..{int(real.max())} are outside "
                             f"0..{max_len - 1} (max_len={max_len}); use a larger max_len "
                             "or positions='rotary'/'none'")

    @staticmethod
    def _positions(B, T, P, offset, device) -> torch.Tensor:
        pos = torch.arange(P, P + T, device=device)[None]
        if isinstance(offset, torch.Tensor):
            offset = offset.to(device)
            if offset.dim() == 1:
                offset = offset[:, None]
            if offset.dim() > 2 or (offset.dim() == 2 and offset.shape[1] not in (1, T)):
                raise ValueError(f"position_offset has shape {tuple(offset.shape)}; give an int, [B] or [B,T]")
        return pos + offset

    def _self_mask(self, attention_mask, T, P, need_probs, device) -> dict:
        causal = self.config.causal
        if attention_mask is None and (not causal or (P == 0 and not need_probs)):
            return dict(mask=None, is_causal=causal and T > 1)
        if not causal and attention_mask is not None:
            real = attention_mask.bool()
            if real.device.type == "cuda" or torch.compiler.is_compiling():
                # no synchronisation on CUDA (nor a graph break under torch.compile): a row without a real key
                # attends every key (its output is never used) instead of itself alone, as the branch below has it
                return dict(mask=(real | ~real.any(-1, keepdim=True))[:, None, None, :], is_causal=False)
            if bool(real.any(-1).all()):
                # bidirectional, every row with a real key: the key mask [B,1,1,P+T] broadcast over the
                # queries is the [B,1,T,P+T] one below, without building it (SDPA runs faster on it too)
                return dict(mask=real[:, None, None, :], is_causal=False)
        query, key = torch.arange(P, P + T, device=device)[:, None], torch.arange(P + T, device=device)[None]
        mask = (key <= query) if causal else torch.ones(T, P + T, dtype=torch.bool, device=device)
        mask = mask[None, None]
        if attention_mask is not None:
            mask = mask & attention_mask.bool()[:, None, None, :]
            # a padding query with no real key left looks at itself only (its output is never used)
            mask = mask | (~mask.any(-1, keepdim=True) & (key == query))
        return dict(mask=mask, is_causal=False)


def reorder_cache(past: list, index: torch.Tensor) -> list:
    """The cache of the batch rows `index` (beam search: keep and duplicate hypotheses)."""
    return [(k.index_select(0, index), v.index_select(0, index)) for k, v in past]


OBJECT_EMBEDDINGS = ("learned", "fixed")  # a family's `object_embeddings` setting (PlanGPT, diffusion)


def fixed_objects(vocab, object_embeddings: str) -> dict:
    """The TransformerConfig argument of a family's `object_embeddings`: its vocabulary's object tokens as
    `fixed_tokens` where the setting is `fixed`, nothing where `learned`."""
    return {"fixed_tokens": list(vocab.object_ids())} if object_embeddings == "fixed" else {}


def distinct_rows(k: int, d: int, std: float = 0.02) -> torch.Tensor:
    """k random rows of dimension d, of the norm of a GPT-2-initialised row (std * sqrt(d)), orthogonal
    where k <= d (otherwise independent Gaussian rows), drawn from torch's generator."""
    if k <= d:
        q, _ = torch.linalg.qr(torch.randn(d, k))
        return q.T.contiguous() * (std * math.sqrt(d))
    return torch.randn(k, d) * std


def init_weights(model: nn.Module, n_layers: int | None = None) -> None:
    """GPT-2 initialisation: Linear and Embedding weights N(0, 0.02), biases 0, LayerNorm 1 and 0;
    residual projections (`c_proj`) N(0, 0.02 / sqrt(N)) with N the number of residual branches
    that end in one: 2 * n_layers as GPT-2 (3 * n_layers with cross-attention)."""
    cfg = getattr(model, "config", None)
    n_layers = n_layers or getattr(cfg, "n_layers", 1)
    branches = (3 if getattr(cfg, "cross_attention", False) else 2) * n_layers
    for module in model.modules():
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)
        if isinstance(module, (nn.Linear, nn.LayerNorm)) and module.bias is not None:
            nn.init.zeros_(module.bias)
        if isinstance(module, nn.LayerNorm) and module.weight is not None:
            nn.init.ones_(module.weight)
    for name, p in model.named_parameters():
        if name.endswith("c_proj.weight"):
            nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(branches))


def parameter_count(model: nn.Module, trainable: bool = True, embeddings: bool = True) -> int:
    """Parameters of model, each shared tensor once (tied LM head, shared blocks). trainable: only
    those with requires_grad; embeddings=False: without the nn.Embedding tables (token and learned
    position; a tied LM head is the token table and goes with it)."""
    skip = set() if embeddings else {id(m.weight) for m in model.modules() if isinstance(m, nn.Embedding)}
    return sum(p.numel() for p in model.parameters() if id(p) not in skip and (p.requires_grad or not trainable))
