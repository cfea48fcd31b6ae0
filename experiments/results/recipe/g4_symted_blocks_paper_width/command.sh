# Trained and planned on a borrowed NVIDIA H200 (143,771 MiB; torch 2.11.0+cu130; 16 CPU cores), 2026-11-28, working
# tree of commit 865e169 with experiments/gpu_trials.sh as committed after it (g4, g5, EXTRA, JOBS, DEADLINE);
# device tool, kind nvidia-h200, carry ["runs/recipe", ".whl"] (runs/recipe: paper-cpu's Blocksworld data, as for g1-g3):
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site2 .whl/*.whl
export PYTHONPATH=/tmp/site2:src
ONLY="g4 g5" EP4=16 EP5=16 JOBS=6 DEADLINE=510 bash experiments/gpu_trials.sh runs/recipe $OUT cuda 300   # log: ../gpu-trials-h200.log
# The two trained side by side on the one GPU; CPU-s in result.txt and job_cpu_s are the host process's on that
# machine. The checkpoints stayed there (over the 16 MiB a file that the device tool brings back; not measured here).
