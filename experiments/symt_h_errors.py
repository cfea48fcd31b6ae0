"""How far a SymT^E checkpoint's h is from the plan length to go, on the states along the plans of
trajectories files (each state, objects named in pool order as evaluation names them, and each
plan's goal state with target 0; `--names random`: each state's objects renamed at random into the
pool instead, seeded): RMSE, mean target and mean prediction per file, and a few
(target, prediction) pairs. A diagnosis of issue 25's recipe trials: does the model fit the
problems it trained on (train), those of sizes between (interpolation), the larger (validation)?

    python experiments/symt_h_errors.py [--names sorted|random] CHECKPOINT TRAJECTORIES.json.gz [...]
"""

from __future__ import annotations

import sys

import numpy as np
import torch


def h_errors(checkpoint: str, trajectories: str, show: int = 12, names: str = "sorted") -> list[str]:
    from genplan.checkpoint import read
    from genplan.formats.trajectories import load
    from genplan.models.symt import data
    from genplan.models.symt.model import SymT

    model = SymT.from_envelope(read(checkpoint), checkpoint)
    if model.settings.architecture != "encoder":
        raise SystemExit(f"{checkpoint}: not a SymT^E (encoder) checkpoint")
    cases = data.validation_cases(load(trajectories), 10**9, 0, keep_goal_states=True)
    enc = data.encode(cases, model.vocab, model.domain_info, np.random.default_rng(0), names,
                      model.settings.per_type, False, model.settings.max_tokens)
    pred, target = [], []
    with torch.no_grad():
        for batch in data.batches(enc, 64, list(range(len(enc.rows))), model.vocab.pad_id):
            h, _ = model.net.heuristic(batch["rows"], batch["mask"])
            pred += h.tolist()
            target += batch["h"].tolist()
    pred, target = np.array(pred), np.array(target)
    rmse = float(np.sqrt(((pred - target) ** 2).mean()))
    lines = [f"{trajectories} ({names} names): {len(target)} states, RMSE {rmse:.2f}, mean target {target.mean():.2f}, "
             f"mean prediction {pred.mean():.2f}"]
    for k in range(0, len(target), max(1, len(target) // show)):
        lines.append(f"  target {target[k]:4.0f}  prediction {pred[k]:6.2f}")
    return lines


def main(argv: list[str]) -> int:
    torch.set_num_threads(1)
    names = "sorted"
    if argv[:1] == ["--names"]:
        names, argv = argv[1], argv[2:]
    if len(argv) < 2 or names not in ("sorted", "random"):
        print(__doc__)
        return 2
    for path in argv[1:]:
        print("\n".join(h_errors(argv[0], path, names=names)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
