cd /work/main
export OMP_NUM_THREADS=1
nice -n 10 ./genplan-env python experiments/recipe_trial.py d5b_diffusion_gripper_pool16_factored_init --config workflow/configs/paper-cpu.yaml --results runs/recipe --model diffusion --domain gripper --set '{"object_pool": 16, "condition": "factored", "train": {"examples": 6000, "epochs": 12, "patience": null, "sample_by": "h", "keep": "last", "pad_weight": 0.1}}' --strategy unmask-T20-applicable --splits train,interpolation,validation --out runs/exp/d5b_diffusion_gripper_pool16_factored_init
