# f1_symted_blocks_e25_seed13: e25's settings retrained (its losses repeat e25's to six decimals, training.csv): the
# checkpoint the renaming ensemble needs.
# Trained beside another trial on the two cores (job_cpu_s in summary.json is higher than a lone run's).
# 1. training, then greedy-reground on train, interpolation, validation (result.txt, first lines):
bash runs/exp/f.command.sh f1_symted_blocks_e25_seed13
# 2. greedy-applicable in pool order, then the renaming ensemble of 16 (names: {order: random, samples: 16,
#    seed: 0}) with greedy-reground and greedy-applicable (ensemble-16-seed0/; its model.ckpt a link to ../model.ckpt):
bash runs/exp/f.eval.sh f1_symted_blocks_e25_seed13 blocks train,interpolation,validation 13
# runs/exp/f.command.sh and f.eval.sh:
#   # f1: e25 retrained (its checkpoint is needed for the renaming ensemble); f2: e22's settings at seed 14 (paper-cpu's Gripper seed 14)
#   cd /work/main
#   export OMP_NUM_THREADS=1
#   n=$1
#   case $n in
#     f1*) args=(--model symt_ed --domain blocks --seed 13 --set '{"rename": "rename-one", "object_pool": 24, "loss_weights": [1, 1, 0.01], "network": {"d_model": 64, "n_heads": 4, "d_token": 16}, "train": {"examples": 21000, "epochs": 20, "patience": null, "sample_by": "h", "keep": "last"}}');;
#     f2*) args=(--model symt_ed --domain gripper --seed 14 --set '{"rename": "rename-one", "object_pool": 48, "loss_weights": [1, 1, 0.01], "network": {"d_model": 64, "n_heads": 4, "d_token": 16}, "train": {"examples": 12000, "epochs": 20, "patience": null, "sample_by": "h", "keep": "last"}}');;
#   esac
#   nice -n 5 ./genplan-env python experiments/recipe_trial.py $n --config workflow/configs/paper-cpu.yaml --results runs/recipe "${args[@]}" --strategy greedy-reground --splits train,interpolation,validation --out runs/exp/$n
#   echo done
#   ---
#   # evaluations of f1/f2 after training: pool order (as the trials before) and the renaming ensemble of K=16 (seed 0)
#   cd /work/main
#   export OMP_NUM_THREADS=1
#   n=$1; dom=$2; splits=$3
#   T="nice -n 5 ./genplan-env python experiments/recipe_trial.py $n --config workflow/configs/paper-cpu.yaml --results runs/recipe --model symt_ed --domain $dom"
#   entry="$(cat runs/exp/$n/entry.json)"
#   seed=$4
#   $T --seed $seed --set "$entry" --strategy greedy-applicable --splits $splits --out runs/exp/$n --evaluate-only
#   for K in ${KS:-16}; do
#     o=runs/exp/$n/ensemble-$K-seed0; mkdir -p $o; ln -sf ../model.ckpt $o/model.ckpt
#     e2=$(python3 -c "import json,sys;e=json.loads(sys.argv[1]);e['names']={'order':'random','samples':$K,'seed':0};print(json.dumps(e))" "$entry")
#     for s in greedy-reground greedy-applicable; do
#       $T --seed $seed --set "$e2" --strategy $s --splits $splits --out $o --evaluate-only
#     done
#   done
#   echo done
