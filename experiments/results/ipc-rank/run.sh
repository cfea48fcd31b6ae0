# The ranking learner probed on the IPC 2023 easy level (issue 26): recipe_trial.py on the ipc2023-cpu data
# (results/ipc2023-cpu, made by that configuration), one domain after another; 24 GB machine, 2 cores shared.
cd /work/main
export OMP_NUM_THREADS=1
for d in transport satellite rovers; do
  nice -n 5 ./genplan-env python experiments/recipe_trial.py rank_$d --config workflow/configs/ipc2023-cpu.yaml --results results/ipc2023-cpu --benchmark ipc2023 --model heuristic_ridge --domain $d --set '{"learner": "rank", "strategies": ["gbfs"]}' --splits easy --strategy gbfs --select-on train --out runs/ipc-rank/$d
done
