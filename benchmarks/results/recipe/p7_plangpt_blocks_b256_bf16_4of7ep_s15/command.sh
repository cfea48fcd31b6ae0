# Seed 15 of p7a's schedule (PlanGPT on Blocksworld, 256 a step, cpu_bf16, the first 4 epochs of a 7-epoch
# cosine), written with train.decay_epochs: 7 and epochs: 4 instead of p7a's wall-clock time_limit_s
cd /work/main
export OMP_NUM_THREADS=1
NAME=p7_plangpt_blocks_b256_bf16_4of7ep_s15
SET='{"object_pool": 24, "network": {"d_model": 128, "n_heads": 4}, "train": {"examples": 96000, "epochs": 4, "decay_epochs": 7, "lr": 0.002, "batch_size": 256, "warmup_steps": 100, "patience": null, "sample_by": "h", "keep": "last", "track_coverage": false, "cpu_bf16": true}}'
./genplan-env python benchmarks/recipe_trial.py $NAME --config workflow/configs/paper-cpu.yaml --results runs/recipe --model plangpt --domain blocks --set "$SET" --seed 15 --strategy greedy --splits train,interpolation,validation --out runs/exp/$NAME
./genplan-env python benchmarks/recipe_trial.py $NAME --config workflow/configs/paper-cpu.yaml --results runs/recipe --model plangpt --domain blocks --set "$(cat runs/exp/$NAME/entry.json)" --seed 15 --strategy greedy-applicable --splits train,interpolation,validation --out runs/exp/$NAME --evaluate-only
# PlanGPT's other decodings, and regrounding, on the same checkpoint
./genplan-env python benchmarks/recipe_trial.py p7_plangpt_blocks_b256_bf16_4of7ep_s15 --config workflow/configs/paper-cpu.yaml --results runs/recipe --model plangpt --domain blocks --set "$(cat runs/exp/p7_plangpt_blocks_b256_bf16_4of7ep_s15/entry.json)" --strategy greedy-reground --splits train,interpolation,validation --out runs/exp/p7_plangpt_blocks_b256_bf16_4of7ep_s15 --seed 15 --evaluate-only
./genplan-env python benchmarks/recipe_trial.py p7_plangpt_blocks_b256_bf16_4of7ep_s15 --config workflow/configs/paper-cpu.yaml --results runs/recipe --model plangpt --domain blocks --set "$(cat runs/exp/p7_plangpt_blocks_b256_bf16_4of7ep_s15/entry.json)" --strategy multibeam10 --splits interpolation,validation --out runs/exp/p7_plangpt_blocks_b256_bf16_4of7ep_s15 --seed 15 --evaluate-only
./genplan-env python benchmarks/recipe_trial.py p7_plangpt_blocks_b256_bf16_4of7ep_s15 --config workflow/configs/paper-cpu.yaml --results runs/recipe --model plangpt --domain blocks --set "$(cat runs/exp/p7_plangpt_blocks_b256_bf16_4of7ep_s15/entry.json)" --strategy topp0.9x10 --splits interpolation,validation --out runs/exp/p7_plangpt_blocks_b256_bf16_4of7ep_s15 --seed 15 --evaluate-only
