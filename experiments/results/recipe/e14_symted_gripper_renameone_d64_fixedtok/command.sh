cd /work/main
export OMP_NUM_THREADS=1
nice -n 10 ./genplan-env python experiments/recipe_trial.py e14_symted_gripper_renameone_d64_fixedtok --config workflow/configs/paper-cpu.yaml --results runs/recipe --model symt_ed --domain gripper --set '{"rename": "rename-one", "network": {"d_model": 64, "n_heads": 4, "d_token": 16, "decoder_tokens": "fixed"}, "train": {"examples": 6000, "epochs": 40, "patience": null, "sample_by": "h", "keep": "last"}}' --strategy greedy-reground --splits train,interpolation,validation --out runs/exp/e14_symted_gripper_renameone_d64_fixedtok > /tmp/s37/e14.log 2>&1
