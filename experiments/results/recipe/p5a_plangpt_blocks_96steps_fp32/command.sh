# Trials s1, s2, s3 of this loop (--out /tmp/bb/s<i>; s1 is this folder, s2 p5b_..._bf16, s3 p5c_..._bf16_window20):
# 96 optimiser steps of 256 (24,538 states drawn by goal distance), one epoch, the warm-up of 100 steps not ended.
# one epoch of p4's settings (25,600 examples asked, 24,538 states kept): fp32 / cpu_bf16 / cpu_bf16 + length_window
cd /work/main
export OMP_NUM_THREADS=1
BASE='"object_pool": 24, "network": {"d_model": 128, "n_heads": 4}, "train": {"examples": 25600, "epochs": 1, "batch_size": 256, "lr": 0.002, "warmup_steps": 100, "patience": null, "sample_by": "h", "keep": "last", "track_coverage": false'
i=0
for X in "" ', "cpu_bf16": true' ', "cpu_bf16": true, "length_window": 20'; do
  i=$((i+1)); rm -rf /tmp/bb/s$i
  .venv/bin/python experiments/recipe_trial.py s$i --config workflow/configs/paper-cpu.yaml --results runs/recipe --model plangpt --domain blocks --set "{$BASE$X}}" --strategy greedy --splits validation --out /tmp/bb/s$i > /tmp/bb/s$i.log 2>&1
  echo "$X"; python3 -c "import json; d=json.load(open('/tmp/bb/s$i/summary.json')); print(round(d['train_time_s']), round(d['job_cpu_s']), d['optimizer_steps'], d['best_score'])"; tail -n 1 /tmp/bb/s$i/training.csv
done
