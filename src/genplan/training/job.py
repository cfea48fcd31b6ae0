"""One training job of every family: (model, domain, seed) -> checkpoint envelope, training log
(CSV) and summary (JSON), the same for every family. The torch families train in the shared loop
through it (`fit`); the heuristic family, which fits in closed form or with XGBoost, uses only its
identity, clock and outputs (`times`, `save`).

A family's `train.py` reads its data, then, inside `Job.seeded()`, builds its network, loss,
batches and selection and hands them to `Job.fit`; it composes its summary (`Job.outcome` gives
the closing fields) and log rows (header and rows: its own columns) and ends with `Job.save`
(`Job.save_model` for the sequence families' models). The job owns the rest:

- seeding and threads: Python's, NumPy's and torch's generators seeded from the job's seed,
  `threads` torch threads and deterministic kernels (genplan.training.reproducible), undone on
  exit; the network is made inside, so its initial weights are the seed's;
- the device (`choose_device`: `auto` is CUDA when present);
- the partial state `<out>.partial` of the job's key (`key`, with `digest` of the data) from which
  a killed job resumes; `fit` runs the loop (genplan.training.loop) and loads the best weights;
- the checkpoint envelope (genplan.checkpoint), the log and the summary, written
  atomically, and the partial state removed;
- the summary's clock, under one name for every family (`TIMES`): `job_time_s` (wall) and
  `job_cpu_s` (this process's CPU time, threads summed), stamped by `save` where a family has not
  set them, so that no summary lacks what the reports read (genplan.report.collect.REPORTED)."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from genplan import atomic, checkpoint
from genplan.training import partial_state
from genplan.training.reproducible import deterministic

DEVICES = ("auto", "cpu", "cuda")
TIMES = ("job_time_s", "job_cpu_s")  # every summary's clock (the heuristic family's old `cpu_time_s`: job_cpu_s)


def choose_device(requested: str = "auto") -> str:
    """`auto`: CUDA when present, else the CPU; `cpu` and `cuda` as asked."""
    import torch

    if requested not in DEVICES:
        raise ValueError(f"Unknown value {requested=}. Must be from {list(DEVICES)}")
    if requested == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    return requested


def digest(value) -> str:
    """A short fingerprint (SHA-256 of the JSON) of a job's data, for its partial state's key."""
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()[:16]


def write_csv(path: str | Path, header: list[str], rows: Iterable[list]) -> None:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    atomic.write_text(path, buf.getvalue())


@dataclass
class Job:
    """A training job's identity and outputs: the arguments of every family's `train`."""
    family: str
    name: str
    domain: str
    seed: int
    out: Path
    log_csv: str | Path | None = None
    summary_json: str | Path | None = None
    threads: int = 1
    requested_device: str = "auto"
    on_epoch: Callable[[int], None] | None = None
    start: float = field(default_factory=time.perf_counter)
    start_cpu: float = field(default_factory=time.process_time)  # this process's CPU time at the start
    device: str = field(init=False)  # where it trains: `choose_device(requested_device)`

    def __post_init__(self):
        self.out = Path(self.out)
        self.device = choose_device(self.requested_device)

    @property
    def partial(self) -> Path:
        return self.out.with_name(self.out.name + ".partial")

    def seeded(self):
        """A context: every generator seeded, `threads` torch threads, deterministic kernels."""
        return deterministic(self.seed, int(self.threads))

    def identity(self, pddl_domain: str, **more) -> dict:
        """The checkpoint's identity of the model: name, domain, PDDL domain, seed (and `more`)."""
        return {"name": self.name, "domain": self.domain, "pddl_domain": pddl_domain, "seed": self.seed, **more}

    def key(self, **more) -> dict:
        """The partial state's job identity: name, domain, seed and `more` (settings, data digest)."""
        return {"name": self.name, "domain": self.domain, "seed": self.seed, **more}

    def fit(self, net, loss_fn: Callable, make_batches: Callable, cfg, *, select: Callable, key: dict,
            steps_per_epoch: int | None = None, score_name: str = "val loss", desc: str | None = None,
            before_step: Callable[[int], None] | None = None):
        """Train `net` in the shared loop, resuming this job's partial state of `key`; the best
        weights are loaded into `net`. Returns the loop's TrainState. `before_step`: the loop's hook
        (genplan.training.loop)."""
        from genplan.training.loop import fit

        state = fit(net, loss_fn, make_batches, cfg, seed=self.seed, device=self.device, select=select,
                    partial=self.partial, job=key, on_epoch=self.on_epoch, steps_per_epoch=steps_per_epoch,
                    desc=desc or f"{self.name} {self.domain}", score_name=score_name, before_step=before_step)
        net.load_state_dict(state.best_weights)
        return state

    def outcome(self, state, **more) -> dict:
        """The summary's closing fields: epochs, best epoch and score, divergences, `more`, the epoch
        resumed from, optimiser steps, training and job times (wall), and the job's CPU time (this
        process's, threads summed; a resumed job's counts only the part since it resumed: the
        training compute of the budget curves (genplan report budget), which wall time on a shared machine is not)."""
        return {"epochs": state.epoch, "best_epoch": state.best_epoch, "best_score": state.best_score,
                "divergences": state.divergences, **more, "resumed_from_epoch": state.resumed_from,
                "optimizer_steps": state.step, "train_time_s": state.train_time_s, **self.times()}

    def times(self) -> dict:
        """The job's clock so far (`TIMES`): wall seconds and this process's CPU seconds since it began."""
        return {"job_time_s": time.perf_counter() - self.start, "job_cpu_s": time.process_time() - self.start_cpu}

    def save(self, identity: dict, weights, config: dict, vocabulary, training: dict, summary: dict,
             log: tuple[list[str], Iterable[list]]) -> None:
        """Write the checkpoint envelope (`weights`: a network, saved as its state dict on the CPU, or
        bytes), the log CSV (header, rows) and the summary JSON; remove the partial state (and its best
        weights). The summary's clock (`TIMES`) is added where the family has not set it."""
        for key, value in self.times().items():
            summary.setdefault(key, value)
        if hasattr(weights, "state_dict"):
            weights = {k: v.cpu() for k, v in weights.state_dict().items()}
        checkpoint.save(self.out, checkpoint.envelope(self.family, identity, weights, config, vocabulary, training,
                                                      summary))
        if self.log_csv:
            write_csv(self.log_csv, *log)
        if self.summary_json:
            atomic.write_text(self.summary_json, json.dumps(summary, indent=2) + "\n")
        partial_state.remove(self.partial)

    def save_model(self, model, network: dict, domain_pddl: str, state, summary: dict,
                   log: tuple[list[str], Iterable[list]]) -> None:
        """`save` for a sequence family's model (identity, vocab, net, settings): its config holds the
        settings, the network's arguments and the domain's text; its training record the epochs, the
        best epoch and score and the divergences."""
        config = {"settings": {**model.settings.to_dict(), "family": self.family}, "network": network,
                  "domain_pddl": domain_pddl}
        training = {"epoch": state.epoch, "best_epoch": state.best_epoch, "best_score": state.best_score,
                    "divergences": state.divergences}
        self.save(model.identity, model.net, config, model.vocab.to_dict(), training, summary, log)
