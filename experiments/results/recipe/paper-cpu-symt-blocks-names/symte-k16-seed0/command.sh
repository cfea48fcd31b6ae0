# --out holds model.ckpt, a link to results/models/paper/blocks/symt_e/seed13/model.ckpt (the paper-cpu model, not committed)
cd /work/main
export OMP_NUM_THREADS=1
nice -n 10 ./genplan-env python experiments/recipe_trial.py pc_symte_blocks_names16 --config workflow/configs/paper-cpu.yaml --results runs/recipe --model symt_e --set '{"names": {"order": "random", "samples": 16, "seed": 0}}' --domain blocks --strategy heuristic-greedy --splits interpolation,validation,train --evaluate-only --out runs/exp/pc_symte_blocks_names16
