cd /work/main
export OMP_NUM_THREADS=1
nice -n 10 ./genplan-env python experiments/recipe_trial.py w1_symte_blocks_d256_b10k --config workflow/configs/budget-cpu.yaml --results runs/recipe --model symt_e_b005 --set '{"network": {"d_model": 256}, "train": {"examples": 10000}}' --domain blocks --strategy heuristic-greedy --splits train,interpolation,validation --out runs/exp/w1_symte_blocks_d256_b10k > /tmp/s45/w1_symte_blocks_d256_b10k.log 2>&1
