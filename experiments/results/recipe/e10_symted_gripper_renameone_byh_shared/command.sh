cd /work/main
export OMP_NUM_THREADS=1
nice -n 10 ./genplan-env python experiments/recipe_trial.py e10_symted_gripper_renameone_byh_shared --config workflow/configs/paper-cpu.yaml --results runs/recipe --model symt_ed --domain gripper --set '{"rename": "rename-one", "network": {"decoder_tokens": "shared"}, "train": {"examples": 6000, "epochs": 12, "patience": null, "sample_by": "h", "keep": "last"}}' --strategy greedy-reground --splits train,interpolation,validation --out runs/exp/e10_symted_gripper_renameone_byh_shared
