"""Reproducibility check: retrain transition models twice with the same seed,
configuration and thread count and compare the training logs and the checkpoints' weights byte
for byte. Prints PASS or FAIL per model and exits non-zero on any FAIL.

The models are entries of a workflow config (paper.yaml by default) trained on that config's
committed trajectories; an LSTM's epochs can be cut (`--lstm-epochs`) to keep the check short
(Blocksworld's paper models, the default, retrain in 10 to 30 s each). For information it also compares the retrained log with the committed one
(results/models/<config>/<domain>/<model>/seed<seed>/training.csv), row by row: a committed run
with another thread count (or on another machine) may differ in the last digits.

    python perf/reproducibility.py --domain blocks --models wl_xgb_delta wl_lstm_state \\
        --seed 14 --threads 1

`--audit` trains each model once and checks the committed log instead: FAIL where the committed
log is not what the current code retrains to (a log written before training was made
deterministic, say), so its committed evaluations are not reproducible from the code as it is.

    python perf/reproducibility.py --audit --config workflow/configs/paper-cpu.yaml \\
        --domain gripper --models wl_lstm_state wl_lstm_delta --seed 13

A log is reproducible on the same instruction set (genplan.training.reproducible): the committed
paper-cpu LSTM logs were written on an AVX2 machine, and an AVX-512 machine retrains them byte for
byte with `--cpu-isa AVX2` (oneDNN's DNNL_MAX_CPU_ISA); every line says which set was in force.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import torch
import yaml

from genplan import checkpoint
from genplan.models.transition import family
from genplan.training.reproducible import cpu_isa, pin_cpu_isa


def _same_weights(a, b) -> bool:
    if isinstance(a, (bytes, bytearray)):
        return bytes(a) == bytes(b)
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def _train(name: str, settings: dict, domain: str, data: dict, seed: int, out_dir: Path, threads: int):
    out = out_dir / "model.ckpt"
    summary = family.train(name, settings, domain, data, seed, out, out_dir / "training.csv",
                           out_dir / "summary.json", threads=threads, device="cpu")
    return (out_dir / "training.csv").read_bytes(), checkpoint.read(out)["weights"], summary


def _committed(log: bytes, path: Path) -> str:
    if not path.exists():
        return f"no committed log at {path}"
    ours, theirs = log.decode().splitlines(), path.read_text().splitlines()
    same = next((i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b), min(len(ours), len(theirs)))
    if same == len(ours) == len(theirs):
        return f"identical to the committed log {path}"
    if same == min(len(ours), len(theirs)):
        return f"the first {same - 1} rows identical to the committed log {path} ({len(theirs) - 1} rows)"
    return f"differs from the committed log {path} from row {same} on (another thread count or CPU instruction set?)"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default="workflow/configs/paper.yaml")
    ap.add_argument("--domain", default="blocks")
    ap.add_argument("--models", nargs="+", default=["wl_xgb_delta", "wl_lstm_state"])
    ap.add_argument("--seed", type=int, default=14)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--lstm-epochs", type=int, default=0, help="0: the config's epochs (Blocksworld: 500, ~30 s)")
    ap.add_argument("--trajectories", default="results/trajectories/paper", help="DIR/<domain>/{train,validation}.json.gz")
    ap.add_argument("--committed", default="results/models/paper", help="committed logs: DIR/<domain>/<model>/seed<seed>/")
    ap.add_argument("--audit", action="store_true", help="train once; FAIL where the committed log differs")
    ap.add_argument("--cpu-isa", help="cap oneDNN's instruction set (e.g. AVX2, that of the committed LSTM logs)")
    a = ap.parse_args()
    if a.cpu_isa:
        pin_cpu_isa(a.cpu_isa)  # before the first oneDNN call of this process
    print(f"CPU instruction set: {cpu_isa()}", flush=True)
    config = yaml.safe_load(Path(a.config).read_text())
    traj = Path(a.trajectories) / a.domain
    data = {"train": [traj / "train.json.gz"], "validation": [traj / "validation.json.gz"]}
    failed = []
    with tempfile.TemporaryDirectory(prefix="genplan-repro-") as tmp:
        for name in a.models:
            settings = dict(config["models"][name])
            if settings.get("family") != "transition":
                sys.exit(f"{name}: only transition models are checked here")
            if settings["learner"] == "lstm" and a.lstm_epochs:
                settings["train"] = {**settings.get("train", {}), "epochs": a.lstm_epochs}
            committed = Path(a.committed) / a.domain / name / f"seed{a.seed}" / "training.csv"
            if a.audit:
                log, _, summary = _train(name, settings, a.domain, data, a.seed, Path(tmp) / name / "a", a.threads)
                same = committed.exists() and committed.read_bytes() == log
                if not same:
                    failed.append(name)
                print(f"{'PASS' if same else 'FAIL'} {name} {a.domain} seed {a.seed}, {a.threads} thread(s): "
                      f"{_committed(log, committed)}; {summary['train_time_s']:.1f} s", flush=True)
                continue
            runs = [_train(name, settings, a.domain, data, a.seed, Path(tmp) / name / run, a.threads) for run in "ab"]
            (log_a, w_a, summary), (log_b, w_b, _) = runs
            same_log, same_weights = log_a == log_b, _same_weights(w_a, w_b)
            verdict = "PASS" if same_log and same_weights else "FAIL"
            if verdict == "FAIL":
                failed.append(name)
            rows = log_a.count(b"\n") - 1
            print(f"{verdict} {name} {a.domain} seed {a.seed}, {a.threads} thread(s), train {settings.get('train')}: "
                  f"log ({rows} rows) {'identical' if same_log else 'DIFFERS'}, weights "
                  f"{'identical' if same_weights else 'DIFFER'}; {summary['train_time_s']:.1f} s per training")
            print(f"     {_committed(log_a, committed)}")
    if a.audit:
        print("FAIL: " + ", ".join(failed) if failed else "PASS: every committed log is what the code retrains to")
    else:
        print("FAIL: " + ", ".join(failed) if failed else "PASS: every model retrained to the same log and weights")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
