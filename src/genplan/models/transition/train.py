"""One training job: (model, domain, seed) -> checkpoint, training log (CSV) and summary (JSON).

The encoder is fitted on the training split (FSF: training and validation, whose problems must
fit its slots); the test splits are never read here, except, with the FSF setting
`slots: all_splits`, the object counts of their problems (genplan.features.fsf_sizing). The validation split selects the epoch (LSTM)
or the boosting round (XGBoost). An LSTM job killed mid-way resumes from `<out>.partial` when
rerun with the same inputs and parameters; a partial state of another job (or a corrupt one) is
set aside as `<out>.partial.stale-<UTC time>` with a warning, and the job starts afresh."""

from __future__ import annotations

import contextlib
import csv
import hashlib
import io
import json
import logging
import time
from dataclasses import asdict
from pathlib import Path

from genplan import atomic
from genplan.errors import GenplanError
from genplan.pddl_io import parse_domain
from genplan.stages.trajectories import domain_file as domain_file_of
from genplan.stages.trajectories import load as load_trajectories

log = logging.getLogger("genplan")


def choose_device(requested: str = "auto") -> str:
    import torch

    if requested not in ("auto", "cpu", "cuda"):
        raise ValueError(f"Unknown value {requested=}. Must be from ['auto', 'cpu', 'cuda']")
    if requested == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    return requested


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
    (genplan.planners.solve.domain_key): a checkpoint is never labelled with another domain."""
    from genplan.planners.solve import domain_key

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


def _sha(value) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()[:16]


def _write_csv(path: Path, header: list[str], rows: list[list]) -> None:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    atomic.write_text(path, buf.getvalue())


def train_model(model: str, domain: str, train_traj: str | Path, val_traj: str | Path, params: dict,
                seed: int, out: str | Path, log_csv: str | Path | None = None,
                summary_json: str | Path | None = None, on_epoch=None, spec: tuple[str, str, str] | None = None) -> dict:
    """Train one model and write its outputs atomically; returns the summary.
    params: {"encoder": {...}, "learner": {...}, "device": "auto" | "cpu" | "cuda", "threads": n}.
    The same seed, params and thread count give the same log and weights byte for byte on the
    same machine (genplan.training.reproducible; benchmarks/reproducibility.py checks it)."""
    with contextlib.ExitStack() as stack:
        return _train_model(stack, model, domain, train_traj, val_traj, params, seed, out, log_csv, summary_json,
                            on_epoch, spec)


def _train_model(stack: contextlib.ExitStack, model, domain, train_traj, val_traj, params, seed, out, log_csv,
                 summary_json, on_epoch, spec) -> dict:
    start = time.perf_counter()
    if spec is None:
        from genplan.models.transition.model import parse_model_name

        spec = parse_model_name(model)  # a named model says its parts
    encoding, learner, mode = spec
    unknown = sorted(set(params) - {"encoder", "learner", "device", "threads"})
    if unknown:
        raise GenplanError(f"unknown training parameters {unknown}")
    out = Path(out)
    train_traj, val_traj = Path(train_traj), Path(val_traj)
    train_records, train_doc = _records(train_traj)
    val_records, val_doc = _records(val_traj)
    # the files stand alone (format 2: the domain's text is stored in them); the encoder reads the
    # domain file when it is made, never later
    with domain_file_of(train_doc, train_traj) as domain_file, domain_file_of(val_doc, val_traj) as val_domain_file:
        pddl_domain = check_domain(domain, domain_file, val_domain_file, train_traj, val_traj)
        # the learners load only now: bad inputs are refused in a second, without torch
        from genplan.datasets.trajectories import count_transitions, embed_trajectories, transition_rows
        from genplan.features import make_encoder
        from genplan.models import checkpoint
        from genplan.models.transition import lstm, xgb

        from genplan.training.reproducible import cpu_isa, deterministic

        threads = int(params.get("threads", 1))
        stack.enter_context(deterministic(seed, threads))  # seeds, threads, deterministic kernels
        device = choose_device(params.get("device", "auto"))
        encoder = make_encoder(encoding, domain_file, **params.get("encoder", {}))
    encoder.fit(train_records + val_records if encoder.fit_on_validation else train_records)
    sized_on = None
    if getattr(encoder, "slots", None) == "all_splits":  # FSF sized on every split's object counts
        from genplan.features.fsf_sizing import benchmark_views

        views, bench = benchmark_views(train_traj, pddl_domain)
        encoder.widen(views)
        sized_on = len(views)
        log.info("FSF slots sized on the %d problems of every split in %s: %s", sized_on, bench, encoder.capacity)
    train, val = embed_trajectories(encoder, train_records), embed_trajectories(encoder, val_records)
    # the domain as the trajectories name it, not the temporary copy: the same job, the same encoder
    enc_dict = {**encoder.to_dict(), "domain_file": str(Path(train_doc["domain_file"]))}
    job = {"model": model, "domain": domain, "seed": seed, "params": params, "encoder": _sha(enc_dict)}
    identity = {"name": model, "domain": domain, "pddl_domain": pddl_domain,
                "encoding": encoding, "learner": learner, "mode": mode, "seed": seed, "dim": encoder.dim}
    ckpt = {}
    summary = {"model": model, "domain": domain, "seed": seed, "encoding": encoding, "learner": learner,
               "mode": mode, "device": device, "feature_dim": encoder.dim,
               "train_problems": len(train), "train_transitions": count_transitions(train),
               "val_problems": len(val), "val_transitions": count_transitions(val)}
    if sized_on is not None:
        summary.update(fsf_slots="all_splits", fsf_sized_on_problems=sized_on)
    if getattr(encoder, "statics", True) is False:  # WL without static atoms, training and inference
        summary["wl_statics"] = False
    summary["threads"] = threads  # results are reproducible for the same thread count
    summary["cpu_isa"] = cpu_isa()  # ... and the same instruction set (training.reproducible)
    log.info("%s %s seed %d: D = %d, %d training transitions, device %s", model, domain, seed,
             encoder.dim, summary["train_transitions"], device)

    if learner == "lstm":
        opts = _options(lstm.LSTMTraining, params.get("learner", {}), "LSTM")
        net = lstm.TransitionLSTM(lstm.LSTMConfig(dim=encoder.dim, mode=mode))
        partial = out.with_name(out.name + ".partial")
        state = lstm.train_lstm(net, train, val, opts, seed, device, partial, job, on_epoch=on_epoch)
        ckpt.update(config={"network": asdict(net.cfg), "training": asdict(opts), "params": params},
                    weights={k: v.cpu() for k, v in state["best_weights"].items()},
                    training={k: state[k] for k in ("epoch", "best_epoch", "best_val_loss", "optimizer")})
        summary.update(lstm_parameters=lstm.parameter_count(net), epochs=state["epoch"],
                       best_epoch=state["best_epoch"], best_val_loss=state["best_val_loss"],
                       resumed_from_epoch=state["resumed_from"], train_time_s=state["train_time_s"],
                       divergences=state["divergences"])
        header, history = ["epoch", "train_loss", "val_loss"], state["history"]
    else:
        opts = _options(xgb.XGBTraining, params.get("learner", {}), "XGBoost")
        X, y = transition_rows(train, mode)
        Xv, yv = transition_rows(val, mode)
        booster, rec = xgb.train_xgb(X, y, Xv, yv, opts, seed, device, threads)
        ckpt.update(config={"training": asdict(opts), "params": params}, weights=xgb.booster_to_bytes(booster),
                    training={k: rec[k] for k in ("rounds", "best_iteration", "best_val_loss")})
        stats = xgb.tree_stats(booster)
        summary.update(xgb_trees=stats["trees"], xgb_nodes=stats["nodes"], rounds=rec["rounds"],
                       best_iteration=rec["best_iteration"], best_val_loss=rec["best_val_loss"],
                       train_time_s=rec["train_time_s"])
        header, history = ["round", "train_rmse", "val_rmse"], rec["history"]
        partial = None

    summary["job_time_s"] = time.perf_counter() - start
    checkpoint.save(out, checkpoint.envelope("transition", identity, ckpt["weights"], ckpt["config"], enc_dict,
                                             ckpt["training"], summary))
    if log_csv:
        _write_csv(Path(log_csv), header, history)
    if summary_json:
        atomic.write_text(summary_json, json.dumps(summary, indent=2) + "\n")
    if partial is not None:
        partial.unlink(missing_ok=True)
    return summary
