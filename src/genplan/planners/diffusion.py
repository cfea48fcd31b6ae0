"""T-step confidence-based unmasking for the diffusion family (plan-diffusion, "Plan Diffusion",
Figure 3; the sampler of LLaDA's public `generate.py` and MDLM, written anew here):

- start from ``<BOS>`` and `max_plan_tokens` ``<MASK>`` positions; the number of tokens each of the
  T steps commits is fixed in advance (floor(L / T) per step, the remainder on the first steps),
  so every position is committed after T steps;
- at each step the denoiser predicts every masked position; the prediction is the argmax (or,
  with a temperature tau > 0 in the name, a Gumbel-max sample drawn in float64), its softmax
  probability the confidence; the most confident masked positions are committed and never
  changed again (low-confidence remasking);
- with B blocks (semi-autoregressive), the plan positions are cut into B consecutive blocks and
  T / B steps commit the positions of one block after the other;
- the plan is read off up to ``<EOS>``: no ``<EOS>`` among the L positions means the plan does not
  fit the model's window (reason `token_cap`, said in the counters' message), tokens that are no
  plan (a ``<PAD>`` or a misplaced schema before ``<EOS>``) are `malformed`.

Predictions are restricted to the tokens that are ever targets (action schemas, object tokens,
``<EOS>``, ``<PAD>``): ``<MASK>``, ``<BOS>`` and predicate tokens are never committed.

Strategy names (genplan.planners.strategies): ``unmask-T20``, ``unmask-T20-B4`` (4 blocks),
``unmask-T20-tau0.5`` (Gumbel, tau 0.5), and ``unmask-T20-applicable`` (ours, reported apart): the
first masked position, whose predecessors are all committed, may only take a token that continues
an action applicable in the state the committed prefix reaches (pymimir, as PlanGPT's
applicability filter, genplan.planners.autoregressive), ``<EOS>`` between actions, ``<PAD>`` after
``<EOS>``. Positions further on cannot be checked (their action is not known yet) and are committed
as predicted; when the prefix reaches a committed token that does not fit, checking stops for that
plan (counter `prefix_broken`).

A trace (``genplan solve --trace FILE``) records per step the whole sequence, the positions
committed and the number of ``<MASK>`` and ``<PAD>`` tokens (the paper's Table 2).
"""

from __future__ import annotations

import json
import math
import time

import torch

from genplan import atomic
from genplan.errors import GenplanError
from genplan.planners.base import Attempt


def commit_counts(n: int, steps: int) -> list[int]:
    """How many of n positions each of `steps` steps commits: n // steps each, the remainder on the
    first steps (LLaDA's get_num_transfer_tokens)."""
    base, rest = divmod(n, steps)
    return [base + (1 if i < rest else 0) for i in range(steps)]


def schedule(n: int, steps: int, blocks: int = 1) -> list[tuple[int, int, int]]:
    """(block start, block end, tokens to commit) per step over positions 0..n-1: the blocks one
    after the other, steps / blocks steps each."""
    if steps % blocks:
        raise ValueError(f"{steps} steps cannot be split evenly over {blocks} blocks")
    if blocks > n:
        raise ValueError(f"{blocks} blocks for {n} plan positions")
    per = steps // blocks
    bounds = [round(b * n / blocks) for b in range(blocks + 1)]
    return [(lo, hi, k) for lo, hi in zip(bounds, bounds[1:]) for k in commit_counts(hi - lo, per)]


class _Grammar:
    """The committed prefix of a plan, followed token by token: applicable actions (pymimir),
    `<EOS>` between actions, `<PAD>` after `<EOS>`."""

    def __init__(self, problem, renaming, vocab):
        from genplan.planners.autoregressive import _Applicable

        self.vocab, self.ended = vocab, False
        self.actions = _Applicable(problem, renaming, vocab)

    def allowed(self) -> set[int]:
        return {self.vocab.pad_id} if self.ended else self.actions.next_tokens()

    def feed(self, tok: int) -> bool:
        """Read one token; False (and nothing changed) if it is not allowed here."""
        if tok not in self.allowed():
            return False
        if tok == self.vocab.end_id:
            self.ended = True
        elif not self.ended:
            self.actions.feed(tok)
        return True



class UnmaskPlanner:
    def __init__(self, model, strategy, settings: dict | None = None):
        self.model, self.strategy = model, strategy.name
        self.steps, self.blocks = strategy["steps"], strategy.params.get("blocks", 1)
        self.tau = strategy.params.get("tau", 0.0)
        self.applicable = strategy.kind == "unmask-applicable"
        self.seed = int(((settings or {}).get("generate") or {}).get("sample_seed", 0))
        self.width = model.settings.max_plan_tokens
        self.plan_schedule = schedule(self.width, self.steps, self.blocks)  # ValueError for a bad B
        self.trace_path = None  # a JSON file: the unmasking trace of the last problem solved
        vocab = model.vocab
        allowed = torch.zeros(len(vocab), dtype=torch.bool)
        allowed[list(vocab.action_ids()) + list(vocab.object_ids()) + [vocab.end_id, vocab.pad_id]] = True
        self._never = ~allowed

    @property
    def _device(self):
        return next(self.model.net.parameters()).device

    def solve(self, problem) -> Attempt:
        from genplan.tokens.renaming import Renaming

        start = time.perf_counter()
        task, vocab, m = problem.task, self.model.vocab, self.model
        try:
            renaming = Renaming.identity_order(task.objects, None, vocab, per_type=False)
        except GenplanError as exc:
            return Attempt([], "refused", time.perf_counter() - start, counters={"message": exc.message})
        cond_ids = m.atoms.encode(set(task.init) | set(task.statics), task.goal, renaming)
        dev = self._device
        cond = torch.tensor([cond_ids or [0]], device=dev)
        cmask = torch.tensor([[bool(cond_ids)] * max(1, len(cond_ids))], device=dev)
        x = torch.full((1, 1 + self.width), vocab.mask_id, dtype=torch.long, device=dev)
        x[0, 0] = vocab.start_id
        gen = torch.Generator().manual_seed(self.seed)
        grammar = _Grammar(problem, renaming, vocab) if self.applicable else None
        frontier, calls, conflicts, trace = 0, 0, 0, []
        self.broken = False
        never = self._never.to(dev)
        for step, (lo, hi, k) in enumerate(self.plan_schedule, start=1):
            new: list[int] = []
            if k:
                with torch.no_grad():
                    logits = m.net.plan_logits(cond, cmask, x)[0, 1:].float()  # [L, V]
                calls += 1
                logits = logits.masked_fill(never, -math.inf)
                probs = torch.softmax(logits.double(), dim=-1)
                if self.tau > 0:
                    u = torch.rand(logits.shape, generator=gen, dtype=torch.float64).clamp_min(1e-300).to(dev)
                    pred = torch.argmax(logits.double() / self.tau - torch.log(-torch.log(u)), dim=-1)
                else:
                    pred = torch.argmax(logits, dim=-1)
                conf = probs.gather(1, pred[:, None])[:, 0]
                masked = x[0, 1:] == vocab.mask_id
                if grammar is not None and frontier < self.width and lo <= frontier < hi:
                    tok, ok = self._applicable_choice(grammar, probs[frontier])
                    conflicts += not ok
                    if ok:
                        pred[frontier], conf[frontier] = tok, probs[frontier, tok]
                window = torch.full_like(conf, -math.inf)
                window[lo:hi] = conf[lo:hi]
                window = torch.where(masked, window, torch.full_like(window, -math.inf))
                new = torch.topk(window, k).indices.tolist()
                for pos in new:
                    x[0, 1 + pos] = pred[pos]
                if grammar is not None:
                    frontier = self._advance(grammar, x[0, 1:].tolist(), frontier)
            trace.append(self._trace_row(step, x[0].tolist(), new))
        tokens = x[0, 1:].tolist()
        plan, reason, message = self._read(tokens, renaming, problem)
        counters = {"plan_positions": self.width, "steps": self.steps}
        if message:
            counters["message"] = message
        if grammar is not None:
            counters["applicable_conflicts"] = conflicts
            counters["prefix_broken"] = self.broken  # a token committed ahead did not fit the prefix
        if self.trace_path is not None:
            self._write_trace(problem, trace)
        return Attempt(plan, reason, time.perf_counter() - start, steps=self.steps, horizon=self.width,
                       model_calls=calls, tokens_generated=self.width, counters=counters)

    # --- the applicability-aware variant -------------------------------------------------------
    def _applicable_choice(self, grammar, probs) -> tuple[int | None, bool]:
        """The most probable token at the frontier that the committed prefix allows; (None,
        False) when the prefix allows nothing (it was broken by a token committed past an earlier
        frontier)."""
        allowed = grammar.allowed()
        if not allowed:
            return None, False
        return max(allowed, key=lambda t: float(probs[t])), True

    def _advance(self, grammar, tokens, frontier) -> int:
        """Feed the newly contiguous committed tokens to the grammar; the new frontier. A token it
        refuses (committed past an earlier frontier) stops the checking for the rest of the plan."""
        mask_id = self.model.vocab.mask_id
        while frontier < len(tokens) and tokens[frontier] != mask_id:
            if not grammar.feed(tokens[frontier]):
                self.broken = True
                return len(tokens)
            frontier += 1
        return frontier

    # --- reading the plan ----------------------------------------------------------------------
    def _read(self, tokens, renaming, problem) -> tuple[list, str, str]:
        from genplan.planners.autoregressive import simulate
        from genplan.tokens.sequences import decode_plan

        vocab = self.model.vocab
        if vocab.end_id not in tokens:
            return [], "token_cap", (f"no <EOS> among the {self.width} plan positions: the plan does not fit the "
                                     f"model's max_plan_tokens")
        try:
            plan = decode_plan(tokens[:tokens.index(vocab.end_id) + 1], renaming, vocab)
        except (GenplanError, ValueError) as exc:
            return [], "malformed", str(exc)[:200]
        return plan, simulate(problem, plan), ""

    # --- the trace (Table 2) -------------------------------------------------------------------
    def _trace_row(self, step: int, seq: list[int], new: list[int]) -> dict:
        vocab = self.model.vocab
        plan = seq[1:]
        return {"step": step, "tokens": vocab.tokens_of(seq), "new": sorted(1 + p for p in new),
                "mask": sum(t == vocab.mask_id for t in plan), "pad": sum(t == vocab.pad_id for t in plan)}

    def _write_trace(self, problem, rows) -> None:
        doc = {"format": "genplan-unmask-trace/1", "model": self.model.name, "domain": self.model.domain,
               "seed": self.model.seed, "strategy": self.strategy, "problem": problem.task.name,
               "num_objects": len(problem.task.objects), "plan_positions": self.width, "steps": rows}
        atomic.write_text(self.trace_path, json.dumps(doc, indent=1) + "\n")
