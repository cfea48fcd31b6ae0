cd /work/main
export OMP_NUM_THREADS=1
nice -n 10 ./genplan-env python experiments/recipe_trial.py w2_symte_blocks_d256_b4k --config workflow/configs/budget-cpu.yaml --results runs/recipe --model symt_e_b005 --set '{"network": {"d_model": 256}, "train": {"examples": 4000}}' --domain blocks --strategy heuristic-greedy --splits train,interpolation,validation --out runs/exp/w2_symte_blocks_d256_b4k > /tmp/s45/w2_symte_blocks_d256_b4k.log 2>&1
