cd /work/main
export OMP_NUM_THREADS=1
nice -n 5 ./genplan-env python experiments/recipe_trial.py e23_symted_blocks_pool24_whid001_12k --config workflow/configs/paper-cpu.yaml --results runs/recipe --model symt_ed --domain blocks --set '{"rename": "rename-one", "object_pool": 24, "loss_weights": [1, 1, 0.01], "network": {"d_model": 64, "n_heads": 4, "d_token": 16}, "train": {"examples": 12000, "epochs": 20, "patience": null, "sample_by": "h", "keep": "last"}}' --strategy greedy-applicable --splits train,interpolation,validation --out runs/exp/e23_symted_blocks_pool24_whid001_12k > /tmp/s38/e23_symted_blocks_pool24_whid001_12k.log 2>&1
# then:
n=e23_symted_blocks_pool24_whid001_12k
./genplan-env python experiments/recipe_trial.py $n --config workflow/configs/paper-cpu.yaml --results runs/recipe --model symt_ed --domain blocks --set "$(cat runs/exp/$n/entry.json)" --strategy greedy-reground --splits train,interpolation,validation --out runs/exp/$n --evaluate-only
