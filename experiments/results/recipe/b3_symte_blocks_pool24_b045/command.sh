# the training and the seed-0 evaluation; seeds 1 and 2: names-random-16-seed{1,2}/command.sh
cd /work/main
export OMP_NUM_THREADS=1
nice -n 10 ./genplan-env python experiments/recipe_trial.py b3_symte_blocks_pool24_b045 --config workflow/configs/budget-cpu.yaml --results runs/recipe --model symt_e_b005 --set '{"object_pool": 24, "train": {"examples": 39900}}' --domain blocks --strategy heuristic-greedy --splits interpolation,validation --out runs/exp/b3_symte_blocks_pool24_b045
D=runs/exp/b3_symte_blocks_pool24_b045/names-random-16; mkdir -p $D; ln -sf ../model.ckpt $D/model.ckpt
nice -n 10 ./genplan-env python experiments/recipe_trial.py b3_symte_blocks_pool24_b045 --config workflow/configs/budget-cpu.yaml --results runs/recipe --model symt_e_b005 --set '{"object_pool": 24, "train": {"examples": 39900}, "names": {"order": "random", "samples": 16, "seed": 0}}' --domain blocks --strategy heuristic-greedy --splits interpolation,validation,train --evaluate-only --out $D
