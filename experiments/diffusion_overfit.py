"""Can the diffusion family reproduce the plans it trained on? (issue 25, the training split as the
sanity check). Trains the paper-cpu `diffusion` entry, with the settings given, on the training
split's own plans and every suffix of them (the states along each plan, one optimal plan each; the
trajectories file, as PlanGPT's `data: plangpt` protocol reads it) instead of states drawn from the
state spaces, then plans the training problems with `genplan evaluate`:

    python experiments/diffusion_overfit.py OUT --results results --domain gripper \
        --set '{"object_pool": 16, "rename": "sorted", "train": {"epochs": 300, "patience": null, "keep": "last"}}' \
        --strategies unmask-T20-applicable,unmask-T220

A model that fits a handful of sequences (training loss near 0) and still does not plan them has a
fault between the training sequences and the planner (encoding, decoding, reading the plan); one
that plans them does not. Writes OUT/entry.json, model.ckpt, training.csv, summary.json, train.log,
train.<strategy>.csv, result.txt (solved / problems per strategy, the training job's CPU seconds) and
predictions.txt: for the first two training problems, the plan's tokens, the denoiser's argmax at every
position of the fully masked plan (t = 1), and how many positions it gets right with only that one
position masked (every other token of the plan given).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from pathlib import Path

import yaml
from recipe_trial import evaluate  # this folder: the script's own, first on sys.path


def _train(out: Path, entry: dict, results: Path, domain: str, seed: int) -> dict:
    from genplan import registry
    from genplan.datasets.examples import trajectory_cases
    from genplan.formats.trajectories import load
    from genplan.models.diffusion import train as T

    original = T._cases

    def plans_and_suffixes(files, settings, seed_):
        _, val, doc, path = original(files, settings, seed_)
        return trajectory_cases(doc, suffixes=True), val, doc, path

    T._cases = plans_and_suffixes
    traj = results / f"trajectories/paper/{domain}"
    files = {"train": [str(results / f"statespaces/paper/{domain}/train.csv"), str(traj / "train.json.gz")],
             "validation": [str(traj / "train.json.gz")]}
    return T.train_diffusion("diffusion-overfit", registry.weight_settings(entry), domain, files, seed,
                             out / "model.ckpt", out / "training.csv", out / "summary.json", threads=1, device="cpu")


def probe(ckpt: Path, trajectories: Path, problems: int = 2) -> list[str]:
    """predictions.txt's lines (see the module's docstring)."""
    import numpy as np
    import torch

    from genplan.checkpoint import read
    from genplan.datasets.examples import trajectory_cases
    from genplan.formats.trajectories import load
    from genplan.models.diffusion import data
    from genplan.models.diffusion.model import DiffusionModel
    from genplan.tokens.renaming import Renaming

    m = DiffusionModel.from_envelope(read(ckpt), ckpt)
    vocab, lines = m.vocab, []
    for case in trajectory_cases(load(trajectories), suffixes=False)[:problems]:
        ren = Renaming.identity_order(case.objects, None, vocab, per_type=False)
        conds, plans, _ = data.encode([case], vocab, m.atoms, m.domain_info, np.random.default_rng(0),
                                      m.settings.max_plan_tokens, renamings=[ren])
        cond, plan = torch.tensor(conds), torch.tensor(plans)
        cmask = torch.ones_like(cond, dtype=torch.bool)
        target = plan[0, 1:].tolist()
        n = target.index(vocab.end_id) + 1
        masked = torch.full_like(plan, vocab.mask_id)
        masked[0, 0] = vocab.start_id
        with torch.no_grad():
            pred = m.net.plan_logits(cond, cmask, masked)[0, 1:].argmax(-1).tolist()
            right = 0
            for i in range(n):
                one = plan.clone()
                one[0, 1 + i] = vocab.mask_id
                right += int(m.net.plan_logits(cond, cmask, one)[0, 1 + i].argmax()) == target[i]
        lines += [f"{case.problem}: plan      {' '.join(vocab.tokens_of(target[:n]))}",
                  f"{case.problem}: t = 1     {' '.join(vocab.tokens_of(pred[:n]))}",
                  f"{case.problem}: all masked right {sum(p == t for p, t in zip(pred[:n], target[:n]))}/{n}, "
                  f"one masked right {right}/{n}"]
    return lines


def main(argv=None) -> int:
    from genplan.solve_setup import merged

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--config", default="workflow/configs/paper-cpu.yaml")
    ap.add_argument("--results", default="results")
    ap.add_argument("--domain", default="gripper")
    ap.add_argument("--set", default="{}")
    ap.add_argument("--strategies", default="unmask-T20-applicable")
    ap.add_argument("--seed", type=int, default=13)
    args = ap.parse_args(argv)
    cfg = yaml.safe_load(Path(args.config).read_text())
    entry = merged(cfg["models"]["diffusion"], json.loads(args.set))
    out, R = Path(args.out), Path(args.results)
    out.mkdir(parents=True, exist_ok=True)
    (out / "entry.json").write_text(json.dumps(entry, indent=1, sort_keys=True) + "\n")
    t0 = time.process_time()
    summary = _train(out, entry, R, args.domain, args.seed)
    lines = [f"training on the training plans and their suffixes: {summary['train_sequences']} sequences, "
             f"{summary['optimizer_steps']} optimiser steps, {time.process_time() - t0:.0f} CPU-s"]
    traj = R / f"trajectories/paper/{args.domain}/train.json.gz"
    (out / "predictions.txt").write_text("\n".join(probe(out / "model.ckpt", traj)) + "\n")
    for strategy in args.strategies.split(","):
        rc, rows = evaluate(out / "model.ckpt", R, "paper", args.domain, "train", strategy, entry, args.seed,
                            out / f"train.{strategy}.csv", out / f"evaluate-{strategy}.log")
        solved = sum(r["solved"] == "yes" and r["val"] == "valid" for r in rows)
        lines.append(f"train {strategy}: {solved}/{len(rows)} solved, VAL-valid (rc {rc})")
        print(lines[-1], flush=True)
    (out / "result.txt").write_text("\n".join(lines) + "\n")
    used = resource.getrusage(resource.RUSAGE_SELF)
    print(f"{used.ru_utime + used.ru_stime:.0f} CPU-s in all", flush=True)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    sys.exit(main())
