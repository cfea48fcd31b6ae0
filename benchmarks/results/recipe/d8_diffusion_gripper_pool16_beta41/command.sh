cd /work/main
export OMP_NUM_THREADS=1
nice -n 5 ./genplan-env python benchmarks/recipe_trial.py d8_diffusion_gripper_pool16_beta41 --config workflow/configs/paper-cpu.yaml --results runs/recipe --model diffusion --domain gripper --set '{"object_pool": 16, "train": {"examples": 6000, "epochs": 12, "patience": null, "sample_by": "h", "keep": "last", "pad_weight": 0.1, "schedule": "beta", "beta_a": 4.0, "beta_b": 1.0}}' --strategy unmask-T20-applicable --splits train,interpolation,validation --out runs/exp/d8_diffusion_gripper_pool16_beta41 > /tmp/s38/d8_diffusion_gripper_pool16_beta41.log 2>&1
