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

import logging
import time
from dataclasses import asdict, dataclass, fields
from pathlib import Path

import numpy as np

from genplan.errors import GenplanError
from genplan.models.heuristic import learners
from genplan.progress import progress

log = logging.getLogger("genplan")


def _files(files: list, suffix: str) -> list[Path]:
    return [Path(f) for f in files if str(f).endswith(suffix)]


def _options(train: dict) -> learners.HeuristicTraining:
    names = {f.name for f in fields(learners.HeuristicTraining)}
    unknown = sorted(set(train) - names)
    if unknown:
        raise GenplanError(f"unknown heuristic training settings {unknown} (known: {sorted(names)})")
    try:
        return learners.HeuristicTraining(**train)
    except ValueError as exc:
        raise GenplanError(f"heuristic training settings: {exc}") from None


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


@dataclass
class Features:
    """The training states' WL features merged into distinct weighted rows (`learners.dedupe`):
    X, y, weight; `rows[k]` maps the chosen states of space k to their row of X."""
    X: np.ndarray
    y: np.ndarray
    weight: np.ndarray
    rows: list[np.ndarray]
    n_states: int
    goal_rows: np.ndarray | None = None  # rows of X holding a goal state


def _read(domain: str, files: dict, enc_opts: dict):
    """The training trajectories document, the state spaces and the encoder of the domain (its
    WL colours not collected yet); GenplanError for missing files or another domain's data."""
    from genplan.datasets.statespace import load_split
    from genplan.domains import domain_key
    from genplan.features.wl import WLEncoder
    from genplan.formats.trajectories import domain_file, load

    tables = _files(files.get("train", []), ".csv")
    trajs = _files(files.get("train", []), ".json.gz")
    if len(tables) != 1 or not trajs:
        raise GenplanError("the heuristic family trains on one state-space table (statespaces/<benchmark>/<domain>/"
                           f"train.csv, its .npz files beside it) and the training trajectories; got {files.get('train')}")
    doc = load(trajs[0])
    spaces = load_split(tables[0].with_suffix(""))
    with domain_file(doc, trajs[0]) as dom_path:
        if domain_key(dom_path) != domain:
            raise GenplanError(f"--domain {domain!r} is not the domain of the training data ({domain_key(dom_path)!r})",
                               trajs[0])
        encoder = WLEncoder(dom_path, **enc_opts)
    return doc, spaces, encoder


def _features(name: str, doc: dict, spaces, chosen, encoder, weighting: str):
    """The encoder with the colours of the chosen training states (and only those) and their
    features, space by space, merged into distinct weighted rows."""
    from wlplan.data import DomainDataset

    datasets = [_dataset(encoder, sp, idx) for sp, idx in progress(list(zip(spaces, chosen)), total=len(spaces),
                                                                     desc=f"{name} states")]
    encoder, fg = encoder.collected(DomainDataset(encoder.domain, [d for d, idx in zip(datasets, chosen) if len(idx)]),
                                    doc["domain_file"])
    Xs, ys, ws, inverses = [], [], [], []
    for data, sp, idx in progress(list(zip(datasets, spaces, chosen)), total=len(spaces), desc=f"{name} features"):
        X = np.zeros((0, fg.get_n_features()), dtype=np.float32)  # no state of this space drawn
        if len(idx):
            X = np.asarray(fg.embed(DomainDataset(encoder.domain, [data])), dtype=np.float32)
            X = X.reshape(len(idx), fg.get_n_features())
        h = sp.h_star[idx]
        Xu, yu, wu, inv = learners.dedupe(X, h.astype(np.float64), learners.state_weights(h, weighting))
        Xs.append(Xu)
        ys.append(yu)
        ws.append(wu)
        inverses.append(inv)
    offsets = np.cumsum([0] + [len(x) for x in Xs])
    X, y, weight, inv_all = learners.dedupe(np.concatenate(Xs), np.concatenate(ys), np.concatenate(ws))
    n_states = int(sum(len(c) for c in chosen))
    weight *= n_states / weight.sum()  # alpha means the same under every weighting
    rows = [inv_all[offsets[k] + inverses[k]] for k in range(len(spaces))]
    return encoder, Features(X.astype(np.float64), y, weight, rows, n_states)


def _fit(learner: str, feats: Features, spaces, chosen, opts, seed: int, threads: int, device: str):
    """(weights of the checkpoint, extra summary fields, training log rows) of one learner."""
    X, y, weight = feats.X, feats.y, feats.weight
    if learner == "xgb":
        from genplan.models.boosters import booster_to_bytes

        booster, rmse = learners.fit_xgb(X, y, weight, opts, seed, threads, "cuda" if _cuda(device) else "cpu")
        return booster_to_bytes(booster), {"xgb_trees": int(booster.num_boosted_rounds())}, \
            [[i + 1, r] for i, r in enumerate(rmse)]
    extra, prefix = {}, "rank_"
    if learner == "ridge":
        w, b = learners.fit_ridge(X, y, weight, opts.alpha)
    elif learner == "svr":
        w, b, extra = learners.fit_svr(X, y, weight, opts.alpha, opts.epsilon, opts.svr_iterations)
        prefix = "svr_"
    else:
        better, worse = [], []
        for sp, idx, rows in zip(spaces, chosen, feats.rows):
            pos = np.full(len(sp), -1, dtype=np.int64)
            pos[idx] = rows  # state -> global distinct row
            bs, ws_ = learners.rank_pairs(sp.h_star, sp.src, sp.dst)
            ok = (pos[bs] >= 0) & (pos[ws_] >= 0)
            better.append(pos[bs[ok]])
            worse.append(pos[ws_[ok]])
        w, b, extra = learners.fit_rank(X, np.concatenate(better), np.concatenate(worse), opts.alpha,
                                        opts.rank_iterations)
    import torch

    weights = {"w": torch.tensor(w, dtype=torch.float64), "b": torch.tensor(float(b), dtype=torch.float64)}
    return weights, {f"{prefix}{k}": v for k, v in extra.items()}, []


def _fit_scores(model, feats) -> dict:
    """The fit on the (regression) training rows: weighted RMSE against the target, and |h| at
    the goal states' rows."""
    pred = model.predict(feats.X)
    goal_rows = feats.goal_rows
    w = feats.weight
    return {"train_rmse": float(np.sqrt(w @ (pred - feats.y) ** 2 / w.sum())), "goal_rows": int(len(goal_rows)),
            "goal_abs_h_max": float(np.abs(pred[goal_rows]).max()) if len(goal_rows) else None}


def _from_statespaces(name, domain, files, learner, opts, enc_opts, seed, threads, device):
    """Every state of the training state spaces (or `max_states` of them) with its h*."""
    doc, spaces, encoder = _read(domain, files, enc_opts)
    chosen = _select(spaces, opts, learner, np.random.default_rng(seed))
    encoder, feats = _features(name, doc, spaces, chosen, encoder, opts.weighting)
    feats.goal_rows = np.unique(np.concatenate([rows[sp.is_goal[idx]]
                                                for sp, idx, rows in zip(spaces, chosen, feats.rows)]))
    dead = int(sum(int((s.h_star < 0).sum()) for s in spaces))
    log.info("%s %s: %d training states (%d dead ends left out), %d distinct feature rows, %d WL features",
             name, domain, feats.n_states, dead, feats.X.shape[0], feats.X.shape[1])
    fit_start = time.perf_counter()
    weights, extra, history = _fit(learner, feats, spaces, chosen, opts, seed, threads, device)
    fields_ = {"training_data": "statespace", "target": "h*", "train_problems": len(spaces),
               "train_states": feats.n_states, "dead_ends_excluded": dead}
    return encoder, feats, spaces[0].domain_name, fields_, (weights, extra, history, time.perf_counter() - fit_start)


def _from_plans(name, domain, files, learner, opts, enc_opts, seed, threads, device):
    """The plan states with their plan length to go and, for `rank`, their siblings (from_plans)."""
    from genplan.models.heuristic import XGB_FROM_PLANS, from_plans

    if learner == "xgb":
        raise GenplanError(XGB_FROM_PLANS)
    doc, traj, problems, encoder = from_plans.read(domain, files, enc_opts)
    encoder, data = from_plans.plan_data(name, doc, traj, problems, encoder, learner, opts, seed)
    feats = Features(data.X, data.y, data.weight, [], data.counts["plan_states"], data.goal_rows)
    fit_start = time.perf_counter()
    if learner == "rank":
        import torch

        w, b, extra = learners.fit_rank(data.X_rank, data.better, data.worse, opts.alpha, opts.rank_iterations)
        weights = {"w": torch.tensor(w, dtype=torch.float64), "b": torch.tensor(float(b), dtype=torch.float64)}
        fit = (weights, {f"rank_{k}": v for k, v in extra.items()}, [])
    else:
        fit = _fit(learner, feats, [], [], opts, seed, threads, device)
    fields_ = {"training_data": "plans", "target": from_plans.TARGET, **data.counts}
    return encoder, feats, doc["domain_name"], fields_, (*fit, time.perf_counter() - fit_start)


def train_heuristic(name: str, entry: dict, domain: str, files: dict, seed: int, out, log_csv=None,
                    summary_json=None, threads: int = 1, device: str = "auto") -> dict:
    """One training job (genplan.training.job: the same envelope, log, summary and clock as every
    family's); returns the summary."""
    from genplan import checkpoint
    from genplan.formats.trajectories import load
    from genplan.models.heuristic.model import HeuristicModel
    from genplan.training.job import Job

    job = Job("heuristic", name, domain, seed, out, log_csv, summary_json, threads, device)
    learner = entry.get("learner", "ridge")
    if learner not in learners.LEARNERS:
        raise GenplanError(f"Unknown value {learner=}. Must be from {list(learners.LEARNERS)}")
    opts = _options(entry.get("train") or {})
    enc_opts = {"iterations": 2, "multiset_hash": True, "statics": True, **(entry.get("encoder") or {})}
    if opts.data == "plans":
        encoder, feats, pddl_domain, fields_, fit = _from_plans(name, domain, files, learner, opts, enc_opts, seed,
                                                                 threads, device)
    else:
        encoder, feats, pddl_domain, fields_, fit = _from_statespaces(name, domain, files, learner, opts, enc_opts,
                                                                       seed, threads, device)
    weights, extra, history, fit_time = fit
    identity = job.identity(pddl_domain, learner=learner, dim=int(feats.X.shape[1]))
    config = {"learner": learner, "train": asdict(opts), "encoder": enc_opts}
    training = {"fit_time_s": fit_time}
    model = HeuristicModel.from_envelope(checkpoint.envelope("heuristic", identity, weights, config,
                                                             encoder.to_dict(), training, {}), out)
    xgb_trees = extra.pop("xgb_trees", None)
    summary = {
        "model": name, "family": "heuristic", "system": model.system, "variant": model.variant, "domain": domain,
        "seed": seed, "learner": learner,
        "device": "cuda" if learner == "xgb" and _cuda(device) else "cpu", "threads": threads,
        "feature_dim": int(feats.X.shape[1]), "parameters": model.parameters(),
        **fields_, "distinct_rows": int(feats.X.shape[0]), **_fit_scores(model, feats),
        "fit_time_s": fit_time, **extra, **_validation_scores(model, files.get("validation", []), load),
    }
    if xgb_trees is not None:
        summary["xgb_trees"] = xgb_trees
    summary.update(job.times())
    job.save(identity, weights, config, encoder.to_dict(), training, summary, _log(summary, history))
    log.info("%s %s (%s): train RMSE %.3f, goal |h| max %s, %.1f s", name, domain, learner, summary["train_rmse"],
             summary["goal_abs_h_max"], summary["job_time_s"])
    return summary


def _log(summary: dict, history: list) -> tuple[list[str], list]:
    """The training log: the booster's RMSE per round, else one row of the fit's RMSE."""
    if history:
        return ["round", "train_rmse"], history
    return ["step", "train_rmse"], [[1, summary["train_rmse"]]]


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
    from wlplan.data import DomainDataset, ProblemDataset

    from genplan.features import wlplan_edge as edge
    from genplan.features.base import ProblemView, record_states

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
