cd /work/main
export OMP_NUM_THREADS=1
nice -n 15 ./genplan-env python experiments/recipe_trial.py p1_plangpt_blocks_byh_48k --config workflow/configs/paper-cpu.yaml --results runs/recipe --model plangpt --domain blocks --set '{"train": {"examples": 8000, "epochs": 6, "patience": null, "sample_by": "h", "keep": "last", "track_coverage": false}}' --strategy greedy --splits train,interpolation,validation --out runs/exp/p1_plangpt_blocks_byh_48k
