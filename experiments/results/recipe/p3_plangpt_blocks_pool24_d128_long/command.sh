cd /work/main
export OMP_NUM_THREADS=1
nice -n 10 ./genplan-env python experiments/recipe_trial.py p3_plangpt_blocks_pool24_d128_long --config workflow/configs/paper-cpu.yaml --results runs/recipe --model plangpt --domain blocks --set '{"object_pool": 24, "network": {"d_model": 128, "n_heads": 4}, "train": {"examples": 16000, "epochs": 14, "patience": null, "sample_by": "h", "keep": "last", "track_coverage": false}}' --strategy greedy --splits train,interpolation,validation --out runs/exp/p3_plangpt_blocks_pool24_d128_long > /tmp/s37/p3.log 2>&1
