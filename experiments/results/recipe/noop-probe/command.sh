# experiments/noop_probe.py on the committed paper-cpu Gripper SymT^ED (commit 7d059a2's model; its checkpoint is not
# committed: rebuild it with the paper-cpu configuration), 2026-11-27, on the 2-core development machine
./genplan-env python experiments/noop_probe.py --model results/models/paper/gripper/symt_ed/seed13/model.ckpt \
    --benchmark-dir results/problems/paper/gripper --split extrapolation \
    --plans-table results/plans/paper/gripper/extrapolation.csv --strategy greedy-reground --benchmark paper --seed 13 \
    --out experiments/results/recipe/noop-probe/extrapolation.greedy-reground.csv \
    --out-plans experiments/results/recipe/noop-probe/extrapolation.greedy-reground.plans.json.gz
