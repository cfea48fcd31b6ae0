# Stopped by hand after its first epoch (of 6): it ran bfloat16 attention (before commit 'cpu_bf16 runs attention in float32'),
# 922 s an epoch; the seed-14 twin (1,037 s, train loss 1.757446, val loss 1.358309 after epoch 1) was stopped too and not kept.
cd /work/main
export OMP_NUM_THREADS=1
SEED=${SEED:-13}; NAME=p5_plangpt_blocks_b256_bf16${SUFFIX}
SET='{"object_pool": 24, "network": {"d_model": 128, "n_heads": 4}, "train": {"examples": 96000, "epochs": 6, "batch_size": 256, "lr": 0.002, "warmup_steps": 100, "patience": null, "sample_by": "h", "keep": "last", "track_coverage": false, "cpu_bf16": true, "length_window": 20}}'
./genplan-env python experiments/recipe_trial.py $NAME --config workflow/configs/paper-cpu.yaml --results runs/recipe --model plangpt --domain blocks --set "$SET" --seed $SEED --strategy greedy --splits train,interpolation,validation --out runs/exp/$NAME
./genplan-env python experiments/recipe_trial.py $NAME --config workflow/configs/paper-cpu.yaml --results runs/recipe --model plangpt --domain blocks --set "$(cat runs/exp/$NAME/entry.json)" --seed $SEED --strategy greedy-applicable --splits train,interpolation,validation --out runs/exp/$NAME --evaluate-only
