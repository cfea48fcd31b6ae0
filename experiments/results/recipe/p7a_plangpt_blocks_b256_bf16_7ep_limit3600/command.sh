# Trials p7a and p7b, side by side, one core each (this folder is p7a, ../p7b_plangpt_blocks_b256_bf16_4ep_lr004 p7b):
# p7a: p6 (PlanGPT on Blocksworld, 256 a step, cpu_bf16, a 7-epoch cosine) stopped by the goal budget,
#      train.time_limit_s 3600 (no epoch starts that would end past 3,600 s of training), the last weights kept;
# p7b: p4 (4 epochs) with cpu_bf16 and twice the peak learning rate (0.004).
# After training: greedy and greedy-applicable on every split; PlanGPT's other decodings and regrounding
# were added on 2026-11-28 (the second loop).
cd /work/main
export OMP_NUM_THREADS=1
BASE='"object_pool": 24, "network": {"d_model": 128, "n_heads": 4}, "train": {"examples": 96000'
REST='"batch_size": 256, "warmup_steps": 100, "patience": null, "sample_by": "h", "keep": "last", "track_coverage": false, "cpu_bf16": true}}'
ALL=train,interpolation,validation
trial() { ./genplan-env python experiments/recipe_trial.py $NAME --config workflow/configs/paper-cpu.yaml --results runs/recipe --model plangpt --domain blocks --out runs/exp/$NAME "$@"; }
for T in 'p7a_plangpt_blocks_b256_bf16_7ep_limit3600|"epochs": 7, "lr": 0.002, "time_limit_s": 3600' \
         'p7b_plangpt_blocks_b256_bf16_4ep_lr004|"epochs": 4, "lr": 0.004'; do (
  NAME=${T%%|*}
  trial --set "{$BASE, ${T#*|}, $REST" --strategy greedy --splits $ALL
  trial --set "$(cat runs/exp/$NAME/entry.json)" --strategy greedy-applicable --splits $ALL --evaluate-only ) &
done
wait
for NAME in p7a_plangpt_blocks_b256_bf16_7ep_limit3600 p7b_plangpt_blocks_b256_bf16_4ep_lr004; do
  for S in greedy-reground:$ALL multibeam10:interpolation,validation topp0.9x10:interpolation,validation; do
    trial --set "$(cat runs/exp/$NAME/entry.json)" --strategy ${S%%:*} --splits ${S#*:} --evaluate-only
  done
done
