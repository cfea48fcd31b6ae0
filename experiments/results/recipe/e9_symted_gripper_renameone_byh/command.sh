cd /work/main
export OMP_NUM_THREADS=1
nice -n 10 ./genplan-env python experiments/recipe_trial.py e9_symted_gripper_renameone_byh --config workflow/configs/paper-cpu.yaml --results runs/recipe --model symt_ed --domain gripper --set '{"rename": "rename-one", "train": {"examples": 6000, "epochs": 12, "patience": null, "sample_by": "h", "keep": "last"}}' --strategy greedy-reground --splits train,interpolation,validation --out runs/exp/e9_symted_gripper_renameone_byh
