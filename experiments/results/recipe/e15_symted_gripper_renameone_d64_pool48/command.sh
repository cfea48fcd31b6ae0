cd /work/main
export OMP_NUM_THREADS=1
nice -n 10 ./genplan-env python experiments/recipe_trial.py e15_symted_gripper_renameone_d64_pool48 --config workflow/configs/paper-cpu.yaml --results runs/recipe --model symt_ed --domain gripper --set '{"rename": "rename-one", "object_pool": 48, "network": {"d_model": 64, "n_heads": 4, "d_token": 16}, "train": {"examples": 6000, "epochs": 40, "patience": null, "sample_by": "h", "keep": "last"}}' --strategy greedy-reground --splits train,interpolation,validation --out runs/exp/e15_symted_gripper_renameone_d64_pool48 > /tmp/s37/e15.log 2>&1
