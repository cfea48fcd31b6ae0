"""Autoregressive plan generation for the sequence families (PlanGPT, SymT^ED), one planner per named
strategy (genplan.planners.strategies), each generation capped at `max_tokens` tokens (500, as
SymT):

- `greedy`: the most probable token at each step (PlanGPT, SymT Table 2 "greedy");
- `greedy-applicable`: greedy among the tokens that can still complete an action applicable in
  the current state, tracked with pymimir, stopping as soon as the state satisfies the goal, at the
  token cap, or where no action is applicable (`not_goal`). `<end>` is never offered: it leads to no
  applicable action, and SymT's filter considers "only tokens leading to an applicable action" (SymT
  Table 2 "applicability"; before commit 0409bfa genplan's ran on to `<end>`, before 324cfb6 it offered
  `<end>` between actions);
- `greedy-reground`: one action at a time, greedy among the applicable ones (as greedy-applicable,
  `<end>` never offered), then the state after it is encoded as a new problem and the next action
  generated from it, until that state satisfies the goal, the token cap or a state without applicable
  actions (SymT Table 2 "regrounding": "This strategy filters applicable actions as above"; before
  commit 9c0d018 genplan's did not filter);
- `multibeamN`: beam search over tokens with N beams, the most probable finished sequence
  returned (PlanGPT's multibeam); `multibeamN-anyvalid` returns the most probable of the N that
  reaches the goal (pymimir), the reading where a problem counts as solved if any beam is;
- `toppPxK`: K nucleus samples with mass P; the first that reaches the goal is returned (a
  problem is solved when one of the K is valid, PlanGPT Section 5);
- `prefixP-greedy`: plan completion, PlanGPT's last experiment: the first P % of a reference plan
  (the problem's `reference_plan`; evaluation takes the split's trajectory plan) is given after
  `<action>` and the rest generated greedily; the returned plan is the prefix and the completion.

Objects are mapped to the model's pool tokens deterministically (sorted, in pool order) at
evaluation, or, with SymT^ED's planning setting `names: {order: random, seed: S}`, by one random
renaming a problem drawn from S; with `samples: K` (K > 1) the greedy strategies decode with K
renamings at once, each token chosen from the mean of their distributions
(genplan.planners.renaming_ensemble; not in the papers). Every plan goes back through the inverse
map and is simulated with pymimir for the attempt's reason (`goal`, `not_goal`, `inapplicable`,
`token_cap`, `malformed`); VAL has the final word (genplan.planners.solve). Generation reuses the
network's key/value cache: one model call per generated token and beam step (and naming).

A model other than PlanGPT may bring its own input and network calls: `prompt(state, goal,
statics, renaming)` (a list whose length is the decoder's tokens so far), `start(prompt, device)
-> (logits [1, V], cache)`, `step(tokens, cache, device) -> (logits [len(tokens), V], cache)` and
`context` (the tokens it can hold); SymT^ED does (genplan.models.symt.model)."""

from __future__ import annotations

import math
import time

import torch

from genplan.errors import GenplanError
from genplan.planners.base import Attempt
from genplan.planners.renaming_ensemble import EnsemblePrompt, RenamingEnsemble
from genplan.tokens.sequences import decode_plan, encode_action, encode_plan, encode_problem

KINDS = ("greedy", "greedy-applicable", "greedy-reground", "multibeam", "topp")
ENSEMBLE_KINDS = ("greedy", "greedy-applicable", "greedy-reground")  # one hypothesis: decodable by K namings


def ensemble_refusal(strategy: str, kind: str, names: dict | None) -> str | None:
    """Why a strategy cannot plan with the planning key `names` (an ensemble, samples > 1, decodes
    the greedy kinds only), or None when it can."""
    if (names or {}).get("samples", 1) > 1 and kind not in ENSEMBLE_KINDS:
        return (f"strategy {strategy!r} cannot decode with a renaming ensemble (names: samples > 1); the "
                f"strategies that can: {list(ENSEMBLE_KINDS)}")
    return None


def _reorder(past, index):
    if isinstance(past, torch.Tensor):
        return past.index_select(0, index)
    if isinstance(past, (list, tuple)):
        return type(past)(_reorder(p, index) for p in past)
    return past


class SequencePlanner:
    def __init__(self, model, strategy, settings: dict | None = None, names: dict | None = None):
        self.model, self.strategy = model, strategy.name
        self.kind, self.params = strategy.kind, strategy.params
        self.max_tokens = int((settings or {}).get("max_tokens", model.settings.max_tokens))
        self.seed = int((settings or {}).get("sample_seed", 0))
        self.names = names  # SymT^ED's planning key `names` (genplan.tokens.renaming.Renaming.at_evaluation)
        refusal = ensemble_refusal(self.strategy, self.kind, names)
        if refusal:
            raise GenplanError(refusal)
        self.ensemble: RenamingEnsemble | None = None
        self.calls = 0
        self.tokens = 0

    # --- the network, one call per token -------------------------------------------------------
    @property
    def _device(self):
        return next(self.model.net.parameters()).device  # CES plans with the model being trained (GPU)

    @property
    def _context(self) -> int:
        """Tokens the model can hold: the network's context, or the model's own `context`."""
        return int(getattr(self.model, "context", None) or self.model.net.config.max_len)

    def _prompt(self, state, goal, statics) -> list[int]:
        """The model's input for a problem state: PlanGPT's token prompt, or the model's own
        `prompt(state, goal, statics, renaming)` (SymT^ED: the atom set and `<action>`)."""
        if self.ensemble is not None:
            return EnsemblePrompt([self._prompt_named(state, goal, statics, r) for r in self.ensemble.renamings])
        return self._prompt_named(state, goal, statics, self.renaming)

    def _prompt_named(self, state, goal, statics, renaming) -> list[int]:
        own = getattr(self.model, "prompt", None)
        if own is not None:
            return own(state, goal, statics, renaming)
        return encode_problem(state, goal, renaming, self.model.vocab, order="canonical", statics=statics)

    def _start(self, prompt: list[int]):
        if isinstance(prompt, EnsemblePrompt):  # every member reads its own naming, in one batch of K rows
            logits, past = self._start_members(prompt.members)
            return self.ensemble.combine(logits), past
        if hasattr(self.model, "start"):  # a model with its own network calls (SymT^ED: encoder, then decoder)
            self.calls += 1
            return self.model.start(prompt, self._device)
        return self._start_members([prompt])

    def _start_members(self, members: list[list[int]]):
        """The first logits [K, V] and the cache of K prompts of one shape, in one batch (the model's
        `start_many`, or PlanGPT's network on the K prompts): one prompt, or a renaming ensemble's members
        (renamings change names, not lengths). Each prompt counts as a model call."""
        self.calls += len(members)
        many = getattr(self.model, "start_many", None)
        if many is not None:
            return many(members, self._device)
        with torch.no_grad():
            out = self.model.net(torch.tensor(members, device=self._device), use_cache=True)
        return out.logits[:, -1, :].float(), out.past

    def _next(self, tokens: list[int], past):
        if self.ensemble is not None:  # the reference naming's token, fed to each member in its own
            (tok,) = tokens
            logits, past = self._next_one(self.ensemble.members_of(tok), past)
            self.calls += len(self.ensemble) - 1  # each member counts as a model call
            return self.ensemble.combine(logits), past
        return self._next_one(tokens, past)

    def _next_one(self, tokens: list[int], past):
        if hasattr(self.model, "step"):
            self.calls += 1
            return self.model.step(tokens, past, self._device)
        with torch.no_grad():
            out = self.model.net(torch.tensor(tokens, device=self._device)[:, None], past=past, use_cache=True)
        self.calls += 1
        return out.logits[:, -1, :].float(), out.past

    def _budget(self, prompt: list[int]) -> int:
        return max(0, min(self.max_tokens, self._context - len(prompt)))

    # --- one problem ---------------------------------------------------------------------------
    def solve(self, problem) -> Attempt:
        from genplan.tokens.renaming import Renaming
        from genplan.tokens.types import object_types

        start = time.perf_counter()
        self.calls = self.tokens = 0
        task, vocab = problem.task, self.model.vocab
        try:
            renamings = Renaming.at_evaluation(task.objects, object_types(self.model.domain_info, task), vocab,
                                               self.names, per_type=self.model.settings.per_type)
        except GenplanError as exc:
            return Attempt([], "refused", time.perf_counter() - start, counters={"message": exc.message})
        self.renaming = renaming = renamings[0]  # the reference naming: plans are read back through it
        self.ensemble = RenamingEnsemble(renamings, vocab) if len(renamings) > 1 else None
        prompt = self._prompt(task.init, task.goal, task.statics)
        if len(prompt) >= self._context:
            return Attempt([], "refused", time.perf_counter() - start, counters={
                "message": f"the problem is {len(prompt)} tokens long, the model's context {self._context}"})
        if self.kind == "prefix":
            if not problem.reference_plan:
                return Attempt([], "refused", time.perf_counter() - start,
                               counters={"message": "plan completion needs a reference plan"})
            given = problem.reference_plan[: round(len(problem.reference_plan) * self.params["percent"] / 100)]
            prompt = prompt + encode_plan(list(given), renaming, vocab)[:-1]  # without <end>
            if len(prompt) >= self._context:
                return Attempt([], "refused", time.perf_counter() - start, counters={
                    "message": f"the problem and the plan prefix are {len(prompt)} tokens long, the model's "
                               f"context {self._context}"})
            gen, capped = self._sample(prompt)
            plan, reason = self._read(prompt[prompt.index(vocab.id("<action>")) + 1:] + gen, problem, capped)
        elif self.kind == "greedy-reground":
            plan, reason = self._reground(problem, task)
        elif self.kind == "multibeam":
            plan, reason = self._multibeam(problem, prompt)
        elif self.kind == "topp":
            plan, reason = self._topp(problem, prompt)
        else:
            gen, capped = self._sample(prompt, problem if self.kind == "greedy-applicable" else None)
            plan, reason = self._read(gen, problem, capped)
        return Attempt(plan, reason, time.perf_counter() - start, steps=len(plan), horizon=self.max_tokens,
                       model_calls=self.calls, tokens_generated=self.tokens)

    def _read(self, generated: list[int], problem, capped: bool) -> tuple[list, str]:
        """The plan of generated plan tokens, and why generation ended, by simulation."""
        vocab = self.model.vocab
        if vocab.id("<action>") in generated:  # decode_plan would start reading after it
            return [], "malformed"
        if capped:  # no <end>: read the complete actions only
            generated = self._complete_actions(generated) + [vocab.id("<end>")]
        try:
            plan = decode_plan(generated, self.renaming, vocab)
        except (GenplanError, ValueError):
            return [], "malformed"
        reached = simulate(problem, plan)
        return plan, ("token_cap" if capped and reached != "goal" else reached)

    def _complete_actions(self, generated: list[int]) -> list[int]:
        vocab, out, i = self.model.vocab, [], 0
        while i < len(generated) and vocab.is_action(generated[i]):
            n = 1 + vocab.arity(vocab.token(generated[i]))
            if i + n > len(generated):
                break
            out += generated[i:i + n]
            i += n
        return out

    def _sample(self, prompt: list[int], problem=None, p: float | None = None, gen=None) -> tuple[list[int], bool]:
        """Greedy (or nucleus with `p`) generation; with `problem`, only applicable actions, and generation
        stops as soon as the simulated state satisfies the goal (SymT: "Plan generation stops when the
        simulated state satisfies the goal"), as if the model had ended there."""
        vocab = self.model.vocab
        end = vocab.id("<end>")
        allowed = _Applicable(problem, self.renaming, vocab) if problem is not None else None
        if allowed is not None and allowed.at_goal:
            return [end], False
        logits, past = self._start(prompt)
        out: list[int] = []
        for _ in range(self._budget(prompt)):
            row = logits[0]
            if allowed is not None:
                options = allowed.next_tokens(end=False)
                if not options:  # no applicable action: the plan ends short of the goal
                    return out + [end], False
                row = row + _mask(row, options)
            tok = int(torch.argmax(row)) if p is None else _nucleus(row, p, gen)
            out.append(tok)
            self.tokens += 1
            if tok == end:
                return out, False
            if allowed is not None:
                allowed.feed(tok)
                if allowed.at_goal:
                    return out + [end], False
            logits, past = self._next([tok], past)
        return out, True

    def _reground(self, problem, task) -> tuple[list, str]:
        """SymT's regrounding (its section "Regrounding Applicability-Filtered Plan Generation"): one action
        per prompt, chosen greedily among the applicable ones (as greedy-applicable filters), then the state
        after it becomes the next prompt's initial state; `<end>` is never offered (module docstring)."""
        vocab, mimir = self.model.vocab, problem.mimir
        allowed = _Applicable(problem, self.renaming, vocab)
        plan = []
        while self.tokens < self.max_tokens:
            if allowed.at_goal:  # the re-encoded problem is solved: nothing left to generate
                return plan, "goal"
            prompt = self._prompt(mimir.fluents(allowed.state), task.goal, task.statics)
            if len(prompt) >= self._context:
                return plan, "token_cap"
            logits, past = self._start(prompt)
            action: list[int] = []
            while self.tokens < self.max_tokens and len(prompt) + len(action) < self._context:
                options = allowed.next_tokens(end=False)
                if not options:  # no applicable action in this state
                    return plan, "not_goal"
                tok = int(torch.argmax(logits[0] + _mask(logits[0], options)))
                self.tokens += 1
                action.append(tok)
                allowed.feed(tok)
                if not allowed.prefix:  # the action is complete and applied
                    break
                logits, past = self._next([tok], past)
            else:
                return plan, "token_cap"
            plan.append(self.renaming.restore_action(vocab.action_words(action)))
        return plan, "token_cap"

    def _multibeam(self, problem, prompt: list[int]) -> tuple[list, str]:
        n, end = self.params["beams"], self.model.vocab.id("<end>")
        logits, past = self._start(prompt)
        beams = [([], 0.0)]  # (tokens, log-probability)
        done: list[tuple[list[int], float]] = []
        for _ in range(self._budget(prompt)):
            logp = torch.log_softmax(logits, dim=-1) + torch.tensor([s for _, s in beams], device=logits.device)[:, None]
            top = torch.topk(logp.flatten(), min(n, logp.numel()))
            rows, cols = top.indices // logp.shape[1], top.indices % logp.shape[1]
            kept, keep_rows = [], []
            for score, r, c in zip(top.values.tolist(), rows.tolist(), cols.tolist()):
                seq = beams[r][0] + [c]
                if c == end:
                    done.append((seq, score))
                else:
                    kept.append((seq, score))
                    keep_rows.append(r)
            self.tokens += len(kept)
            if len(done) >= n or not kept:
                break
            beams = kept
            logits, past = self._next([s[-1] for s, _ in kept],
                                      _reorder(past, torch.tensor(keep_rows, device=logits.device)))
        finished = sorted(done, key=lambda d: -d[1]) or [max(beams, key=lambda b: b[1])]
        capped = not done
        results = [self._read(seq, problem, capped) for seq, _ in finished[:n]]
        if self.params.get("anyvalid"):
            return next((r for r in results if r[1] == "goal"), results[0])
        return results[0]

    def _topp(self, problem, prompt: list[int]) -> tuple[list, str]:
        gen = torch.Generator().manual_seed(self.seed)
        first = None
        for _ in range(self.params["samples"]):
            out, capped = self._sample(prompt, p=self.params["p"], gen=gen)
            result = self._read(out, problem, capped)
            if result[1] == "goal":
                return result
            first = first or result
        return first


def _nucleus(row: torch.Tensor, p: float, gen) -> int:
    probs = torch.softmax(row.double().cpu(), dim=-1)  # the sampling generator is a CPU one
    sorted_p, order = torch.sort(probs, descending=True)
    keep = torch.cumsum(sorted_p, 0) - sorted_p < p  # the smallest prefix with mass >= p
    sorted_p = torch.where(keep, sorted_p, torch.zeros_like(sorted_p))
    return int(order[torch.multinomial(sorted_p / sorted_p.sum(), 1, generator=gen)])


def _mask(row: torch.Tensor, allowed: set[int]) -> torch.Tensor:
    """0 at the allowed token ids, -inf elsewhere."""
    mask = torch.full_like(row, -math.inf)
    mask[list(allowed)] = 0.0
    return mask


def simulate(problem, plan) -> str:
    mimir = problem.mimir
    state = mimir.initial_state()
    for action in plan:
        try:
            state = mimir.apply(state, action)
        except GenplanError:
            return "inapplicable"
    return "goal" if mimir.is_goal(state) else "not_goal"


class _Applicable:
    """The tokens that can still complete an action applicable in the current state (pymimir),
    and `<end>` between actions where asked; fed the generated tokens, it applies each completed action."""

    def __init__(self, problem, renaming, vocab):
        self.mimir, self.renaming, self.vocab = problem.mimir, renaming, vocab
        self.state = self.mimir.initial_state()
        self.prefix: list[int] = []
        self._successors()

    def _successors(self) -> None:
        self.options = {}
        for action, nxt in self.mimir.successors(self.state):
            try:
                ids = tuple(encode_action(action, self.renaming, self.vocab))
            except GenplanError:  # an action the vocabulary or the renaming cannot write
                continue
            self.options[ids] = nxt

    @property
    def at_goal(self) -> bool:
        """Between actions, and the state reached satisfies the goal."""
        return not self.prefix and self.mimir.is_goal(self.state)

    def next_tokens(self, end: bool = True) -> set[int]:
        """The tokens that continue an applicable action; with `end`, also `<end>` between actions
        (diffusion's grammar ends its plans so; the autoregressive filters never offer it)."""
        n = len(self.prefix)
        allowed = {ids[n] for ids in self.options if tuple(ids[:n]) == tuple(self.prefix) and len(ids) > n}
        return allowed | ({self.vocab.id("<end>")} if end and not self.prefix else set())

    def feed(self, tok: int) -> None:
        self.prefix.append(tok)
        nxt = self.options.get(tuple(self.prefix))
        if nxt is not None:
            self.state, self.prefix = nxt, []
            self._successors()
