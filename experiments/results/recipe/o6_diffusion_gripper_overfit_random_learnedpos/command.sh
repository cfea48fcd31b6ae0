cd /work/main
export OMP_NUM_THREADS=1
./genplan-env python experiments/diffusion_overfit.py runs/exp/o6_diffusion_gripper_overfit_random_learnedpos --results results --domain gripper --set '{"object_pool": 16, "network": {"positions": "learned"}, "train": {"examples": 10, "epochs": 400, "batch_size": 8, "patience": null, "keep": "last", "pad_weight": 0.1}}' --strategies unmask-T20-applicable,unmask-T20
