# --out holds model.ckpt, a link to the trial's own ../model.ckpt (not committed)
cd /work/main; export OMP_NUM_THREADS=1
nice -n 10 ./genplan-env python experiments/recipe_trial.py b3_symte_blocks_pool24_b045 --config workflow/configs/budget-cpu.yaml --results runs/recipe --model symt_e_b005 --set '{"object_pool": 24, "train": {"examples": 39900}, "names": {"order": "random", "samples": 16, "seed": 1}}' --domain blocks --strategy heuristic-greedy --splits interpolation,validation --evaluate-only --out runs/exp/b3_symte_blocks_pool24_b045/names-random-16-seed1
