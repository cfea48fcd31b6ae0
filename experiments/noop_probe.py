"""How much of a SymT^ED (or PlanGPT) model's failure under the applicability filters is no-op loops.

The paper's Gripper (and genplan's pymimir grounding of it) lets `move` take the same room twice:
`(move roomb roomb)` is applicable and leaves the state as it was. Under regrounding the model then
meets the same state again and, being greedy, answers the same way until the 500-token cap (trial
e22's 16-ball answer: experiments/sequence-recipe.md). This probe runs `genplan evaluate` unchanged except
that the applicability filters (`greedy-applicable`, `greedy-reground`) do not offer an action whose
successor equals the state it is applied in. That is NOT SymT's strategy (its filter offers every
applicable action; it names no cycle or no-op check), so its CSVs are a diagnosis, never a result of
the paper's decodings:

    python experiments/noop_probe.py <the arguments of genplan evaluate>

e.g. `--model results/models/paper/gripper/symt_ed/seed13/model.ckpt --benchmark-dir
results/problems/paper/gripper --split extrapolation --plans-table results/plans/paper/gripper/extrapolation.csv
--strategy greedy-reground --benchmark paper --seed 13 --out OUT.csv --out-plans OUT.plans.json.gz`.
"""

from __future__ import annotations

import sys

from genplan.cli import main
from genplan.planners import autoregressive


def _without_noops(original):
    def successors(self) -> None:
        original(self)
        self.options = {ids: nxt for ids, nxt in self.options.items() if nxt != self.state}
    return successors


if __name__ == "__main__":
    autoregressive._Applicable._successors = _without_noops(autoregressive._Applicable._successors)
    raise SystemExit(main(["evaluate", *sys.argv[1:]]))
