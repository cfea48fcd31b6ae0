"""One training job of the heuristic family: (name, settings, domain, seed) -> checkpoint envelope,
training log (CSV) and summary (JSON).

Data: every state of the training state spaces (`genplan-statespace/2` files, the statespace
stage) with its optimal goal distance h*, as WL-GOOSE ("Return to Tradition", Chen, Trevizan,
Thiebaux, ICAPS 2024) regresses h* of training states; WL-GOOSE takes the states along optimal
plans, we take the complete state spaces the pipeline already has (or `max_states` of them drawn
uniformly, seeded). Dead ends (h* = -1) have no finite target: they are left out and counted in
the summary. Features: wlplan's WL colour counts on ILG graphs (`iterations` rounds, colours
collected on the training states only, static atoms in every graph as at inference). States
with equal features become one weighted row (`learners.dedupe`).

The validation split's trajectories (VAL-checked plans of the validation problems) are scored
without influencing the fit: along each plan, how often h falls from a state to the next, and the
RMSE of h against the remaining plan length (an upper bound of h*, exact where the plan is
optimal). The training states' own residuals are reported too, goal states apart (h should be 0
there)."""

from __future__ import annotations

import json
import logging
import time
from dataclasses import asdict, fields
from pathlib import Path

import numpy as np

from genplan import atomic
from genplan.errors import GenplanError
from genplan.models.heuristic import learners
from genplan.progress import progress
from genplan.tables import csv_text

log = logging.getLogger("genplan")


def _files(files: list, suffix: str) -> list[Path]:
    return [Path(f) for f in files if str(f).endswith(suffix)]


def _options(train: dict) -> learners.HeuristicTraining:
    names = {f.name for f in fields(learners.HeuristicTraining)}
    unknown = sorted(set(train) - names)
    if unknown:
        raise GenplanError(f"unknown heuristic training settings {unknown} (known: {sorted(names)})")
    return learners.HeuristicTraining(**train)


def _select(spaces, opts: learners.HeuristicTraining, learner: str, rng: np.random.Generator) -> list[np.ndarray]:
    """The state indices of each space to train on: every state with finite h*, or `max_states`
    drawn uniformly over the union (without replacement); the ranking learner also takes every
    successor of a chosen state, so that its pairs are complete."""
    alive = [s.solvable for s in spaces]
    total = sum(len(a) for a in alive)
    if opts.max_states is None or opts.max_states >= total:
        return alive
    flat = np.sort(rng.choice(total, size=opts.max_states, replace=False))
    starts = np.cumsum([0] + [len(a) for a in alive])
    chosen = [alive[k][flat[(flat >= starts[k]) & (flat < starts[k + 1])] - starts[k]] for k in range(len(spaces))]
    if learner == "rank":
        out = []
        for space, idx in zip(spaces, chosen):
            succ = space.dst[np.isin(space.src, idx)]
            both = np.union1d(idx, succ)
            out.append(both[space.h_star[both] >= 0])
        return out
    return chosen


def _dataset(encoder, space, idx: np.ndarray):
    """The chosen states of one space as a wlplan ProblemDataset: each atom converted once, the
    space's static atoms in every state (as `BoundHeuristic` does at inference)."""
    from wlplan.data import ProblemDataset

    from genplan.features import wlplan_edge as edge

    statics = space.statics if encoder.statics else frozenset()
    conv = edge.ProblemConverter(encoder.domain, space.objects, statics, space.goal, space.path)
    fixed = [conv.atom(a) for a in sorted(statics)]
    atoms = [conv.atom(a) for a in space.atoms]
    ptr, flat = space.state_ptr, space.state_atoms
    return ProblemDataset(conv.problem, [edge.State(fixed + [atoms[j] for j in flat[ptr[i]:ptr[i + 1]].tolist()])
                                         for i in idx.tolist()])


def train_heuristic(name: str, entry: dict, domain: str, files: dict, seed: int, out, log_csv=None,
                    summary_json=None, threads: int = 1, device: str = "auto") -> dict:
    from genplan.datasets.statespace import load_split
    from genplan.features import wlplan_edge as edge
    from genplan.features.wl import WLEncoder
    from genplan.models import checkpoint
    from genplan.planners.solve import domain_key
    from genplan.stages.trajectories import domain_file, load
    from wlplan.data import DomainDataset

    start, cpu_start = time.perf_counter(), time.process_time()
    learner = entry.get("learner", "ridge")
    if learner not in learners.LEARNERS:
        raise GenplanError(f"Unknown value {learner=}. Must be from {list(learners.LEARNERS)}")
    opts = _options(entry.get("train") or {})
    enc_opts = {"iterations": 2, "multiset_hash": True, "statics": True, **(entry.get("encoder") or {})}
    tables = _files(files.get("train", []), ".csv")
    trajs = _files(files.get("train", []), ".json.gz")
    if len(tables) != 1 or not trajs:
        raise GenplanError("the heuristic family trains on one state-space table (statespaces/<benchmark>/<domain>/"
                           f"train.csv, its .npz files beside it) and the training trajectories; got {files.get('train')}")
    doc = load(trajs[0])
    spaces = load_split(tables[0].with_suffix(""))
    rng = np.random.default_rng(seed)
    with domain_file(doc, trajs[0]) as dom_path:
        if domain_key(dom_path) != domain:
            raise GenplanError(f"--domain {domain!r} is not the domain of the training data ({domain_key(dom_path)!r})",
                               trajs[0])
        encoder = WLEncoder(dom_path, **enc_opts)
    pddl_domain = spaces[0].domain_name
    chosen = _select(spaces, opts, learner, rng)
    datasets = [_dataset(encoder, sp, idx) for sp, idx in progress(list(zip(spaces, chosen)), total=len(spaces),
                                                                     desc=f"{name} states")]
    fg = edge.new_generator(encoder.domain, encoder.iterations, encoder.multiset_hash)
    # the colours of the training states only
    edge.collect(fg, DomainDataset(encoder.domain, [d for d, idx in zip(datasets, chosen) if len(idx)]))
    encoder = WLEncoder.from_dict({"name": "wl", "domain_file": doc["domain_file"], "iterations": encoder.iterations,
                                   "multiset_hash": encoder.multiset_hash, "statics": encoder.statics,
                                   "generator": edge.generator_to_text(fg)})
    # features, space by space, merged into distinct weighted rows
    Xs, ys, ws, inverses = [], [], [], []
    for data, sp, idx in progress(list(zip(datasets, spaces, chosen)), total=len(spaces), desc=f"{name} features"):
        X = np.zeros((0, fg.get_n_features()), dtype=np.float32)  # no state of this space drawn
        if len(idx):
            X = np.asarray(fg.embed(DomainDataset(encoder.domain, [data])), dtype=np.float32)
            X = X.reshape(len(idx), fg.get_n_features())
        h = sp.h_star[idx]
        Xu, yu, wu, inv = learners.dedupe(X, h.astype(np.float64), learners.state_weights(h, opts.weighting))
        Xs.append(Xu)
        ys.append(yu)
        ws.append(wu)
        inverses.append(inv)
    offsets = np.cumsum([0] + [len(x) for x in Xs])
    X, y, weight, inv_all = learners.dedupe(np.concatenate(Xs), np.concatenate(ys), np.concatenate(ws))
    X = X.astype(np.float64)
    n_states = int(sum(len(c) for c in chosen))
    weight *= n_states / weight.sum()  # alpha means the same under every weighting
    dead = int(sum(int((s.h_star < 0).sum()) for s in spaces))
    log.info("%s %s: %d training states (%d dead ends left out), %d distinct feature rows, %d WL features",
             name, domain, n_states, dead, len(X), X.shape[1])

    fit_start, extra = time.perf_counter(), {}
    history_header, history = ["round", "train_rmse"], []
    if learner == "ridge":
        w, b = learners.fit_ridge(X, y, weight, opts.alpha)
    elif learner == "rank":
        better, worse = [], []
        for k, (sp, idx) in enumerate(zip(spaces, chosen)):
            pos = np.full(len(sp), -1, dtype=np.int64)
            pos[idx] = inv_all[offsets[k] + inverses[k]]  # state -> global distinct row
            bs, ws_ = learners.rank_pairs(sp.h_star, sp.src, sp.dst)
            ok = (pos[bs] >= 0) & (pos[ws_] >= 0)
            better.append(pos[bs[ok]])
            worse.append(pos[ws_[ok]])
        w, b, extra = learners.fit_rank(X, np.concatenate(better), np.concatenate(worse), opts.alpha,
                                        opts.rank_iterations)
    else:
        booster, rmse = learners.fit_xgb(X, y, weight, opts, seed, threads, "cuda" if _cuda(device) else "cpu")
        history = [[i + 1, r] for i, r in enumerate(rmse)]
    fit_time = time.perf_counter() - fit_start

    identity = {"name": name, "domain": domain, "pddl_domain": pddl_domain, "seed": seed, "learner": learner,
                "dim": int(X.shape[1])}
    if learner == "xgb":
        from genplan.models.transition.xgb import booster_to_bytes

        weights = booster_to_bytes(booster)
    else:
        import torch

        weights = {"w": torch.tensor(w, dtype=torch.float64), "b": torch.tensor(float(b), dtype=torch.float64)}
    config = {"learner": learner, "train": asdict(opts), "encoder": enc_opts}
    envelope = checkpoint.envelope("heuristic", identity, weights, config, encoder.to_dict(),
                                   {"fit_time_s": fit_time}, {})
    from genplan.models.heuristic.model import HeuristicModel

    model = HeuristicModel.from_envelope(envelope, out)
    pred = model.predict(X)
    goal_rows = np.unique(np.concatenate([inv_all[offsets[k] + inverses[k]][sp.is_goal[idx]]
                                          for k, (sp, idx) in enumerate(zip(spaces, chosen))]))
    summary = {
        "model": name, "family": "heuristic", "domain": domain, "seed": seed, "learner": learner,
        "device": "cuda" if learner == "xgb" and _cuda(device) else "cpu", "threads": threads,
        "feature_dim": int(X.shape[1]), "parameters": model.parameters(),
        "train_problems": len(spaces), "train_states": n_states, "dead_ends_excluded": dead,
        "distinct_rows": int(len(X)), "train_rmse": float(np.sqrt(weight @ (pred - y) ** 2 / weight.sum())),
        "goal_rows": int(len(goal_rows)), "goal_abs_h_max": float(np.abs(pred[goal_rows]).max()) if len(goal_rows) else None,
        "fit_time_s": fit_time, **{f"rank_{k}": v for k, v in extra.items()},
        **_validation_scores(model, files.get("validation", []), load),
    }
    if learner == "xgb":
        summary["xgb_trees"] = int(booster.num_boosted_rounds())
    summary["job_time_s"] = time.perf_counter() - start
    summary["cpu_time_s"] = time.process_time() - cpu_start
    envelope["summary"] = summary
    checkpoint.save(out, envelope)
    if log_csv:
        if not history:
            history_header, history = ["step", "train_rmse"], [[1, summary["train_rmse"]]]
        atomic.write_text(log_csv, csv_text([dict(zip(history_header, r)) for r in history], history_header))
    if summary_json:
        atomic.write_text(summary_json, json.dumps(summary, indent=2) + "\n")
    log.info("%s %s (%s): train RMSE %.3f, goal |h| max %s, %.1f s", name, domain, learner, summary["train_rmse"],
             summary["goal_abs_h_max"], summary["job_time_s"])
    return summary


def _cuda(device: str) -> bool:
    if device == "cpu":
        return False
    import torch

    return torch.cuda.is_available()


def _validation_scores(model, files: list, load) -> dict:
    """h along the validation plans: the share of steps where h falls, and RMSE against the
    remaining plan length (an upper bound of h*)."""
    trajs = _files(files, ".json.gz")
    if not trajs:
        return {}
    from genplan.features.base import ProblemView, record_states
    from genplan.features import wlplan_edge as edge
    from wlplan.data import DomainDataset, ProblemDataset

    doc = load(trajs[0])
    enc, falls, steps, sq, n = model.encoder, 0, 0, 0.0, 0
    for record in doc.get("problems", []):
        if not record.get("states"):
            continue
        view = ProblemView.from_record(record)
        conv = edge.ProblemConverter(enc.domain, view.objects, view.statics if enc.statics else frozenset(), view.goal)
        states = [conv.state(s) for s in record_states(record)]
        X = np.asarray(enc._generator().embed(DomainDataset(enc.domain, [ProblemDataset(conv.problem, states)])))
        h = model.predict(X)
        remaining = np.arange(len(h) - 1, -1, -1, dtype=np.float64)
        falls += int((np.diff(h) < 0).sum())
        steps += len(h) - 1
        sq += float(((h - remaining) ** 2).sum())
        n += len(h)
    return {"val_states": n, "val_h_falls": falls / steps if steps else None,
            "val_rmse_plan_length": float(np.sqrt(sq / n)) if n else None}
