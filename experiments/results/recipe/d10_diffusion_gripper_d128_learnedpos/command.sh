cd /work/main
export OMP_NUM_THREADS=1
set='{"object_pool": 16, "network": {"d_model": 128, "n_heads": 4, "n_layers": 3, "positions": "learned"}, "train": {"examples": 6000, "epochs": 12, "patience": null, "sample_by": "h", "keep": "last", "pad_weight": 0.1}}'
./genplan-env python experiments/recipe_trial.py d10_diffusion_gripper_d128_learnedpos --config workflow/configs/paper-cpu.yaml --results results --model diffusion --domain gripper --set "$set" --strategy unmask-T20-applicable --splits train,interpolation,validation --out runs/exp/d10_diffusion_gripper_d128_learnedpos
