cd /work/main
export OMP_NUM_THREADS=1
n=e25_symted_blocks_pool24_whid001_21k
nice -n 5 ./genplan-env python experiments/recipe_trial.py $n --config workflow/configs/paper-cpu.yaml --results runs/recipe --model symt_ed --domain blocks --set '{"rename": "rename-one", "object_pool": 24, "loss_weights": [1, 1, 0.01], "network": {"d_model": 64, "n_heads": 4, "d_token": 16}, "train": {"examples": 21000, "epochs": 20, "patience": null, "sample_by": "h", "keep": "last"}}' --strategy greedy-applicable --splits train,interpolation,validation --out runs/exp/$n > /tmp/s39/$n.log 2>&1
nice -n 5 ./genplan-env python experiments/recipe_trial.py $n --config workflow/configs/paper-cpu.yaml --results runs/recipe --model symt_ed --domain blocks --set "$(cat runs/exp/$n/entry.json)" --strategy greedy-reground --splits train,interpolation,validation --out runs/exp/$n --evaluate-only >> /tmp/s39/$n.log 2>&1
echo done >> /tmp/s39/$n.log
