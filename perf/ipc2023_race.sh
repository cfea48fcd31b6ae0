#!/usr/bin/env bash
# The IPC 2023 race under the resource protocol, one level at a time (workflow/configs/ipc2023-cpu.yaml):
# Fast Downward's LAMA-first and eager GBFS + hFF, and the learned planners, on every problem of LEVEL
# (easy, medium or hard) of every domain, each job one planner process on one core (snakemake --cores
# CORES, default 1: the other core stays free for whatever else the machine does). Jobs already made under
# the protocol are not rerun; a killed run resumes (each job's finished problems are kept in its sidecar).
#
#   bash perf/ipc2023_race.sh easy [CORES] [DOMAIN ...]
#
# Then `./genplan-env genplan report ipc2023 --results results/ipc2023-cpu` and commit the level's files.
# To stop a run started in the background, signal its whole process group (`kill -- -PGID`): Snakemake's
# own SIGTERM waits for the jobs running (up to 30 problems of 60 s each); each job stops at a signal,
# keeping its finished problems for the rerun.
set -euo pipefail
cd "$(dirname "$0")/.."
level=${1:?usage: ipc2023_race.sh LEVEL [CORES] [DOMAIN ...]}
cores=${2:-1}
shift $(( $# >= 2 ? 2 : 1 ))
config=workflow/configs/ipc2023-cpu.yaml
mapfile -t targets < <(./genplan-env python - "$config" "$level" "$@" <<'PY'
import sys
import yaml
from genplan.paths import Layout

config, level, only = sys.argv[1], sys.argv[2], sys.argv[3:]
cfg = yaml.safe_load(open(config))
lay = Layout(cfg["results_dir"])
for domain in only or cfg["domains"]:
    print(lay.plans_table("ipc2023", domain, level))
    for model, entry in cfg["models"].items():
        if domain not in entry.get("domains", cfg["domains"]):
            continue
        for seed in entry["seeds"]:
            for strategy in entry["strategies"]:
                if level in entry.get("strategy_splits", {}).get(strategy, cfg["evaluation"]["splits"]):
                    print(lay.evaluation("ipc2023", domain, model, seed, level, strategy))
PY
)
# first, in a run of their own, the domains' imports (not committed) and the models whose checkpoints are not
# committed (of a committed one, only its training data): in the level's run they would be newer than every
# committed table and evaluation, and Snakemake would run all of those again; then the committed outputs
# (checkpoints included) are touched, so that only what is missing or stale runs
mapfile -t first < <(./genplan-env python - "$config" "${targets[@]}" <<'PY'
import subprocess
import sys

import yaml
from genplan.paths import Layout, parse_evaluation_path

cfg = yaml.safe_load(open(sys.argv[1]))
lay, out = Layout(cfg["results_dir"]), set()
committed = set(subprocess.run(["git", "-c", "safe.directory=*", "ls-files", cfg["results_dir"]], capture_output=True,
                               text=True, check=True).stdout.split())
for t in sys.argv[2:]:
    if "/plans/" in t:
        out.add(lay.problems("ipc2023", t.split("/")[-2]))
    else:
        w = parse_evaluation_path(t)
        ckpt = lay.checkpoint("ipc2023", w["domain"], w["model"], w["seed"])
        # a committed checkpoint is kept: only its training data is made, so that it is not older than its inputs
        out.add(lay.trajectories("ipc2023", w["domain"], "train") if ckpt in committed else ckpt)
print("\n".join(sorted(out)))
PY
)
./genplan-env snakemake ${DRYRUN:+-n} --configfile "$config" --cores "$cores" -- "${first[@]}"
root=$(./genplan-env python -c 'import sys, yaml; print(yaml.safe_load(open(sys.argv[1]))["results_dir"])' "$config")
# the folders too: a plans folder is a directory output, and Snakemake reads its own mtime, which touching
# the files inside leaves as the checkout made it (sokoban's easy table was planned again so); and the jobs'
# benchmark files: Snakemake counts a job's benchmark among its outputs when it finds the oldest one, so an
# untouched jobstats file older than the fresh import made every committed table and model look stale
if [[ -z ${DRYRUN:-} ]]; then
    mapfile -t committed < <(git ls-files "$root/plans" "$root/evaluation" "$root/models" "$root/jobstats" \
        "$root/tables" "$root/figures")
    # one time for all: touched one after the other, a checkpoint or plans table listed after the evaluations
    # made from it came out newer than they by microseconds, and Snakemake ran those evaluations again
    stamp=$(date +%s.%N)
    printf '%s\n' "${committed[@]%/*}" | sort -u | xargs -r -d '\n' touch -c -d "@$stamp"
    printf '%s\n' "${committed[@]}" | xargs -r -d '\n' touch -c -d "@$stamp"
fi
# made before the protocol (a plans table without cpu_time, an evaluation whose counters lack it) or a
# plans table whose plans are not stored beside it: run again
stale=()
# a checkpoint trained here that is not the committed one (none was committed, or this training differs):
# every committed evaluation of that model, at every level, runs again with it, so that all the levels of a
# domain are one model's (commit the checkpoint with them)
if [[ -z ${DRYRUN:-} ]]; then
    for c in "${first[@]}"; do
        [[ $c == *.ckpt ]] || continue
        if ! git ls-files --error-unmatch "$c" > /dev/null 2>&1 || ! git diff --quiet HEAD -- "$c"; then
            folder=$(dirname "$c")
            mapfile -t again < <(git ls-files "${folder/\/models\//\/evaluation\/}" | grep '\.csv$')
            targets+=("${again[@]}")
            stale+=("${again[@]}")
        fi
    done
fi
for t in "${targets[@]}"; do
    [[ -f $t ]] || continue
    if [[ $t == */plans/* ]]; then
        if ! head -1 "$t" | grep -q cpu_time || [[ ! -f ${t%.csv}/lama_first.plans.json.gz ]]; then stale+=("$t"); fi
    elif ! sed -n 2p "$t" | grep -q cpu_time; then stale+=("$t"); fi
done
exec ./genplan-env snakemake ${DRYRUN:+-n} --configfile "$config" --cores "$cores" --rerun-triggers mtime params input \
    ${stale[@]:+--forcerun "${stale[@]}"} -- "${targets[@]}"
