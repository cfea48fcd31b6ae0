"""The masked-diffusion plan generator (plan-diffusion.md, "Plan Diffusion"; LLaDA, Nie et al.
2025, whose recipe the paper follows): a bidirectional transformer (genplan.nn.Transformer, rotary
positions, no time input) reads ``[condition; <BOS> plan]`` and predicts the clean token at every
plan position.

- condition: one token per ground atom (genplan.models.diffusion.atoms): the state's fluent and static
  atoms, then the goal atoms in a disjoint region, embedded by their own table (`Denoiser.atoms`) or,
  with `condition: factored`, from their predicate and object tokens (`Denoiser.embed_condition`);
  every condition token and `<BOS>` sit at rotary position 0 (the paper's Appendix A: RoPE shifted
  "by a dynamic offset to match the <BOS> token"), so the order of the atoms carries no
  information; plan positions are 1, 2, ... after `<BOS>`; `network.positions: learned` replaces RoPE
  with a table of absolute plan positions (not the paper's: at the CPU size a rotary denoiser tells the
  masked positions apart far more slowly, experiments/sequence-recipe.md "Masked diffusion: the training split,
  positions and names");
- plan: `<BOS>`, per action one schema token and one token per argument, `<EOS>`, `<PAD>` to
  `max_plan_tokens` positions after `<BOS>`, in the plan vocabulary (genplan.tokens.vocab:
  `<start>` is BOS, `<end>` EOS, `<pad>` PAD, `<mask>` MASK).

`DiffusionModel` holds what planning needs (vocabularies, network, settings, identity) and goes in
and out of the checkpoint envelope of genplan.checkpoint (family "diffusion")."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import torch
from torch import nn

from genplan.errors import GenplanError
from genplan.models import settings as base
from genplan.models.diffusion import PLANNING_KEYS
from genplan.models.settings import drop_defaults
from genplan.nn.transformer import OBJECT_EMBEDDINGS, fixed_objects

SCHEDULES = ("uniform", "beta")
CONDITIONS = ("table", "factored")


@dataclass
class NetworkSettings:
    d_model: int = 128
    n_heads: int = 4
    n_layers: int = 2
    d_ff: int | None = None
    dropout: float = 0.0
    rope_base: float = 10000.0
    share_weights: bool = False  # one block applied n_layers times (SymT; its L_hid needs it)
    # rotary: the paper's RoPE (condition and <BOS> at position 0); learned: absolute positions 0..L of the
    # plan (GPT-2's table; every condition atom at position 0), a diagnosis of experiments/sequence-recipe.md
    positions: str = "rotary"


@dataclass
class TrainSettings(base.TrainSettings):
    examples: int = 2000  # states sampled from the training state spaces
    sample_by: str = "state"  # state-space draws: state (uniform over the states, the papers' reading) | problem | h
    schedule: str = "uniform"  # masking rate t ~ U(eps, 1), or `beta`: t ~ Beta(beta_a, beta_b) clipped to [eps, 1]
    beta_a: float = 2.0
    beta_b: float = 1.0  # Beta(2, 1): density 2t, biased toward high masking rates
    eps: float = 1e-3
    pad_weight: float = 1.0  # weight of the CE of <PAD> targets (1: the paper's loss; see train.py)
    symmetry: str | None = None  # None, or rename-one | rename-both: SymT's contrastive losses on two renamed copies
    symmetry_weights: tuple = (1.0, 1.0, 1.0)  # w1 L_pred + w2 L_att + w3 L_hid
    contrastive_ramp_steps: int = 0  # with symmetry: w2, w3 rise linearly from 0 over this many optimizer steps

    def __post_init__(self):
        self.symmetry_weights = tuple(self.symmetry_weights)


@dataclass
class DiffusionSettings(base.Settings):
    label: ClassVar[str] = "diffusion"
    planning_keys: ClassVar[tuple[str, ...]] = PLANNING_KEYS
    object_pool: int = 32  # object tokens o0..oK-1 (one global pool: atom tokens are defined over it)
    max_plan_tokens: int = 220  # plan positions after <BOS> (schema and argument tokens, <EOS>, <PAD>)
    rename: str = "random"  # random: fresh names per example and epoch; sorted: objects in pool order
    # table: one learned embedding per atom id (as before); factored: SymT's atom embedding from the predicate
    # and the plan's own object embeddings ("following Fritzsche et al. we represent each atom as a single token")
    condition: str = "table"
    object_embeddings: str = "learned"  # as PlanGPT's (genplan.models.plangpt.model); fixed needs condition: factored
    network: NetworkSettings = field(default_factory=NetworkSettings)
    train: TrainSettings = field(default_factory=TrainSettings)

    def problems(self) -> list[str]:
        out = []
        tr = self.train
        if tr.schedule not in SCHEDULES:
            out.append(f"train.schedule {tr.schedule!r} is not one of {list(SCHEDULES)}")
        if not 0 < tr.eps < 1:
            out.append(f"train.eps {tr.eps} is not in (0, 1)")
        if tr.beta_a <= 0 or tr.beta_b <= 0:
            out.append("train.beta_a and train.beta_b must be positive")
        if tr.pad_weight < 0:
            out.append("train.pad_weight must be >= 0")
        if tr.symmetry not in (None, "rename-one", "rename-both"):
            out.append(f"train.symmetry {tr.symmetry!r} is not one of [null, rename-one, rename-both]")
        if type(tr.contrastive_ramp_steps) is not int or tr.contrastive_ramp_steps < 0:
            out.append(f"train.contrastive_ramp_steps must be a non-negative integer (optimizer steps; 0: no ramp), "
                       f"not {tr.contrastive_ramp_steps!r}")
        if self.condition not in CONDITIONS:
            out.append(f"condition {self.condition!r} is not one of {list(CONDITIONS)}")
        if self.object_embeddings not in OBJECT_EMBEDDINGS:
            out.append(f"object_embeddings {self.object_embeddings!r} is not learned or fixed")
        if self.object_embeddings == "fixed" and self.condition != "factored":
            out.append("object_embeddings: fixed needs condition: factored (a table condition has no object rows)")
        if self.rename not in ("random", "sorted"):
            out.append(f"rename {self.rename!r} is not random or sorted")
        if not isinstance(self.object_pool, int) or isinstance(self.object_pool, bool) or self.object_pool < 1:
            out.append("object_pool must be a positive integer (one global pool)")
        if self.max_plan_tokens < 2:
            out.append("max_plan_tokens must be at least 2")
        if self.network.positions not in ("rotary", "learned"):
            out.append(f"network.positions {self.network.positions!r} is not rotary or learned")
        return out

    def to_dict(self) -> dict:
        d = super().to_dict()
        d["train"]["symmetry_weights"] = list(d["train"]["symmetry_weights"])
        drop_defaults(d["train"], {"contrastive_ramp_steps": 0})
        drop_defaults(d["network"], {"positions": "rotary"})
        return drop_defaults(d, {"condition": "table", "object_embeddings": "learned"})


class Denoiser(nn.Module):
    """The shared transformer core, bidirectional with rotary positions, over the plan vocabulary,
    plus the condition's atom embeddings: one table row per atom id (`condition: table`), or, given
    `rows` (`condition: factored`, genplan.models.diffusion.atoms.AtomVocabulary.rows), SymT's
    composition W (P[p] | E[o1] | ... | E[pad]) + b, with E the plan vocabulary's own token table:
    an object of the condition is the vector the denoiser reads and writes it as in the plan."""

    def __init__(self, config, atom_tokens: int, rows: torch.Tensor | None = None):
        super().__init__()
        from genplan.nn.transformer import Transformer

        self.core = Transformer(config)
        self.factored = rows is not None
        if self.factored:
            self.register_buffer("atom_rows", rows.long(), persistent=False)
            self.predicates = nn.Embedding(int(rows[:, 0].max()) + 1 if len(rows) else 1, config.d_model)
            self.atom_map = nn.Linear(rows.shape[1] * config.d_model, config.d_model)
            nn.init.normal_(self.predicates.weight, mean=0.0, std=0.02)
            # variance-preserving and no bias: torch's default bias (about 0.04) would outweigh the 0.02-scale
            # parts and make every atom look alike at the start (mean cosine 0.88 between random atoms)
            nn.init.normal_(self.atom_map.weight, mean=0.0, std=rows.shape[1] ** -0.5 * config.d_model ** -0.5)
            nn.init.zeros_(self.atom_map.bias)
        else:
            self.atoms = nn.Embedding(max(1, atom_tokens), config.d_model)
            nn.init.normal_(self.atoms.weight, mean=0.0, std=0.02)

    def embed_condition(self, cond: torch.Tensor) -> torch.Tensor:
        """[B,C] atom ids -> [B,C,d_model]."""
        if not self.factored:
            return self.atoms(cond)
        r = self.atom_rows[cond]  # [B,C,1+m]
        parts = [self.predicates(r[..., 0])] + [self.core.embed(r[..., j]) for j in range(1, r.shape[-1])]
        return self.atom_map(torch.cat(parts, dim=-1))

    @property
    def config(self):
        return self.core.config

    def forward(self, cond: torch.Tensor, cond_mask: torch.Tensor, plan: torch.Tensor,
                return_attentions: bool = False, return_hidden: bool = False):
        """cond [B,C] atom ids (padding anywhere, cond_mask [B,C] True at real atoms), plan [B,1+L]
        (`<BOS>` first). Returns the core's TransformerOutput over all C+1+L positions; the plan's
        logits are ``out.logits[:, C:]``."""
        B, C = cond.shape
        L1 = plan.shape[1]
        x = torch.cat([self.embed_condition(cond), self.core.embed(plan)], dim=1)
        mask = torch.cat([cond_mask.bool(), torch.ones(B, L1, dtype=torch.bool, device=plan.device)], dim=1)
        pos = torch.cat([torch.zeros(C, device=plan.device), torch.arange(L1, device=plan.device)])
        offset = (pos - torch.arange(C + L1, device=plan.device))[None]
        return self.core(inputs_embeds=x, attention_mask=mask, position_offset=offset,
                         return_attentions=return_attentions, return_hidden=return_hidden)

    def plan_logits(self, cond, cond_mask, plan) -> torch.Tensor:
        return self(cond, cond_mask, plan).logits[:, cond.shape[1]:]


def make_denoiser(config, atoms, settings: DiffusionSettings) -> Denoiser:
    """The denoiser of `settings` over an AtomVocabulary (its condition embedding as `condition` says)."""
    return Denoiser(config, len(atoms), atoms.rows() if settings.condition == "factored" else None)


def network_config(vocab, settings: DiffusionSettings) -> dict:
    """The TransformerConfig arguments of a model (stored in the checkpoint)."""
    n = settings.network
    return dict(vocab_size=len(vocab), max_len=settings.max_plan_tokens + 1, d_model=n.d_model, n_heads=n.n_heads,
                n_layers=n.n_layers, d_ff=n.d_ff, dropout=n.dropout, causal=False, positions=n.positions,
                rope_base=n.rope_base, share_weights=n.share_weights, pad_id=vocab.pad_id,
                **fixed_objects(vocab, settings.object_embeddings))


class DiffusionModel:
    family = "diffusion"
    system = "diffusion"

    def __init__(self, identity: dict, vocab, atoms, net: Denoiser, settings: DiffusionSettings, domain_info):
        self.identity, self.vocab, self.atoms, self.net, self.settings = identity, vocab, atoms, net, settings
        self.domain_info = domain_info
        self.name, self.domain, self.seed = identity["name"], identity["domain"], identity["seed"]

    @property
    def variant(self) -> str:
        return variant_of(self.settings)

    @classmethod
    def from_envelope(cls, env: dict, path) -> "DiffusionModel":
        from genplan.datasets.domain_text import domain_of_text
        from genplan.models.diffusion.atoms import AtomVocabulary
        from genplan.nn.transformer import TransformerConfig
        from genplan.tokens.vocab import Vocabulary

        try:
            settings = DiffusionSettings.from_entry(env["config"]["settings"])
            vocab = Vocabulary.from_dict(env["vocabulary"])
            atoms = AtomVocabulary(vocab)
            net = make_denoiser(TransformerConfig(**env["config"]["network"]), atoms, settings)
            net.load_state_dict(env["weights"])
            net.eval()
            domain_info = domain_of_text(env["config"]["domain_pddl"])
        except GenplanError:
            raise
        except Exception as exc:  # torch and the tokens layer raise their own errors
            raise GenplanError(f"corrupt diffusion checkpoint: {type(exc).__name__}: {str(exc)[:200]}", path) from None
        return cls(env["identity"], vocab, atoms, net, settings, domain_info)


def variant_of(settings: DiffusionSettings) -> str:
    """The paper's variant name (`confidence_remask`, as published_results.csv) for the paper's
    training; the future-work variants append what they change."""
    v = "confidence_remask"
    if settings.train.schedule == "beta":
        v += "-beta"
    if settings.train.symmetry:
        v += "-symmetry"
    return v
