# The trial's checkpoint (not committed) planned greedily with a renaming ensemble of 64 (names: {order: random,
# samples: 64, seed: 0}; genplan.planners.renaming_ensemble, not in the papers); model.ckpt a link to ../model.ckpt:
K=64 SPLITS=interpolation,validation bash runs/exp/pe.eval.sh   # all three p7 models in turn
# runs/exp/pe.eval.sh:
#   # PlanGPT's within-the-hour Blocksworld models (p7a seed 13, p7 seeds 14 and 15) planned greedily with a renaming
#   # ensemble of 16 (names: {order: random, samples: K, seed: 0}, K = ${K:-16}); their pool-order answers are in each result.txt
#   cd /work/main
#   export OMP_NUM_THREADS=1
#   for spec in p7a_plangpt_blocks_b256_bf16_7ep_limit3600:13 p7_plangpt_blocks_b256_bf16_4of7ep_s14:14 p7_plangpt_blocks_b256_bf16_4of7ep_s15:15; do
#     n=${spec%%:*}; seed=${spec##*:}
#     o=runs/exp/$n/ensemble-${K:-16}-seed0; mkdir -p $o; ln -sf ../model.ckpt $o/model.ckpt
#     e2=$(python3 -c "import json,sys;e=json.load(open(sys.argv[1]));e['names']={'order':'random','samples':${K:-16},'seed':0};print(json.dumps(e))" runs/exp/$n/entry.json)
#     nice -n 5 ./genplan-env python experiments/recipe_trial.py $n --config workflow/configs/paper-cpu.yaml --results runs/recipe --model plangpt --domain blocks --seed $seed --set "$e2" --strategy greedy --splits ${SPLITS:-interpolation,validation} --out $o --evaluate-only
#   done
#   echo done
