#!/usr/bin/env bash
# WL models with static atoms left out of every graph (`encoder: {statics: false}`, training and
# inference alike) beside the committed runs, which embed them in both (the default) and, for the
# `-nostatics` decoders, at training only (the reference's defect 2). Seed SEED (13), the training
# and decoding settings of workflow/configs/paper-cpu.yaml, on the published instances: needs the
# paper benchmark's problems, plans tables and train/validation trajectories
# (snakemake ... results/trajectories/paper/<domain>/...).
# Prints coverage and decoding time per split and decoder for each run.
#
#   bash experiments/wl_without_statics.sh DOMAIN "SPLITS" MODEL...   [OUT=dir, default a temp dir; SEED=13]
#   bash experiments/wl_without_statics.sh visitall "interpolation extrapolation" wl_lstm_state wl_xgb_delta
set -euo pipefail
DOMAIN=$1; SPLITS=$2; shift 2
OUT=${OUT:-$(mktemp -d)}
SEED=${SEED:-13}
CONFIG=workflow/configs/paper-cpu.yaml
# a model's training settings and planning settings as the workflow builds them from CONFIG
# (common.smk: model_settings, planning_settings), with `statics: false` for WL
settings_of() {
    python3 - "$CONFIG" "$1" "$2" <<'PY'
import json, sys, yaml
config, model, what = yaml.safe_load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
entry = config["models"][model]
if what == "decode":
    print(json.dumps({"decode": entry["decode"]}, sort_keys=True))
else:
    entry = {k: v for k, v in entry.items() if k not in ("seeds", "strategies")}
    print(json.dumps({**entry, "encoder": {**entry["encoder"], "statics": False}}, sort_keys=True))
PY
}
for model in "$@"; do
    settings=$(settings_of "$model" train); decode=$(settings_of "$model" decode)
    dir=$OUT/$DOMAIN/$model/seed$SEED; mkdir -p "$dir"
    [ -f "$dir/model.ckpt" ] || genplan train --model "$model" --domain "$DOMAIN" --seed "$SEED" --settings "$settings" \
        --train "results/trajectories/paper/$DOMAIN/train.json.gz" --validation "results/trajectories/paper/$DOMAIN/validation.json.gz" \
        --threads 1 --out "$dir/model.ckpt" --log "$dir/training.csv" --summary "$dir/summary.json" 2> "$dir/train.log"
    for split in $SPLITS; do
        for beam in pooled reference; do
            [ -f "$dir/$split.beam3-$beam.csv" ] || genplan evaluate --model "$dir/model.ckpt" --benchmark-dir "results/problems/paper/$DOMAIN" \
                --split "$split" --plans-table "results/plans/paper/$DOMAIN/$split.csv" --settings "$decode" --strategy "beam3-$beam" \
                --benchmark paper --seed "$SEED" --out "$dir/$split.beam3-$beam.csv" 2> "$dir/$split.beam3-$beam.log"
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
            print(f"{m:14s} {split:13s} {beam:10s} {dim:4d} {cell(out / domain / m / f'seed{seed}' / f'{split}.beam3-{beam}.csv'):>14s} "
                  f"{cell(committed / f'{split}.beam3-{beam}.csv'):>14s} {cell(committed / f'{split}.beam3-{beam}-nostatics.csv'):>14s}")
PY
