# Seeds 14 and 15 of p7a's schedule (PlanGPT on Blocksworld, 256 a step, cpu_bf16, the first 4 epochs of a 7-epoch
# cosine), written with train.decay_epochs: 7 and epochs: 4 instead of p7a's wall-clock time_limit_s; the two
# seeds ran side by side, one core each: this folder is seed 14, ../p7_plangpt_blocks_b256_bf16_4of7ep_s15 seed 15.
# After training: greedy and greedy-applicable on every split, then PlanGPT's other decodings and regrounding.
cd /work/main
export OMP_NUM_THREADS=1
SET='{"object_pool": 24, "network": {"d_model": 128, "n_heads": 4}, "train": {"examples": 96000, "epochs": 4, "decay_epochs": 7, "lr": 0.002, "batch_size": 256, "warmup_steps": 100, "patience": null, "sample_by": "h", "keep": "last", "track_coverage": false, "cpu_bf16": true}}'
ALL=train,interpolation,validation
for s in 14 15; do (
  NAME=p7_plangpt_blocks_b256_bf16_4of7ep_s$s
  trial() { ./genplan-env python experiments/recipe_trial.py $NAME --config workflow/configs/paper-cpu.yaml --results runs/recipe --model plangpt --domain blocks --seed $s --out runs/exp/$NAME "$@"; }
  trial --set "$SET" --strategy greedy --splits $ALL
  for S in greedy-applicable:$ALL greedy-reground:$ALL multibeam10:interpolation,validation topp0.9x10:interpolation,validation; do
    trial --set "$(cat runs/exp/$NAME/entry.json)" --strategy ${S%%:*} --splits ${S#*:} --evaluate-only
  done ) &
done
wait
