cd /work/main
export OMP_NUM_THREADS=1
nice -n 5 ./genplan-env python experiments/recipe_trial.py c5_symted_blocks_3k --config workflow/configs/paper-cpu.yaml --results runs/recipe --model symt_ed --domain blocks --set '{"rename": "rename-one", "object_pool": 24, "loss_weights": [1, 1, 0.01], "network": {"d_model": 64, "n_heads": 4, "d_token": 16}, "train": {"examples": 3000, "epochs": 20, "patience": null, "sample_by": "h", "keep": "last"}}' --strategy greedy-applicable --splits train,interpolation,validation --out runs/exp/c5_symted_blocks_3k > /tmp/s38/c5_symted_blocks_3k.log 2>&1
