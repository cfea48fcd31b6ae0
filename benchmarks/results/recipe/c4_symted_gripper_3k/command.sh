cd /work/main
export OMP_NUM_THREADS=1
nice -n 5 ./genplan-env python benchmarks/recipe_trial.py c4_symted_gripper_3k --config workflow/configs/paper-cpu.yaml --results runs/recipe --model symt_ed --domain gripper --set '{"rename": "rename-one", "object_pool": 48, "loss_weights": [1, 1, 0.01], "network": {"d_model": 64, "n_heads": 4, "d_token": 16}, "train": {"examples": 3000, "epochs": 20, "patience": null, "sample_by": "h", "keep": "last"}}' --strategy greedy-applicable --splits train,interpolation,validation --out runs/exp/c4_symted_gripper_3k > /tmp/s38/c4_symted_gripper_3k.log 2>&1
