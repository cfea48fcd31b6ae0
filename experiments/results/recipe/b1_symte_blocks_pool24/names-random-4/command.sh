# --out holds model.ckpt, a link to the trial's own ../model.ckpt (not committed)
cd /work/main
export OMP_NUM_THREADS=1
nice -n 10 ./genplan-env python experiments/recipe_trial.py b1_symte_blocks_pool24 --config workflow/configs/budget-cpu.yaml --results runs/recipe --model symt_e_b005 --set '{"object_pool": 24, "train": {"examples": 13300}, "names": {"order": "random", "samples": 4, "seed": 0}}' --domain blocks --strategy heuristic-greedy --splits interpolation,validation,train --evaluate-only --out runs/exp/b1_symte_blocks_pool24/names-random-4
