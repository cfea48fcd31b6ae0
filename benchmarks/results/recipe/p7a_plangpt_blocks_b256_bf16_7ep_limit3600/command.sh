# p6 (PlanGPT on Blocksworld, 256 a step, cpu_bf16, a 7-epoch cosine schedule) stopped by the goal budget:
# train.time_limit_s 3600 (no epoch starts that would end past 3,600 s of training), the last weights kept
cd /work/main
export OMP_NUM_THREADS=1
NAME=p7a_plangpt_blocks_b256_bf16_7ep_limit3600
SET='{"object_pool": 24, "network": {"d_model": 128, "n_heads": 4}, "train": {"examples": 96000, "epochs": 7, "lr": 0.002, "time_limit_s": 3600, "batch_size": 256, "warmup_steps": 100, "patience": null, "sample_by": "h", "keep": "last", "track_coverage": false, "cpu_bf16": true}}'
./genplan-env python benchmarks/recipe_trial.py $NAME --config workflow/configs/paper-cpu.yaml --results runs/recipe --model plangpt --domain blocks --set "$SET" --strategy greedy --splits train,interpolation,validation --out runs/exp/$NAME
./genplan-env python benchmarks/recipe_trial.py $NAME --config workflow/configs/paper-cpu.yaml --results runs/recipe --model plangpt --domain blocks --set "$(cat runs/exp/$NAME/entry.json)" --strategy greedy-applicable --splits train,interpolation,validation --out runs/exp/$NAME --evaluate-only
