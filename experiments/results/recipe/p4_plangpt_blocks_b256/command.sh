# PlanGPT on Blocksworld on the CPU with the batch of the H100 trials (g2_plangpt_blocks_gpu*): 256 examples a step,
# lr 0.002, 96,000 examples an epoch, 4 epochs (384,000 examples, 1,500 optimiser steps), the cosine decayed in full
cd /work/main
export OMP_NUM_THREADS=1
nice -n 5 ./genplan-env python experiments/recipe_trial.py p4_plangpt_blocks_b256 --config workflow/configs/paper-cpu.yaml --results runs/recipe --model plangpt --domain blocks --set '{"object_pool": 24, "network": {"d_model": 128, "n_heads": 4}, "train": {"examples": 96000, "epochs": 4, "batch_size": 256, "lr": 0.002, "warmup_steps": 100, "patience": null, "sample_by": "h", "keep": "last", "track_coverage": false}}' --strategy greedy --splits train,interpolation,validation --out runs/exp/p4_plangpt_blocks_b256
nice -n 5 ./genplan-env python experiments/recipe_trial.py p4_plangpt_blocks_b256 --config workflow/configs/paper-cpu.yaml --results runs/recipe --model plangpt --domain blocks --set "$(cat runs/exp/p4_plangpt_blocks_b256/entry.json)" --strategy greedy-applicable --splits train,interpolation,validation --out runs/exp/p4_plangpt_blocks_b256 --evaluate-only
