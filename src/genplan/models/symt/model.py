"""SymT^E and SymT^ED (Fritzsche, Gestrin and Seipp, "Symmetry-Aware Transformer Training for
Automated Planning", Sections 4 and 5; ../shared/papers/symt-symmetry-aware-transformers.md).

- Input: one token per atom of state, statics and goal (genplan.tokens.atom_rows): the row
  [p, o1..on, pad..] is embedded as T = W (E[p] | E[o1] | ... | E[pad]) + b (`AtomEmbedding`;
  E of size `d_token`, W maps (1 + m) d_token to d_model).
- Encoder: genplan.nn.Transformer, bidirectional, no positions (the atoms are a set), one block
  applied `n_layers` times (`share_weights`, required by L_hid).
- SymT^E: readout = MLP(sum over the atoms of the first d_k dimensions of the last layer's hidden
  states), d_k = d_model / n_heads; the MLP is Linear(d_k, d_readout), GELU, Linear(d_readout, 1)
  (the paper does not give its shape). Trained with MSE on h*.
- SymT^ED: the same encoder, then a causal decoder over plan tokens (`<action>` first, then the
  schema and object tokens of each action, `<end>`) with cross-attention to the encoder's output,
  one shared block, no positions (NoPE) or, as an ablation, learned absolute positions.
  Trained with cross-entropy on one optimal plan.

The Transformer's blocks are pre-LayerNorm (nanoGPT); the paper leaves normalisation out of its
equations. `SymT` holds what planning needs and goes in and out of the checkpoint envelope
(family "symt")."""

from __future__ import annotations

import dataclasses
from dataclasses import asdict, dataclass, field
from typing import ClassVar

import torch
from torch import nn

from genplan.errors import GenplanError
from genplan.models import settings as base
from genplan.models.settings import drop_defaults, drop_unset_train_keys
from genplan.models.symt import PLANNING_KEYS

ARCHITECTURES = ("encoder", "encoder_decoder")
# rename-both / rename-one: the paper's contrastive pairs; without contrastive weights one copy, renamed at
# random (random) or always in pool order (sorted: PlanGPT's `rename: sorted`, for tests and a name-leak check)
RENAMES = ("rename-both", "rename-one", "random", "sorted")
DECODER_POSITIONS = ("none", "learned")
DECODER_TOKENS = ("own", "shared", "fixed")


@dataclass
class NetworkSettings:
    d_model: int = 128
    n_heads: int = 4
    n_layers: int = 4  # applications of the one shared block (encoder and decoder each)
    d_token: int = 32  # size of E[token]; the atom embedding is (1 + max arity) * d_token -> d_model
    d_ff: int | None = None  # None: 4 * d_model
    d_readout: int | None = None  # SymT^E's readout MLP hidden size; None: d_model
    dropout: float = 0.0
    decoder_positions: str = "none"  # none (NoPE, the paper) | learned (ablation)
    # SymT^ED's decoder tokens: `own` table (and tied LM head), or `shared`: the encoder's E[token] through one
    # linear map to d_model, for the decoder's input and (tied) output: an object the decoder names is then
    # the very vector the encoder read it as (the paper's one table E; how the decoder embeds it is not said);
    # `fixed`: the own table with its object rows fixed distinct vectors (genplan.nn.transformer.Transformer.token_table)
    decoder_tokens: str = "own"
    max_len: int = 1024  # decoder context (the learned positions' table)


TRAINING_DATA = ("statespace", "plans")


@dataclass
class TrainSettings(base.TrainSettings):
    examples: int = 2000  # states sampled from the training state spaces (plans: plan states drawn, at most)
    sample_by: str = "state"  # state-space draws: state (uniform over the states, the papers' reading) | problem | h
    val_examples: int = 500  # validation states (along the validation plans) at most
    data: str = "statespace"  # statespace: states of the full state spaces | plans: states along the training plans
    val_fraction: float = 0.1  # plans without a validation split: the training problems held out to select on
    contrastive_ramp_steps: int = 0  # w2, w3 rise linearly from 0 over this many optimizer steps (0: the paper)

    def to_dict(self) -> dict:
        """The settings as the checkpoint and the partial state's key store them: the state-space
        path's without `data` and `val_fraction` (as before training from plans existed)."""
        out = asdict(self)
        if self.data == "statespace":
            del out["data"], out["val_fraction"]
        return drop_unset_train_keys(drop_defaults(out, {"sample_by": "state", "contrastive_ramp_steps": 0}))


@dataclass
class SymTSettings(base.Settings):
    label: ClassVar[str] = "SymT"
    planning_keys: ClassVar[tuple[str, ...]] = PLANNING_KEYS
    architecture: str = "encoder_decoder"  # encoder (SymT^E) | encoder_decoder (SymT^ED)
    object_pool: int | dict = 32
    per_type: bool = False
    max_tokens: int = 500  # generation cap (the paper's 500 tokens)
    loss_weights: list = field(default_factory=lambda: [1.0, 1.0, 1.0])  # w1 L_pred + w2 L_att + w3 L_hid
    rename: str = "rename-both"  # rename-both | rename-one (contrastive pairs) | random | sorted (one copy)
    network: NetworkSettings = field(default_factory=NetworkSettings)
    train: TrainSettings = field(default_factory=TrainSettings)

    def __post_init__(self):
        if self.architecture not in ARCHITECTURES:
            raise GenplanError(f"Unknown value architecture={self.architecture!r}. Must be from {list(ARCHITECTURES)}")
        if self.rename not in RENAMES:
            raise GenplanError(f"Unknown value rename={self.rename!r}. Must be from {list(RENAMES)}")
        if self.network.decoder_positions not in DECODER_POSITIONS:
            raise GenplanError(f"Unknown value decoder_positions={self.network.decoder_positions!r}. "
                               f"Must be from {list(DECODER_POSITIONS)}")
        if self.network.decoder_tokens not in DECODER_TOKENS:
            raise GenplanError(f"Unknown value decoder_tokens={self.network.decoder_tokens!r}. "
                               f"Must be from {list(DECODER_TOKENS)}")
        if self.network.decoder_tokens != "own" and self.architecture != "encoder_decoder":
            raise GenplanError("network.decoder_tokens is a setting of SymT^ED's decoder (architecture: "
                               f"encoder_decoder), not of {self.architecture}")
        if len(self.loss_weights) != 3 or any(not isinstance(w, (int, float)) or w < 0 for w in self.loss_weights):
            raise GenplanError(f"loss_weights must be three non-negative numbers [w1, w2, w3], "
                               f"not {self.loss_weights!r}")
        if self.contrastive and self.rename in ("random", "sorted"):
            raise GenplanError(f"contrastive loss weights need renamed pairs: rename rename-both or rename-one, "
                               f"not {self.rename}")
        if self.train.data not in TRAINING_DATA:
            raise GenplanError(f"Unknown value train.data={self.train.data!r}. Must be from {list(TRAINING_DATA)}")
        if not 0 < self.train.val_fraction < 1:
            raise GenplanError(f"train.val_fraction must lie strictly between 0 and 1, not {self.train.val_fraction!r}")
        ramp = self.train.contrastive_ramp_steps
        if type(ramp) is not int or ramp < 0:
            raise GenplanError(f"train.contrastive_ramp_steps must be a non-negative integer (optimizer steps; "
                               f"0: no ramp), not {ramp!r}")

    @property
    def contrastive(self) -> bool:
        return bool(self.loss_weights[1] or self.loss_weights[2])

    def to_dict(self) -> dict:
        return {**asdict(self), "network": network_dict(self.network), "train": self.train.to_dict()}


def network_dict(network: NetworkSettings) -> dict:
    """The network settings as checkpoints and partial-state keys store them: `decoder_tokens` only
    where it is not the default (as before the setting existed)."""
    return drop_defaults(asdict(network), {"decoder_tokens": "own"})


class AtomEmbedding(nn.Module):
    """T = W (E[p] | E[o1] | ... | E[pad]) + b for rows of token ids [B, N, 1 + m]."""

    def __init__(self, vocab_size: int, width: int, d_token: int, d_model: int):
        super().__init__()
        # torch's default initialisation (E ~ N(0, 1), W uniform with bound 1/sqrt(fan-in)): atom
        # embeddings of std ~0.6. GPT-2's N(0, 0.02) for both would give ~0.003, drowned by the first
        # block's (nearly uniform) attention output: every atom then looks the same (measured: the
        # decoder's output changed by 1e-4 between two different states after training).
        self.E = nn.Embedding(vocab_size, d_token)
        self.W = nn.Linear(width * d_token, d_model)

    def forward(self, rows: torch.Tensor) -> torch.Tensor:
        B, N, W = rows.shape
        return self.W(self.E(rows).reshape(B, N, W * self.E.embedding_dim))


class SymTNet(nn.Module):
    """The network of either architecture (see the module docstring)."""

    def __init__(self, cfg: dict):
        from genplan.nn.transformer import Transformer, TransformerConfig

        super().__init__()
        self.cfg = dict(cfg)
        n = NetworkSettings(**cfg["network"])
        self.architecture, self.d_k = cfg["architecture"], n.d_model // n.n_heads
        common = dict(d_model=n.d_model, n_heads=n.n_heads, n_layers=n.n_layers, d_ff=n.d_ff, dropout=n.dropout,
                      share_weights=True)
        self.atoms = AtomEmbedding(cfg["vocab_size"], cfg["width"], n.d_token, n.d_model)
        # the encoder reads atom embeddings only: a one-row token table (its LM head is unused)
        self.encoder = Transformer(TransformerConfig(vocab_size=1, max_len=n.max_len, causal=False, positions="none",
                                                     pad_id=0, **common))
        if self.architecture == "encoder":
            d_readout = n.d_readout or n.d_model
            self.readout = nn.Sequential(nn.Linear(self.d_k, d_readout), nn.GELU(), nn.Linear(d_readout, 1))
        else:
            self.shared_tokens = n.decoder_tokens == "shared"
            # shared: the decoder reads and writes tokens through `token_map` (E[token] -> d_model), its own table
            # a single unused row, as the encoder's
            self.decoder = Transformer(TransformerConfig(vocab_size=1 if self.shared_tokens else cfg["vocab_size"],
                                                         max_len=n.max_len, causal=True,
                                                         positions=n.decoder_positions, cross_attention=True,
                                                         pad_id=0 if self.shared_tokens else cfg["pad_id"],
                                                         fixed_tokens=cfg.get("object_ids", ()), **common))
            if self.shared_tokens:
                self.token_map = nn.Linear(n.d_token, n.d_model)

    def encode(self, rows: torch.Tensor, mask: torch.Tensor, need: bool = False):
        """Encoder output of atom rows [B, N, 1 + m] with mask [B, N] (True = real atom)."""
        return self.encoder(inputs_embeds=self.atoms(rows), attention_mask=mask, return_attentions=need,
                            return_hidden=True)

    def heuristic(self, rows: torch.Tensor, mask: torch.Tensor, need: bool = False):
        """(h [B], encoder output): the readout of the summed first d_k dims of the last layer."""
        out = self.encode(rows, mask, need)
        pooled = (out.hidden_states[-1][..., :self.d_k] * mask[..., None].to(out.hidden_states[-1].dtype)).sum(1)
        return self.readout(pooled).squeeze(-1), out

    def decode(self, tokens: torch.Tensor, memory: torch.Tensor, memory_mask: torch.Tensor, *, attention_mask=None,
               past=None, use_cache=False, need=False):
        if not self.shared_tokens:
            return self.decoder(tokens, attention_mask=attention_mask, memory=memory, memory_mask=memory_mask,
                                past=past, use_cache=use_cache, return_attentions=need, return_hidden=need)
        table = self.token_map(self.atoms.E.weight)  # [V, d_model]: the decoder's tokens, in and out
        out = self.decoder(inputs_embeds=table[tokens], attention_mask=attention_mask, memory=memory,
                           memory_mask=memory_mask, past=past, use_cache=use_cache, return_attentions=need,
                           return_hidden=need)
        # scaled by 1/sqrt(d_model): E starts at N(0, 1), and unscaled dot products with the LayerNorm'd hidden
        # states gave logits of std 16 and a first cross-entropy of 73 nats (own tokens: std 0.25)
        return dataclasses.replace(out, logits=out.hidden @ table.T * out.hidden.shape[-1] ** -0.5)


class _Prompt(list):
    """A SymT^ED prompt for genplan.planners.autoregressive.SequencePlanner: the decoder's tokens
    so far (a list, so that its length is the decoder's) and the atom rows the encoder reads."""

    def __init__(self, tokens, rows):
        super().__init__(tokens)
        self.rows = rows


class SymT:
    family = "symt"

    def __init__(self, identity: dict, vocab, net: SymTNet, settings: SymTSettings, domain_info):
        self.identity, self.vocab, self.net, self.settings = identity, vocab, net, settings
        self.domain_info = domain_info
        self.name, self.domain, self.seed = identity["name"], identity["domain"], identity["seed"]

    @property
    def system(self) -> str:
        return "symt_e" if self.settings.architecture == "encoder" else "symt_ed"

    @property
    def variant(self) -> str:
        return variant_of(self.settings.loss_weights)

    @property
    def default_strategy(self) -> str:
        """`genplan solve` without --strategy: heuristic-greedy (SymT^E) or greedy (SymT^ED)."""
        return "heuristic-greedy" if self.settings.architecture == "encoder" else "greedy"

    # --- what SequencePlanner asks of a sequence model (SymT^ED) -------------------------------
    @property
    def context(self) -> int:
        """Decoder tokens the model can hold (prompt `<action>` included)."""
        return self.net.decoder.config.max_len if self.settings.network.decoder_positions == "learned" \
            else self.settings.max_tokens + 1

    def prompt(self, state, goal, statics, renaming) -> _Prompt:
        from genplan.tokens.atom_rows import encode_atom_set

        return _Prompt([self.vocab.action_id], encode_atom_set(state, goal, renaming, self.vocab, statics))

    def start(self, prompt: _Prompt, device):
        """(logits of the next token [1, V], cache) after the decoder read `prompt`."""
        return self.start_many([prompt], device)

    def start_many(self, prompts: list[_Prompt], device):
        """(logits [K, V], one cache of K rows) after the decoder read K prompts of one shape in one batch
        (one prompt, or a renaming ensemble's members: the same atoms under other names)."""
        rows = torch.tensor([p.rows for p in prompts], device=device)
        mask = torch.ones(rows.shape[:2], dtype=torch.bool, device=device)
        with torch.no_grad():
            memory = self.net.encode(rows, mask).hidden
            out = self.net.decode(torch.tensor([list(p) for p in prompts], device=device), memory, mask,
                                  use_cache=True)
        return out.logits[:, -1, :].float(), (memory, mask, out.past)

    def step(self, tokens: list[int], cache, device):
        """One more token per row of the cache (beam rows included)."""
        memory, mask, past = cache
        if memory.shape[0] != len(tokens):  # beams: one memory row per hypothesis
            memory, mask = memory[:1].expand(len(tokens), -1, -1), mask[:1].expand(len(tokens), -1)
        with torch.no_grad():
            out = self.net.decode(torch.tensor(tokens, device=device)[:, None], memory, mask, past=past, use_cache=True)
        return out.logits[:, -1, :].float(), (memory, mask, out.past)

    # --- SymT^E ------------------------------------------------------------------------------------
    def bind(self, problem, names: dict | None = None):
        """h of `problem`'s pymimir states, one batch a call (genplan.planners.base.Heuristic):
        each state's fluent atoms with the statics and the goal, objects renamed in pool order, as
        every strategy does at evaluation, or with `names` {order: random, samples: K, seed: S} under
        K random renamings drawn once per problem from S, h their mean; GenplanError when the problem
        has more objects than the model's pool."""
        from genplan.tokens.atom_rows import encode_atom_set
        from genplan.tokens.renaming import Renaming
        from genplan.tokens.types import object_types

        task = problem.task
        renamings = Renaming.at_evaluation(task.objects, object_types(self.domain_info, task), self.vocab, names,
                                           per_type=self.settings.per_type)
        mimir, k = problem.mimir, len(renamings)

        def h(states):
            rows = [encode_atom_set(mimir.fluents(s), task.goal, r, self.vocab, task.statics)
                    for s in states for r in renamings]
            values = self.heuristic_values(rows)
            return [sum(values[i * k:(i + 1) * k]) / k for i in range(len(states))] if k > 1 else values
        return h

    def heuristic_values(self, atom_sets: list[list[list[int]]]) -> list[float]:
        """h of several states (each given as its atom rows), in one batch."""
        device = next(self.net.parameters()).device
        rows, mask = pad_rows(atom_sets, device)
        with torch.no_grad():
            h, _ = self.net.heuristic(rows, mask)
        return h.float().cpu().tolist()

    @classmethod
    def from_envelope(cls, env: dict, path) -> "SymT":
        from genplan.datasets.domain_text import domain_of_text
        from genplan.tokens.atom_rows import check_atom_vocabulary
        from genplan.tokens.vocab import Vocabulary

        try:
            settings = SymTSettings.from_entry(env["config"]["settings"])
            vocab = Vocabulary.from_dict(env["vocabulary"])
            net = SymTNet(env["config"]["network"])
            net.load_state_dict(env["weights"])
            net.eval()
            domain_info = domain_of_text(env["config"]["domain_pddl"])
            check_atom_vocabulary(vocab, domain_info)
        except GenplanError as exc:
            raise GenplanError(exc.message, path) from None
        except Exception as exc:  # torch raises its own errors
            raise GenplanError(f"corrupt SymT checkpoint: {type(exc).__name__}: {str(exc)[:200]}", path) from None
        return cls(env["identity"], vocab, net, settings, domain_info)


def variant_of(weights) -> str:
    """How the model was trained, for the tables: contrastive | att_only | hid_only | no_contrastive."""
    att, hid = bool(weights[1]), bool(weights[2])
    return {(True, True): "contrastive", (True, False): "att_only", (False, True): "hid_only",
            (False, False): "no_contrastive"}[(att, hid)]


def pad_rows(atom_sets: list, device="cpu") -> tuple[torch.Tensor, torch.Tensor]:
    """[B, N, 1 + m] rows padded with all-pad atoms, and the mask [B, N] of real atoms."""
    width = len(next(r for rows in atom_sets for r in rows))
    n = max(len(rows) for rows in atom_sets)
    out = torch.zeros((len(atom_sets), n, width), dtype=torch.long)
    mask = torch.zeros((len(atom_sets), n), dtype=torch.bool)
    for i, rows in enumerate(atom_sets):
        if rows:
            out[i, :len(rows)] = torch.tensor(rows)
            mask[i, :len(rows)] = True
    return out.to(device), mask.to(device)
