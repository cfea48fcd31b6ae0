# Trial p8: p7's settings (PlanGPT on Blocksworld, cpu_bf16, the first 4 epochs of a 7-epoch cosine, every training
# state an epoch drawn by goal distance) with 128 examples a step instead of 256: the same examples, twice the
# optimiser steps. Seed 13, one core, beside other jobs (the CPU-seconds are its own process's, `job_cpu_s`).
# After training: greedy on every split, then greedy-applicable and top-p on interpolation and validation.
cd /work/main
export OMP_NUM_THREADS=1
SET='{"object_pool": 24, "network": {"d_model": 128, "n_heads": 4}, "train": {"examples": 96000, "epochs": 4, "decay_epochs": 7, "lr": 0.002, "batch_size": 128, "warmup_steps": 100, "patience": null, "sample_by": "h", "keep": "last", "track_coverage": false, "cpu_bf16": true}}'
NAME=p8_plangpt_blocks_b128_bf16_4of7ep
trial() { ./genplan-env python experiments/recipe_trial.py $NAME --config workflow/configs/paper-cpu.yaml --results runs/recipe --model plangpt --domain blocks --seed 13 --out runs/exp/$NAME "$@"; }
trial --set "$SET" --strategy greedy --splits interpolation,train,validation
for S in greedy-applicable:interpolation,validation topp0.9x10:interpolation,validation; do
  trial --set "$(cat runs/exp/$NAME/entry.json)" --strategy ${S%%:*} --splits ${S#*:} --evaluate-only
done
