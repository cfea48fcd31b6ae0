"""One transition training job: (model, domain, seed) -> checkpoint, training log (CSV) and summary
(JSON), in the shared training job (genplan.training.job).

The encoder is fitted on the training split (FSF: training and validation, whose problems must
fit its slots); the test splits are never read here, except, with the FSF setting
`slots: all_splits`, the object counts of their problems (genplan.features.fsf_sizing). The
validation split selects the epoch (LSTM) or the boosting round (XGBoost). An LSTM job killed
mid-way resumes from `<out>.partial` when rerun with the same inputs and parameters; a partial
state of another job (or a corrupt one) is set aside as `<out>.partial.stale-<UTC time>` with a
warning, and the job starts afresh."""

from __future__ import annotations

import contextlib
import logging
import time
from dataclasses import asdict
from pathlib import Path

from genplan.errors import GenplanError
from genplan.formats.trajectories import domain_file as domain_file_of
from genplan.formats.trajectories import load as load_trajectories
from genplan.pddl_io import parse_domain

log = logging.getLogger("genplan")

def _options(cls, values: dict, what: str):
    unknown = sorted(set(values) - set(cls.__dataclass_fields__))
    if unknown:
        raise GenplanError(f"unknown {what} parameters {unknown}; known: {sorted(cls.__dataclass_fields__)}")
    return cls(**values)


def _records(path: Path) -> tuple[list[dict], dict]:
    """Every trajectory record (one-state trajectories too: their states enter the WL vocabulary,
    as in the reference) and the loaded document; at least one record must have a transition."""
    doc = load_trajectories(path)
    records = doc["problems"]
    if not any(len(r["states"]) > 1 for r in records):
        raise GenplanError("no trajectory with at least one transition", path)
    return records, doc


def check_domain(domain: str, domain_file: Path, val_domain_file: Path, train_traj: Path, val_traj: Path) -> str:
    """The PDDL domain name of the training data; GenplanError unless the validation data is of the
    same domain and `domain` (the workflow's key) is the key of that domain
    (genplan.domains.domain_key): a checkpoint is never labelled with another domain."""
    from genplan.domains import domain_key

    name = parse_domain(domain_file).name
    val_name = parse_domain(val_domain_file).name
    if name != val_name:
        raise GenplanError(f"validation data of domain {val_name!r}, but the training data ({train_traj}) is of "
                           f"domain {name!r}", val_traj)
    key = domain_key(domain_file)
    if domain != key:
        raise GenplanError(f"--domain {domain!r} is not the domain of the training data: its trajectories are of "
                           f"domain {key!r} (PDDL domain {name!r})", train_traj)
    return name


def train_model(model: str, domain: str, train_traj: str | Path, val_traj: str | Path, params: dict,
                seed: int, out: str | Path, log_csv: str | Path | None = None,
                summary_json: str | Path | None = None, on_epoch=None,
                spec: tuple[str, str, str] | None = None) -> dict:
    """Train one model and write its outputs atomically; returns the summary.
    params: {"encoder": {...}, "learner": {...}, "device": "auto" | "cpu" | "cuda", "threads": n}.
    The same seed, params and thread count give the same log and weights byte for byte on the
    same machine (genplan.training.reproducible; perf/reproducibility.py checks it)."""
    start = time.perf_counter()
    if spec is None:
        from genplan.models.transition.model import parse_model_name

        spec = parse_model_name(model)  # a named model says its parts
    unknown = sorted(set(params) - {"encoder", "learner", "device", "threads"})
    if unknown:
        raise GenplanError(f"unknown training parameters {unknown}")
    train_traj, val_traj = Path(train_traj), Path(val_traj)
    train_records, train_doc = _records(train_traj)
    val_records, val_doc = _records(val_traj)
    # the files stand alone (format 2: the domain's text is stored in them); the encoder reads the
    # domain file when it is made, never later
    with contextlib.ExitStack() as stack:
        with domain_file_of(train_doc, train_traj) as dom, domain_file_of(val_doc, val_traj) as val_dom:
            pddl_domain = check_domain(domain, dom, val_dom, train_traj, val_traj)
            # the learners load only now: bad inputs are refused in a second, without torch
            from genplan.features import make_encoder
            from genplan.training.job import Job

            job = Job("transition", model, domain, seed, out, log_csv, summary_json, int(params.get("threads", 1)),
                      params.get("device", "auto"), on_epoch, start)
            stack.enter_context(job.seeded())  # seeds, threads, deterministic kernels
            encoder = make_encoder(spec[0], dom, **params.get("encoder", {}))
        return _train(job, encoder, spec, pddl_domain, train_records, val_records, train_doc, train_traj, params)


def _train(job, encoder, spec: tuple[str, str, str], pddl_domain: str, train_records: list, val_records: list,
           train_doc: dict, train_traj: Path, params: dict) -> dict:
    from genplan.datasets.trajectories import embed_trajectories
    from genplan.training.job import digest

    encoding, learner, mode = spec
    encoder.fit(train_records + val_records if encoder.fit_on_validation else train_records)
    sized_on = _size_fsf_slots(encoder, train_traj, pddl_domain)
    train, val = embed_trajectories(encoder, train_records), embed_trajectories(encoder, val_records)
    # the domain as the trajectories name it, not the temporary copy: the same job, the same encoder
    enc_dict = {**encoder.to_dict(), "domain_file": str(Path(train_doc["domain_file"]))}
    key = {"model": job.name, "domain": job.domain, "seed": job.seed, "params": params, "encoder": digest(enc_dict)}
    identity = {"name": job.name, "domain": job.domain, "pddl_domain": pddl_domain,
                "encoding": encoding, "learner": learner, "mode": mode, "seed": job.seed, "dim": encoder.dim}
    summary = _summary_head(job, spec, encoder, train, val, sized_on)
    fit = _fit_lstm if learner == "lstm" else _fit_xgb
    weights, config, training, log_rows = fit(job, encoder, mode, train, val, params, key, summary)
    summary["job_time_s"] = time.perf_counter() - job.start
    job.save(identity, weights, config, enc_dict, training, summary, log_rows)
    return summary


def _size_fsf_slots(encoder, train_traj: Path, pddl_domain: str) -> int | None:
    """With FSF `slots: all_splits`, widen the encoder to every split's object counts; their number."""
    if getattr(encoder, "slots", None) != "all_splits":
        return None
    from genplan.features.fsf_sizing import benchmark_views

    views, bench = benchmark_views(train_traj, pddl_domain)
    encoder.widen(views)
    log.info("FSF slots sized on the %d problems of every split in %s: %s", len(views), bench, encoder.capacity)
    return len(views)


def _summary_head(job, spec: tuple[str, str, str], encoder, train: list, val: list, sized_on: int | None) -> dict:
    """The summary's fields before the learner's: the model, its data and where it ran."""
    from genplan.datasets.trajectories import count_transitions
    from genplan.training.reproducible import cpu_isa

    encoding, learner, mode = spec
    summary = {"model": job.name, "family": "transition", "system": f"{encoding}_{learner}", "variant": mode,
               "domain": job.domain, "seed": job.seed, "encoding": encoding, "learner": learner,
               "mode": mode, "device": job.device, "feature_dim": encoder.dim,
               "train_problems": len(train), "train_transitions": count_transitions(train),
               "val_problems": len(val), "val_transitions": count_transitions(val)}
    if sized_on is not None:
        summary.update(fsf_slots="all_splits", fsf_sized_on_problems=sized_on)
    if getattr(encoder, "statics", True) is False:  # WL without static atoms, training and inference
        summary["wl_statics"] = False
    summary["threads"] = job.threads  # results are reproducible for the same thread count
    summary["cpu_isa"] = cpu_isa()  # ... and the same instruction set (training.reproducible)
    log.info("%s %s seed %d: D = %d, %d training transitions, device %s", job.name, job.domain, job.seed,
             encoder.dim, summary["train_transitions"], job.device)
    return summary


def _fit_lstm(job, encoder, mode: str, train: list, val: list, params: dict, key: dict, summary: dict):
    """Train the LSTM in the shared job; (weights, config, training record, log) for the job's save,
    its fields added to `summary`."""
    from genplan.models.transition import lstm

    opts = _options(lstm.LSTMTraining, params.get("learner", {}), "LSTM")
    net = lstm.TransitionLSTM(lstm.LSTMConfig(dim=encoder.dim, mode=mode))
    loss_fn, make_batches, select = lstm.training_parts(net, train, val, opts, job.device)
    state = job.fit(net, loss_fn, make_batches, lstm.loop_config(opts), select=select, key=key,
                    desc=f"LSTM {mode}", score_name="validation loss")
    summary.update(lstm_parameters=lstm.parameter_count(net), epochs=state.epoch, best_epoch=state.best_epoch,
                   best_val_loss=state.best_score, resumed_from_epoch=state.resumed_from,
                   train_time_s=state.train_time_s, divergences=state.divergences)
    training = {"epoch": state.epoch, "best_epoch": state.best_epoch, "best_val_loss": state.best_score,
                "optimizer": state.optimizer}
    history = [[r["epoch"], r["train_loss"], r["score"]] for r in state.history]
    config = {"network": asdict(net.cfg), "training": asdict(opts), "params": params}
    return net, config, training, (["epoch", "train_loss", "val_loss"], history)


def _fit_xgb(job, encoder, mode: str, train: list, val: list, params: dict, key: dict, summary: dict):
    """Train the XGBoost booster (no partial state: `key` unused); as `_fit_lstm`."""
    from genplan.datasets.trajectories import transition_rows
    from genplan.models.boosters import booster_to_bytes, tree_stats
    from genplan.models.transition import xgb

    opts = _options(xgb.XGBTraining, params.get("learner", {}), "XGBoost")
    X, y = transition_rows(train, mode)
    Xv, yv = transition_rows(val, mode)
    booster, rec = xgb.train_xgb(X, y, Xv, yv, opts, job.seed, job.device, job.threads)
    stats = tree_stats(booster)
    summary.update(xgb_trees=stats["trees"], xgb_nodes=stats["nodes"], rounds=rec["rounds"],
                   best_iteration=rec["best_iteration"], best_val_loss=rec["best_val_loss"],
                   train_time_s=rec["train_time_s"])
    training = {k: rec[k] for k in ("rounds", "best_iteration", "best_val_loss")}
    config = {"training": asdict(opts), "params": params}
    return booster_to_bytes(booster), config, training, (["round", "train_rmse", "val_rmse"], rec["history"])
