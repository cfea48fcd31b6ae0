cd /work/main
export OMP_NUM_THREADS=1
nice -n 5 ./genplan-env python experiments/recipe_trial.py e18_symted_gripper_pool48_whid001 --config workflow/configs/paper-cpu.yaml --results runs/recipe --model symt_ed --domain gripper --set '{"rename": "rename-one", "object_pool": 48, "loss_weights": [1, 1, 0.01], "network": {"d_model": 64, "n_heads": 4, "d_token": 16}, "train": {"examples": 6000, "epochs": 20, "patience": null, "sample_by": "h", "keep": "last"}}' --strategy greedy-reground --splits train,interpolation,validation --out runs/exp/e18_symted_gripper_pool48_whid001 > /tmp/s38/e18_symted_gripper_pool48_whid001.log 2>&1
# then, after commit 324cfb6 (the filters never offer <end>; earlier answers in before-end-masked/):
for s in greedy-applicable greedy-reground; do
for t in e20_symted_blocks_pool24_whid001:blocks e18_symted_gripper_pool48_whid001:gripper; do
n=${t%%:*}; d=${t##*:}
nice -n 5 ./genplan-env python experiments/recipe_trial.py $n --config workflow/configs/paper-cpu.yaml --results runs/recipe --model symt_ed --domain $d --set "$(cat runs/exp/$n/entry.json)" --strategy $s --splits train,interpolation,validation --out runs/exp/$n --evaluate-only
done; done
