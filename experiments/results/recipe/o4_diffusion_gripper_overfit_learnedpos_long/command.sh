cd /work/main
export OMP_NUM_THREADS=1
./genplan-env python experiments/diffusion_overfit.py runs/exp/o4_diffusion_gripper_overfit_learnedpos_long --results results --domain gripper --set '{"object_pool": 16, "rename": "sorted", "network": {"positions": "learned"}, "train": {"examples": 10, "epochs": 400, "batch_size": 8, "patience": null, "keep": "last", "pad_weight": 0.1}}' --strategies unmask-T20-applicable,unmask-T220,unmask-T20
# predictions.txt was written afterwards from model.ckpt by experiments/diffusion_overfit.py's probe()
