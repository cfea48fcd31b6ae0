"""Decoder speed: our decoder against one built the reference implementation's way, on the same
problems with the same trained model, from one run.

Ours (genplan.planners.beam): pymimir successors; per step ONE batched embedding call for the new
successors of all beam entries (wlplan generator bound to the problem once, atom conversions
cached, embeddings cached by state) and ONE batched model call for the whole beam.

Reference way (built here): successors from a pure-Python grounder written below (naive STRIPS
grounding over all object tuples, static preconditions pruned, every ground operator's
precondition tested in every expanded state, like pyperplan); every successor embedded on its own
through a fresh wlplan ProblemDataset/DomainDataset with freshly built atoms; one model call per
beam entry. The search itself (pooled beam, scores, tie-breaks) is the same, so both decoders
should return the same plans (checked and printed).

    python benchmarks/decoder_speed.py --model results/models/.../model.ckpt \
        --benchmark-dir results/problems/paper/blocks --split extrapolation --limit 5
"""

from __future__ import annotations

import argparse
import itertools
import time
from pathlib import Path

import numpy as np
import pddl
from pddl.logic import Predicate
from pddl.logic.base import And, Not
from wlplan.data import DomainDataset, ProblemDataset
from wlplan.planning import Atom as WLAtom
from wlplan.planning import State as WLState

from genplan import manifest
from genplan.planners.beam import DecodeConfig, _child_plan_text, decode
from genplan.features.wlplan_edge import ProblemConverter
from genplan.mimir import MimirTask
from genplan.pddl_io import parse_domain, parse_problem
from genplan.planners.solve import load_model


# --- a pure-Python STRIPS grounder (the reference used pyperplan) ---------------------------------
def _literals(formula) -> list[tuple[bool, Predicate]]:
    if formula is None:
        return []
    if isinstance(formula, Predicate):
        return [(True, formula)]
    if isinstance(formula, Not):
        return [(False, formula.argument)]
    if isinstance(formula, And):
        return [lit for op in formula.operands for lit in _literals(op)]
    raise ValueError(f"not STRIPS: {formula!r}")


def _ground(pred: Predicate, binding: dict) -> tuple:
    return (str(pred.name), *(binding.get(str(t.name), str(t.name)) for t in pred.terms))


def ground_operators(domain_file: Path, task) -> list[tuple]:
    """(action, pre+, pre-, add, delete) for every object tuple whose static preconditions hold."""
    dom = pddl.parse_domain(str(domain_file))
    info = parse_domain(domain_file)
    ops = []
    for action in dom.actions:
        params = [str(p.name) for p in action.parameters]
        pre, eff = _literals(action.precondition), _literals(action.effect)
        for objs in itertools.product(task.objects, repeat=len(params)):
            b = dict(zip(params, objs))
            lits = [(pos, _ground(p, b)) for pos, p in pre]
            if any((a[0] not in info.fluent_predicates) and ((a in task.statics) != pos) for pos, a in lits):
                continue
            fl = [(pos, a) for pos, a in lits if a[0] in info.fluent_predicates]
            ops.append(((str(action.name), *objs), frozenset(a for pos, a in fl if pos),
                        frozenset(a for pos, a in fl if not pos),
                        frozenset(_ground(p, b) for pos, p in eff if pos),
                        frozenset(_ground(p, b) for pos, p in eff if not pos)))
    return ops


def successors(ops, state: frozenset) -> list[tuple]:
    return [(name, (state - dele) | add) for name, pos, neg, add, dele in ops if pos <= state and not (neg & state)]


# --- the reference-style decoder -------------------------------------------------------------------
class ReferenceStyle:
    def __init__(self, model, domain_file: Path, task):
        self.model, self.task = model, task
        enc = model.encoder
        self.fg, self.wl_domain = enc._generator(), enc.domain
        self.preds = {p.name: p for p in self.wl_domain.predicates}
        conv = ProblemConverter(self.wl_domain, task.objects, task.statics, task.goal, task.path)
        self.wl_problem = conv.problem
        self.ops = ground_operators(domain_file, task)
        self.embedded = 0

    def embed(self, state: frozenset) -> np.ndarray:
        """One fresh dataset per state, atoms built anew (as the reference's embed_state_wl)."""
        atoms = [WLAtom(predicate=self.preds[a[0]], objects=list(a[1:])) for a in sorted(self.task.statics | state)]
        ds = DomainDataset(self.wl_domain, [ProblemDataset(self.wl_problem, [WLState(atoms)])])
        self.embedded += 1
        return np.asarray(self.fg.embed(ds)[0], dtype=np.float32)

    def decode(self, cfg: DecodeConfig):
        start = time.perf_counter()
        goal_atoms = [WLAtom(predicate=self.preds[a[0]], objects=list(a[1:])) for a in sorted(self.task.goal)]
        goal = np.asarray(self.fg.embed(DomainDataset(self.wl_domain, [ProblemDataset(self.wl_problem, [WLState(goal_atoms)])]))[0], dtype=np.float32)
        s0 = self.task.init
        beam = [(0.0, "[]", s0, [], {s0}, self.embed(s0))]
        horizon = cfg.horizon(self.task.num_objects)
        for step in range(1, horizon + 1):
            cands = []
            for rank, (score, text, state, plan, path, emb) in enumerate(beam):
                pred = self.model.predict_next(emb[None, :], goal)[0]  # one call per entry
                for name, nxt in successors(self.ops, state):
                    if nxt in path:
                        continue
                    e = self.embed(nxt)
                    d = float(self.model.distance(pred, e[None, :])[0])
                    entry = type("E", (), {"plan": plan, "plan_text": text})
                    cands.append((score + d, _child_plan_text(entry, name), nxt, plan + [name], path | {nxt}, e))
            if not cands:
                return beam[0][3], False, step, time.perf_counter() - start
            cands.sort(key=lambda c: (c[0], c[1]))
            kept = {}
            for c in cands:
                kept.setdefault(c[2], c)
                if len(kept) == cfg.beam:
                    break
            beam = list(kept.values())
            for c in beam:
                if self.task.goal <= c[2]:
                    return c[3], True, step, time.perf_counter() - start
        return beam[0][3], False, horizon, time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--benchmark-dir", required=True)
    ap.add_argument("--split", default="extrapolation")
    ap.add_argument("--limit", type=int, default=5)
    ap.add_argument("--beam", type=int, default=3)
    a = ap.parse_args()
    bench = Path(a.benchmark_dir)
    domain = bench / "domain.pddl"
    model = load_model(a.model, domain)
    cfg = DecodeConfig(beam=a.beam, beam_kind="pooled")
    totals = {"ours": [0, 0, 0.0], "reference-style": [0, 0, 0.0]}  # states, steps, seconds
    same = 0
    rows = manifest.read(bench, a.split)[: a.limit]
    for row in rows:
        task = parse_problem(row["path"], parse_domain(domain))
        ours = decode(model, task, MimirTask(domain, row["path"]), cfg)
        ref = ReferenceStyle(model, domain, task)
        plan, solved, steps, secs = ref.decode(cfg)
        same += plan == ours.plan
        for key, (n, st, t) in (("ours", (ours.embedded, ours.steps, ours.time)), ("reference-style", (ref.embedded, steps, secs))):
            totals[key][0] += n
            totals[key][1] += st
            totals[key][2] += t
        print(f"{row['problem']}: ours {ours.steps} steps {ours.embedded} states {ours.time:.2f} s "
              f"(solved {ours.solved}); reference-style {steps} steps {ref.embedded} states {secs:.2f} s "
              f"(solved {solved}); same plan: {plan == ours.plan}")
    rates = {k: (n / t, st / t) for k, (n, st, t) in totals.items()}
    for k, (sps, stps) in rates.items():
        print(f"{k:16s} {sps:10.0f} states embedded/s {stps:8.1f} plan steps/s")
    print(f"ratio ours / reference-style: {rates['ours'][0] / rates['reference-style'][0]:.1f}x states/s, "
          f"{rates['ours'][1] / rates['reference-style'][1]:.1f}x steps/s; identical plans {same}/{len(rows)}")


if __name__ == "__main__":
    main()
