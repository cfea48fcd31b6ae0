cd /work/main
export OMP_NUM_THREADS=1
nice -n 15 ./genplan-env python experiments/recipe_trial.py d2_diffusion_gripper_byh_pad01 --config workflow/configs/paper-cpu.yaml --results runs/recipe --model diffusion --domain gripper --set '{"train": {"examples": 6000, "epochs": 12, "patience": null, "sample_by": "h", "keep": "last", "pad_weight": 0.1}}' --strategy unmask-T20-applicable --splits train,interpolation,validation --out runs/exp/d2_diffusion_gripper_byh_pad01
