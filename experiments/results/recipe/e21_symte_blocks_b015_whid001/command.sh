cd /work/main
export OMP_NUM_THREADS=1
nice -n 5 ./genplan-env python experiments/recipe_trial.py e21_symte_blocks_b015_whid001 --config workflow/configs/budget-cpu.yaml --results runs/recipe --model symt_e_b005 --set '{"loss_weights": [1, 1, 0.01], "train": {"examples": 13300}}' --domain blocks --strategy heuristic-greedy --splits train,interpolation,validation --out runs/exp/e21_symte_blocks_b015_whid001 > /tmp/s38/e21_symte_blocks_b015_whid001.log 2>&1
