"""Decoder speed: our decoder against one built the reference implementation's way, on the same
problems, side by side in one run, per domain.

Ours (genplan.planners.beam): pymimir successors; per step ONE batched embedding call for the new
successors of all beam entries (wlplan generator bound to the problem once, atom conversions
cached, embeddings cached by state), ONE model call for the beam entries not predicted before,
and XGBoost's one-tree-per-output forests evaluated by the exact NumPy walker
(genplan.models.transition.forest; bit-identical to XGBoost's predictions).

Reference way (built here): successors from a pure-Python grounder written below (naive STRIPS
grounding over all object tuples, static preconditions pruned, every ground operator's
precondition tested in every expanded state, like pyperplan); every successor embedded on its own
through a fresh wlplan ProblemDataset/DomainDataset with freshly built atoms; one XGBoost predict
call (the booster's own predictor) of one row per beam entry, as the reference's
XGBRegressor.predict. The search itself (pooled beam, scores, tie-breaks) is the same, so with the
same model both decoders return the same plans (checked and printed).

A case is DOMAIN BENCHMARK_DIR MODEL [REFERENCE_MODEL]: the reference way decodes with
REFERENCE_MODEL (default MODEL), e.g. the paper's one-tree-per-output model, while ours decodes
with MODEL (e.g. a `multi_output_tree` retrain): then the plans differ and the solved counts are
printed for both. Steps/s are plan steps (beam iterations) per second of wall time and of this
process's CPU time (the CPU figure is less disturbed by other jobs on a shared machine); one core
(XGBoost nthread 1, torch 1 thread).

    python perf/decoder_speed.py --limit 5 \
        --case blocks results/problems/paper/blocks MODEL.ckpt [PAPER_MODEL.ckpt] \
        --case visitall results/problems/paper/visitall MODEL.ckpt [PAPER_MODEL.ckpt]
"""

from __future__ import annotations

import argparse
import copy
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

from genplan.features.wlplan_edge import ProblemConverter
from genplan.formats import manifest
from genplan.mimir import MimirTask
from genplan.pddl_io import parse_domain, parse_problem
from genplan.planners.beam import DecodeConfig, child_plan_text, decode
from genplan.solve_setup import load_model


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

    def decode(self, cfg: DecodeConfig, budget_s: float = float("inf")):
        """(plan, solved, steps, wall seconds, cpu seconds, cut): `cut` when the wall-clock budget
        ran out before the search ended (its steps and seconds still count for the rate)."""
        start, cpu = time.perf_counter(), time.process_time()

        def done(plan, solved, steps, cut=False):
            return plan, solved, steps, time.perf_counter() - start, time.process_time() - cpu, cut

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
                    cands.append((score + d, child_plan_text(entry, name), nxt, plan + [name], path | {nxt}, e))
            if not cands:
                return done(beam[0][3], False, step)
            cands.sort(key=lambda c: (c[0], c[1]))
            kept = {}
            for c in cands:
                kept.setdefault(c[2], c)
                if len(kept) == cfg.beam:
                    break
            beam = list(kept.values())
            for c in beam:
                if self.task.goal <= c[2]:
                    return done(c[3], True, step)
            if time.perf_counter() - start > budget_s:
                return done(beam[0][3], False, step, cut=True)
        return done(beam[0][3], False, horizon)


def reference_model(model):
    """The model as the reference predicts: XGBoost's own predictor (no NumPy forest)."""
    ref = copy.copy(model)
    ref.forest = None
    return ref


def run_case(domain: str, bench: Path, model_path: str, ref_path: str | None, a) -> dict:
    domain_file = bench / "domain.pddl"
    model = load_model(model_path, domain_file)
    ref_model = reference_model(load_model(ref_path, domain_file) if ref_path else model)
    same_model = ref_path is None or Path(ref_path).resolve() == Path(model_path).resolve()
    cfg = DecodeConfig(beam=a.beam, beam_kind="pooled")
    tot = {k: {"steps": 0, "states": 0, "wall": 0.0, "cpu": 0.0, "solved": 0, "cut": 0} for k in ("ours", "reference")}
    same = 0
    rows = manifest.read(bench, a.split)
    if a.spread:
        rows = [rows[round(i * (len(rows) - 1) / max(a.limit - 1, 1))] for i in range(min(a.limit, len(rows)))]
    else:
        rows = rows[: a.limit]
    print(f"== {domain} {a.split}: {len(rows)} problems, beam {a.beam} pooled ==")
    print(f"ours: {model_path} ({'NumPy forest' if model.forest is not None else 'XGBoost predictor' if model.learner == 'xgb' else model.learner})")
    print(f"reference way: {ref_path or model_path} (XGBoost predictor, one row per call)")
    for row in rows:
        task = parse_problem(row["path"], parse_domain(domain_file))
        mtask = MimirTask(domain_file, row["path"])
        cpu = time.process_time()
        ours = decode(model, task, mtask, cfg)
        ours_cpu = time.process_time() - cpu
        ref = ReferenceStyle(ref_model, domain_file, task)
        plan, solved, steps, secs, ref_cpu, cut = ref.decode(cfg, a.ref_budget)
        same += plan == ours.plan
        for key, vals in (("ours", (ours.steps, ours.embedded, ours.time, ours_cpu, ours.solved, False)),
                          ("reference", (steps, ref.embedded, secs, ref_cpu, solved, cut))):
            for k, v in zip(("steps", "states", "wall", "cpu", "solved", "cut"), vals):
                tot[key][k] += v
        print(f"{row['problem']}: ours {ours.steps} steps {ours.embedded} states {ours.time:.2f} s "
              f"(solved {ours.solved}); reference way {steps} steps {ref.embedded} states {secs:.2f} s "
              f"(solved {solved}{', cut at the budget' if cut else ''}); same plan: {plan == ours.plan}")
    for key in ("ours", "reference"):
        t = tot[key]
        t["steps_s_wall"], t["steps_s_cpu"] = t["steps"] / t["wall"], t["steps"] / t["cpu"]
        print(f"{key:10s} solved {t['solved']}/{len(rows)}  {t['steps']:5d} steps  {t['states']:6d} states  "
              f"{t['wall']:7.2f} s wall  {t['cpu']:7.2f} s cpu  {t['steps_s_wall']:7.1f} steps/s (wall)  "
              f"{t['steps_s_cpu']:7.1f} steps/s (cpu)")
    o, r = tot["ours"], tot["reference"]
    result = {"domain": domain, "problems": len(rows), "ours": o, "reference": r, "same": same, "same_model": same_model,
              "ratio_wall": o["steps_s_wall"] / r["steps_s_wall"], "ratio_cpu": o["steps_s_cpu"] / r["steps_s_cpu"]}
    print(f"ratio ours / reference way: {result['ratio_wall']:.1f}x steps/s (wall), {result['ratio_cpu']:.1f}x (cpu); "
          f"identical plans {same}/{len(rows)}{'' if same_model else ' (different models)'}\n")
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--case", nargs="+", action="append", required=True,
                    metavar="DOMAIN BENCHMARK_DIR MODEL [REFERENCE_MODEL]")
    ap.add_argument("--split", default="extrapolation")
    ap.add_argument("--limit", type=int, default=5, help="problems per domain")
    ap.add_argument("--spread", action="store_true", help="problems spread over the split, not its smallest")
    ap.add_argument("--beam", type=int, default=3)
    ap.add_argument("--ref-budget", type=float, default=120.0, help="wall seconds per problem for the reference way")
    a = ap.parse_args()
    results = []
    for case in a.case:
        if len(case) not in (3, 4):
            ap.error(f"--case takes DOMAIN BENCHMARK_DIR MODEL [REFERENCE_MODEL], got {case}")
        results.append(run_case(case[0], Path(case[1]), case[2], case[3] if len(case) == 4 else None, a))
    print(f"{'domain':10s} {'ours steps/s':>14s} {'ref steps/s':>12s} {'ratio':>6s}   (cpu time; wall in brackets)")
    for r in results:
        print(f"{r['domain']:10s} {r['ours']['steps_s_cpu']:14.1f} {r['reference']['steps_s_cpu']:12.1f} "
              f"{r['ratio_cpu']:6.1f}   ({r['ours']['steps_s_wall']:.1f} / {r['reference']['steps_s_wall']:.1f} = "
              f"{r['ratio_wall']:.1f}x)  solved {r['ours']['solved']} / {r['reference']['solved']} of {r['problems']}")


if __name__ == "__main__":
    main()
