cd /work/main
export OMP_NUM_THREADS=1
nice -n 10 ./genplan-env python experiments/recipe_trial.py b1_symte_blocks_pool24 --config workflow/configs/budget-cpu.yaml --results runs/recipe --model symt_e_b005 --set '{"object_pool": 24, "train": {"examples": 13300}}' --domain blocks --strategy heuristic-greedy --splits train,interpolation,validation --out runs/exp/b1_symte_blocks_pool24
T=runs/recipe/trajectories/paper/blocks
for n in sorted random; do
  OMP_NUM_THREADS=1 ./genplan-env python experiments/symt_h_errors.py --names $n runs/exp/b1_symte_blocks_pool24/model.ckpt \
      $T/train.json.gz $T/interpolation.json.gz $T/validation.json.gz > runs/exp/b1_symte_blocks_pool24/h-errors-$n.txt
done
