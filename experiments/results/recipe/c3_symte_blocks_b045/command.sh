cd /work/main
export OMP_NUM_THREADS=1
nice -n 10 ./genplan-env python experiments/recipe_trial.py c3_symte_blocks_b045 --config workflow/configs/budget-cpu.yaml --results runs/recipe --model symt_e_b005 --set '{"train": {"examples": 39900}}' --domain blocks --strategy heuristic-greedy --splits train,interpolation,validation --out runs/exp/c3_symte_blocks_b045 > /tmp/s37/c3_b045.log 2>&1
