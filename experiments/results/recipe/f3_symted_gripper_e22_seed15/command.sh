# f3_symted_gripper_e22_seed15: paper-cpu.yaml's Gripper SymT^ED (e22's settings) at seed 15 (its losses repeat
# results/models/paper/gripper/symt_ed/seed15/training.csv), planned with greedy-reground in pool order on the training
# split and with a renaming ensemble of 16 (names: {order: random, samples: 16, seed: 0}) on the training, interpolation
# and validation splits (ensemble-16-seed0/; its model.ckpt a link to ../model.ckpt). Trained beside the test suite.
cd /work/main
export OMP_NUM_THREADS=1
n=f3_symted_gripper_e22_seed15
set='{"rename": "rename-one", "object_pool": 48, "loss_weights": [1, 1, 0.01], "network": {"d_model": 64, "n_heads": 4, "d_token": 16}, "train": {"examples": 12000, "epochs": 20, "patience": null, "sample_by": "h", "keep": "last"}}'
T="nice -n 5 ./genplan-env python experiments/recipe_trial.py $n --config workflow/configs/paper-cpu.yaml --results runs/recipe --model symt_ed --domain gripper --seed 15"
$T --set "$set" --strategy greedy-reground --splits train --out runs/exp/$n
entry="$(cat runs/exp/$n/entry.json)"
o=runs/exp/$n/ensemble-16-seed0; mkdir -p $o; ln -sf ../model.ckpt $o/model.ckpt
e2=$(python3 -c "import json,sys;e=json.loads(sys.argv[1]);e['names']={'order':'random','samples':16,'seed':0};print(json.dumps(e))" "$entry")
$T --set "$e2" --strategy greedy-reground --splits interpolation,validation,train --out $o --evaluate-only
