#!/usr/bin/env bash
# `genplan solve` on problems far larger than any training problem: a 30-block Blocksworld and a
# 15 x 15 VisitAll grid, made by our generators (seed 2026), each beside Fast Downward (A* + LM-cut,
# GBFS + FF, LAMA-first, 60 s each) on the same file. Prints outcome, plan length and time.
#
#   bash perf/solve_large.sh [results/models/paper] [model ...]
#
# Models default to wl_xgb_delta (the best extrapolating model of the state-centric paper).
set -euo pipefail
MODELS_ROOT=${1:-results/models/paper}
shift || true
MODELS=${*:-wl_xgb_delta}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

genplan generate --domain blocks --seed 2026 --out "$WORK/blocks" \
    --params '{"sizes": {"extrapolation": [30]}, "per_size": {"extrapolation": 1}}' 2>/dev/null
genplan generate --domain visitall --seed 2026 --out "$WORK/visitall" \
    --params '{"sizes": {"extrapolation": [225]}, "per_size": {"extrapolation": 1}, "max_side": 15}' 2>/dev/null
FD='{"memory_limit_mb": 4096, "optimal": {"time_limit": 60}, "fallback": {"enabled": true, "time_limit": 60}, "lama": {"enabled": true, "time_limit": 60}}'

printf '%-9s %-28s %-9s %8s %9s\n' domain solver outcome length seconds
for domain in blocks visitall; do
    problem=$(ls "$WORK/$domain"/extrapolation/*.pddl)
    for model in $MODELS; do
        ckpt="$MODELS_ROOT/$domain/$model/seed13/model.ckpt"
        start=$(date +%s.%N)
        if genplan solve --model "$ckpt" "$WORK/$domain/domain.pddl" "$problem" --out "$WORK/$domain-$model.plan" \
            > "$WORK/$domain-$model.log" 2>&1; then outcome=valid; else outcome=unsolved; fi
        seconds=$(echo "$(date +%s.%N) - $start" | bc)
        length=$( [ -f "$WORK/$domain-$model.plan" ] && grep -vc '^;' "$WORK/$domain-$model.plan" || echo -)
        printf '%-9s %-28s %-9s %8s %9.1f\n' "$domain" "$model (pooled beam)" "$outcome" "$length" "$seconds"
        tail -1 "$WORK/$domain-$model.log" | sed 's/^/          /'
    done
    genplan plan --benchmark-dir "$WORK/$domain" --split extrapolation --params "$FD" \
        --out-dir "$WORK/$domain-fd" --out-table "$WORK/$domain-fd.csv" 2>/dev/null
    tail -n +2 "$WORK/$domain-fd.csv" | while IFS=, read -r _ config status length seconds _; do
        printf '%-9s %-28s %-9s %8s %9.1f\n' "$domain" "fast downward $config" "$status" "${length:--}" "$seconds"
    done
done
