# PlanGPT on Blocksworld on the CPU as p4 (256 examples a step, lr 0.002, 100 warm-up steps, every training state an
# epoch) with bfloat16 autocast on the CPU (train.cpu_bf16; attention in float32) and 7 epochs instead of 4
cd /work/main
export OMP_NUM_THREADS=1
NAME=p6_plangpt_blocks_b256_bf16_7ep
SET='{"object_pool": 24, "network": {"d_model": 128, "n_heads": 4}, "train": {"examples": 96000, "epochs": 7, "batch_size": 256, "lr": 0.002, "warmup_steps": 100, "patience": null, "sample_by": "h", "keep": "last", "track_coverage": false, "cpu_bf16": true}}'
./genplan-env python experiments/recipe_trial.py $NAME --config workflow/configs/paper-cpu.yaml --results runs/recipe --model plangpt --domain blocks --set "$SET" --strategy greedy --splits train,interpolation,validation --out runs/exp/$NAME
./genplan-env python experiments/recipe_trial.py $NAME --config workflow/configs/paper-cpu.yaml --results runs/recipe --model plangpt --domain blocks --set "$(cat runs/exp/$NAME/entry.json)" --strategy greedy-applicable --splits train,interpolation,validation --out runs/exp/$NAME --evaluate-only
# added on 2026-11-28: PlanGPT's other decodings, and regrounding, on the same checkpoint
./genplan-env python experiments/recipe_trial.py p6_plangpt_blocks_b256_bf16_7ep --config workflow/configs/paper-cpu.yaml --results runs/recipe --model plangpt --domain blocks --set "$(cat runs/exp/p6_plangpt_blocks_b256_bf16_7ep/entry.json)" --strategy greedy-reground --splits train,interpolation,validation --out runs/exp/p6_plangpt_blocks_b256_bf16_7ep --evaluate-only
./genplan-env python experiments/recipe_trial.py p6_plangpt_blocks_b256_bf16_7ep --config workflow/configs/paper-cpu.yaml --results runs/recipe --model plangpt --domain blocks --set "$(cat runs/exp/p6_plangpt_blocks_b256_bf16_7ep/entry.json)" --strategy multibeam10 --splits interpolation,validation --out runs/exp/p6_plangpt_blocks_b256_bf16_7ep --evaluate-only
./genplan-env python experiments/recipe_trial.py p6_plangpt_blocks_b256_bf16_7ep --config workflow/configs/paper-cpu.yaml --results runs/recipe --model plangpt --domain blocks --set "$(cat runs/exp/p6_plangpt_blocks_b256_bf16_7ep/entry.json)" --strategy topp0.9x10 --splits interpolation,validation --out runs/exp/p6_plangpt_blocks_b256_bf16_7ep --evaluate-only
