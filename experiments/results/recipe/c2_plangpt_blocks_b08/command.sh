cd /work/main
export OMP_NUM_THREADS=1
nice -n 10 ./genplan-env python experiments/recipe_trial.py c2_plangpt_blocks_b08 --config workflow/configs/paper-cpu.yaml --results runs/recipe --model plangpt --domain blocks --set '{"object_pool": 24, "network": {"d_model": 128, "n_heads": 4}, "train": {"examples": 8000, "epochs": 14, "patience": null, "sample_by": "h", "keep": "last", "track_coverage": false}}' --strategy greedy --splits train,interpolation,validation --out runs/exp/c2_plangpt_blocks_b08 > /tmp/s37/c2_b08.log 2>&1
