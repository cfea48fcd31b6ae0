#!/usr/bin/env bash
# WL models with static atoms left out of every graph (`transition.wl.statics: false`, training and
# inference alike) beside the committed runs, which embed them in both (the default) and, for the
# `-nostatics` decoders, at training only (the reference's defect 2). Seed SEED (13), the training
# and decoding settings of workflow/configs/paper-cpu.yaml, on the published instances: needs the
# paper benchmark's problems, plans tables and train/validation trajectories
# (snakemake ... results/trajectories/paper/<domain>/...).
# Prints coverage and decoding time per split and decoder for each run.
#
#   bash benchmarks/wl_without_statics.sh DOMAIN "SPLITS" MODEL...   [OUT=dir, default a temp dir; SEED=13]
#   bash benchmarks/wl_without_statics.sh visitall "interpolation extrapolation" wl_lstm_state wl_xgb_delta
set -euo pipefail
DOMAIN=$1; SPLITS=$2; shift 2
OUT=${OUT:-$(mktemp -d)}
SEED=${SEED:-13}
CONFIG=workflow/configs/paper-cpu.yaml
# a training job's and a decoding job's parameters as the workflow builds them from CONFIG
# (common.smk: transition_params, decode_params), with `statics: false` for WL
params_of() {
    python3 - "$CONFIG" "$1" <<'PY'
import json, sys, yaml
config, what = yaml.safe_load(open(sys.argv[1])), sys.argv[2]
if what == "decode":
    print(json.dumps({k: v for k, v in config["decode"].items() if k != "beam_modes"}, sort_keys=True))
else:
    t = config["transition"]
    print(json.dumps({"encoder": {**(t.get("wl") or {}), "statics": False}, "learner": t[what],
                      "device": t["device"], "threads": t["threads"]}, sort_keys=True))
PY
}
XGB=$(params_of xgb); LSTM=$(params_of lstm); DECODE=$(params_of decode)
for model in "$@"; do
    params=$XGB; [[ $model == *lstm* ]] && params=$LSTM
    dir=$OUT/$DOMAIN/$model/seed$SEED; mkdir -p "$dir"
    [ -f "$dir/model.ckpt" ] || genplan train --model "$model" --domain "$DOMAIN" --seed "$SEED" --params "$params" \
        --train-traj "results/trajectories/paper/$DOMAIN/train.json.gz" --val-traj "results/trajectories/paper/$DOMAIN/validation.json.gz" \
        --out "$dir/model.ckpt" --log "$dir/training.csv" --summary "$dir/summary.json" 2> "$dir/train.log"
    for split in $SPLITS; do
        for beam in pooled reference; do
            [ -f "$dir/$split.$beam.csv" ] || genplan evaluate --model "$dir/model.ckpt" --benchmark-dir "results/problems/paper/$DOMAIN" \
                --split "$split" --plans-table "results/plans/paper/$DOMAIN/$split.csv" --params "$DECODE" --beam-mode "$beam" \
                --benchmark paper --seed "$SEED" --out "$dir/$split.$beam.csv" 2> "$dir/$split.$beam.log"
        done
    done
done
python3 - "$OUT" "$DOMAIN" "$SPLITS" "$SEED" "$@" <<'PY'
import csv, json, sys
from pathlib import Path
out, domain, splits, seed, models = Path(sys.argv[1]), sys.argv[2], sys.argv[3].split(), sys.argv[4], sys.argv[5:]
def cell(path):
    if not path.is_file():
        return "-"
    rows = list(csv.DictReader(open(path)))
    return f"{sum(r['solved'] == 'yes' for r in rows)}/{len(rows)} {sum(float(r['time']) for r in rows):.0f}s"
print(f"seed {seed}; dim: WL feature dimension without statics; each run: solved/problems and decoding seconds")
print(f"{'model':14s} {'split':13s} {'decoder':10s} {'dim':>4s} {'no statics':>14s} {'statics both':>14s} {'train only':>14s}")
for m in models:
    dim = json.load(open(out / domain / m / f"seed{seed}" / "summary.json"))["feature_dim"]
    committed = Path("results/evaluation/paper") / domain / m / f"seed{seed}"
    for split in splits:
        for beam in ("pooled", "reference"):
            print(f"{m:14s} {split:13s} {beam:10s} {dim:4d} {cell(out / domain / m / f'seed{seed}' / f'{split}.{beam}.csv'):>14s} "
                  f"{cell(committed / f'{split}.{beam}.csv'):>14s} {cell(committed / f'{split}.{beam}-nostatics.csv'):>14s}")
PY
