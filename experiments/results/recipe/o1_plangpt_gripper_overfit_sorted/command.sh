cd /work/main
export OMP_NUM_THREADS=1
./genplan-env python experiments/recipe_trial.py o1_plangpt_gripper_overfit_sorted --config workflow/configs/paper-cpu.yaml --results runs/recipe --model plangpt --domain gripper --set '{"data": "plangpt", "rename": "sorted", "train": {"epochs": 100, "batch_size": 8, "patience": null, "keep": "last", "track_coverage": false, "suffixes": true}}' --strategy greedy --splits train,interpolation,validation --select-on train --out runs/exp/o1_plangpt_gripper_overfit_sorted
