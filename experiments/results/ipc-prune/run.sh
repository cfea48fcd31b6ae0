# wlplan's feature pruning probed on the IPC 2023 easy level (issue 26): recipe_trial.py on the ipc2023-cpu
# data (results/ipc2023-cpu, made by that configuration); the heuristic_ridge entry with only the encoder's
# pruning changed, novelty GBFS at 60 s a problem; 2026-11-26, 2 cores, two trials at once.
#   bash run.sh transport a-m; bash run.sh transport i-mf; bash run.sh rovers i-mf
cd /work/main
export OMP_NUM_THREADS=1
d=$1; pr=$2; strat=${3:-novelty-gbfs}; splits=${4:-easy}
nice -n 5 ./genplan-env python experiments/recipe_trial.py prune_${pr}_$d --config workflow/configs/ipc2023-cpu.yaml --results results/ipc2023-cpu --benchmark ipc2023 --model heuristic_ridge --domain $d --set "{\"encoder\": {\"pruning\": \"$pr\"}, \"strategies\": [\"$strat\"]}" --splits $splits --strategy $strat --select-on train --out runs/ipc-prune/${pr}_$d
