cd /work/main
export OMP_NUM_THREADS=1
set='{"object_pool": 16, "network": {"positions": "learned"}, "train": {"examples": 6000, "epochs": 12, "patience": null, "sample_by": "h", "keep": "last", "pad_weight": 0.1, "symmetry": "rename-one", "symmetry_weights": [1, 1, 0.01]}}'
./genplan-env python experiments/recipe_trial.py d9_diffusion_gripper_renameone_learnedpos --config workflow/configs/paper-cpu.yaml --results results --model diffusion --domain gripper --set "$set" --strategy unmask-T20-applicable --splits train,interpolation,validation --out runs/exp/d9_diffusion_gripper_renameone_learnedpos
./genplan-env python experiments/recipe_trial.py d9_diffusion_gripper_renameone_learnedpos --config workflow/configs/paper-cpu.yaml --results results --model diffusion --domain gripper --set "$set" --strategy unmask-T20 --splits train,interpolation,validation --out runs/exp/d9_diffusion_gripper_renameone_learnedpos --evaluate-only
# predictions.txt was written afterwards from model.ckpt by experiments/diffusion_overfit.py's probe()
