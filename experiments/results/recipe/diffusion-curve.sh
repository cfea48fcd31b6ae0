#!/bin/bash
# The diffusion budget-curve trials c7 (Gripper) and c8 (Blocksworld) of experiments/sequence-recipe.md: the paper-cpu
# `diffusion` entry with learned plan positions, random names, draws by goal distance, 12 epochs, the last
# weights, at the examples an epoch given; each planned with T = 20 unmasking steps, with and without the
# applicability filter. Run from the repository root on a results folder of paper-cpu with the paper splits.
# usage: curve.sh DOMAIN POOL PREFIX N1:tag1 N2:tag2 ...
cd /work/main
export OMP_NUM_THREADS=1
dom=$1; pool=$2; prefix=$3; shift 3
for n in "$@"; do ex=${n%%:*}; tag=${n##*:}
set="{\"object_pool\": $pool, \"network\": {\"positions\": \"learned\"}, \"train\": {\"examples\": $ex, \"epochs\": 12, \"patience\": null, \"sample_by\": \"h\", \"keep\": \"last\", \"pad_weight\": 0.1}}"
./genplan-env python experiments/recipe_trial.py ${prefix}_$tag --config workflow/configs/paper-cpu.yaml --results results --model diffusion --domain $dom --set "$set" --strategy unmask-T20-applicable --splits train,interpolation,validation --out runs/exp/${prefix}_$tag
./genplan-env python experiments/recipe_trial.py ${prefix}_$tag --config workflow/configs/paper-cpu.yaml --results results --model diffusion --domain $dom --set "$set" --strategy unmask-T20 --splits train,interpolation,validation --out runs/exp/${prefix}_$tag --evaluate-only
done
