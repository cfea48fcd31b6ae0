# Trained and first planned on a borrowed NVIDIA H100 80GB HBM3 (torch 2.11.0+cu130), 2026-11-27, working tree of commit
# 6425f39 (gpu_trials.sh's SEED/ONLY for the seeds 14 and 15 added after it); device tool, carry ["runs/recipe", ".whl"]:
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl
PYTHONPATH=/tmp/site:src bash experiments/gpu_trials.sh runs/recipe $OUT cuda 300   # log: ../gpu-trials-h100.log
# CPU-s in result.txt and job_cpu_s: the host process's on that machine, the training ran on the GPU
# then on the development machine (2 cores), the checkpoint copied to runs/exp/g2_plangpt_blocks_gpu/model.ckpt (not committed):
nice -n 15 ./genplan-env python experiments/recipe_trial.py g2_plangpt_blocks_gpu --config workflow/configs/paper-cpu.yaml --results runs/recipe --model plangpt --domain blocks --set "$(cat runs/exp/g2_plangpt_blocks_gpu/entry.json)" --strategy greedy-applicable --splits train,interpolation,validation --seed 13 --out runs/exp/g2_plangpt_blocks_gpu --evaluate-only
nice -n 15 ./genplan-env python experiments/recipe_trial.py g2_plangpt_blocks_gpu --config workflow/configs/paper-cpu.yaml --results runs/recipe --model plangpt --domain blocks --set "$(cat runs/exp/g2_plangpt_blocks_gpu/entry.json)" --strategy greedy-reground --splits train,interpolation,validation --seed 13 --out runs/exp/g2_plangpt_blocks_gpu --evaluate-only
