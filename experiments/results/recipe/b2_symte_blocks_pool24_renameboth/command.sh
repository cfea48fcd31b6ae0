cd /work/main
export OMP_NUM_THREADS=1
nice -n 10 ./genplan-env python experiments/recipe_trial.py b2_symte_blocks_pool24_renameboth --config workflow/configs/budget-cpu.yaml --results runs/recipe --model symt_e_b005 --set '{"object_pool": 24, "rename": "rename-both", "train": {"examples": 13300}}' --domain blocks --strategy heuristic-greedy --splits train,interpolation,validation --out runs/exp/b2_symte_blocks_pool24_renameboth
# stopped by hand after epoch 14 of 20 (its training loss had stayed between 33.40 and 39.58 since epoch 2)
