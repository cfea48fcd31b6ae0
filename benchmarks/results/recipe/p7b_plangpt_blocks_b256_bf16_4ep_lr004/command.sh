# p4 (PlanGPT on Blocksworld, 256 a step, 4 epochs) with cpu_bf16 and twice the peak learning rate (0.004)
cd /work/main
export OMP_NUM_THREADS=1
NAME=p7b_plangpt_blocks_b256_bf16_4ep_lr004
SET='{"object_pool": 24, "network": {"d_model": 128, "n_heads": 4}, "train": {"examples": 96000, "epochs": 4, "lr": 0.004, "batch_size": 256, "warmup_steps": 100, "patience": null, "sample_by": "h", "keep": "last", "track_coverage": false, "cpu_bf16": true}}'
./genplan-env python benchmarks/recipe_trial.py $NAME --config workflow/configs/paper-cpu.yaml --results runs/recipe --model plangpt --domain blocks --set "$SET" --strategy greedy --splits train,interpolation,validation --out runs/exp/$NAME
./genplan-env python benchmarks/recipe_trial.py $NAME --config workflow/configs/paper-cpu.yaml --results runs/recipe --model plangpt --domain blocks --set "$(cat runs/exp/$NAME/entry.json)" --strategy greedy-applicable --splits train,interpolation,validation --out runs/exp/$NAME --evaluate-only
