#!/bin/bash
# Recipe trials on a borrowed GPU machine (issue 25: would more compute close the Blocksworld cells the CPU
# trials leave open?): SymT^ED, PlanGPT and diffusion on Blocksworld, each the CPU recipe of its largest trial
# (experiments/sequence-recipe.md: e25, c2_plangpt_blocks_b32, c8_diffusion_blocks_b12) with 8x the batch (256), twice the
# learning rate and about 4-11x the examples, trained side by side on the one GPU for at most LIMIT wall seconds
# each (train.time_limit_s: no epoch starts that would end past it), then planned on that machine's CPUs
# (train, interpolation, validation; greedy-applicable, greedy, unmask-T20-applicable).
# usage (repository root; data: a results folder of paper-cpu with the paper splits, as runs/recipe):
#   bash experiments/gpu_trials.sh DATA OUT DEVICE LIMIT
# On the device machine (device tool; carry ["runs/recipe", ".whl"], the wheels of gpu_check.py's docstring plus
# jsonschema, jsonschema-specifications, referencing, rpds-py):
#   python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl &&
#   PYTHONPATH=/tmp/site:src bash experiments/gpu_trials.sh runs/recipe $OUT cuda 300
# (no --upgrade: with it pddl 0.4.1's data folder, pddl/parser/*.lark, replaces the package and `import pddl.core`
# fails; a machine still warm from such an install needs a new --target)
# Each trial's folder comes back as OUT/<name>.tar.gz (entry.json, model.ckpt, training.csv, summary.json, logs,
# the plans and result.txt), with OUT/gpu-trials.log (nvidia-smi, this script's lines, each trial's result).
# A checkpoint over 15 MiB stays out of the archive (the device tool brings back files of at most 16 MiB): such a
# trial is planned there with every strategy of its EXTRA line too.
# ONLY="g4 g5": the papers' network widths on the same data (SymT^ED and diffusion of workflow/configs/paper.yaml,
# d_model 768, 12 heads and layers), 64 examples a step as the papers, three times their learning rate (SymT^ED's
# hidden-state weight 0.001, ramped in over 200 steps: at this width L_hid is hundreds of times L_pred at first,
# g4_symted_blocks_paper_width/training.csv's first epoch), the cosine
# decayed over EP4 epochs of 100 optimiser steps / EP5 of 200 (the time limit may stop them sooner).
set -u
DATA=$1; OUT=$2; DEVICE=$3; LIMIT=$4
PY=${PYTHON:-python3}
DIV=${DIV:-1}  # examples divided by DIV: a quick run of the script on a CPU
SEED=${SEED:-13}; ONLY=${ONLY:-g1 g2 g3}  # the training seed; which trials (their names end in _s<SEED> unless 13)
JOBS=${JOBS:-4}; DEADLINE=${DEADLINE:-0}  # problems planned at once per trial; when the EXTRA strategies stop (s)
export OMP_NUM_THREADS=2 PYTHONUNBUFFERED=1
W=$(mktemp -d)
log=$OUT/gpu-trials.log; [ "$SEED" = 13 ] || log=$OUT/gpu-trials-s$SEED.log
{ date -u; nvidia-smi --query-gpu=name,memory.total --format=csv 2>/dev/null || echo "no nvidia-smi"; git rev-parse HEAD 2>/dev/null
  $PY -c "import torch; print('torch', torch.__version__, 'cuda', torch.cuda.is_available())"; } > "$log" 2>&1
trial() {  # name model strategy set-json
  local n=$1 m=$2 s=$3 set=$4
  case " $ONLY " in *" ${n%%_*} "*) ;; *) return 0;; esac
  [ "$SEED" = 13 ] || n=${n}_s$SEED
  run() { $PY experiments/recipe_trial.py "$n" --config workflow/configs/paper-cpu.yaml --results "$DATA" --model "$m" \
    --domain blocks --set "$set" --seed "$SEED" --jobs "$JOBS" --out "$W/$n" "$@"; }
  local big=()
  pack() {  # the trial's folder into OUT, a checkpoint over 15 MiB left out
    [ "$(stat -c %s "$W/$n/model.ckpt" 2>/dev/null || echo 0)" -gt 15728640 ] && big=(--exclude model.ckpt)
    tar -C "$W" "${big[@]}" -czf "$OUT/$n.tar.gz" "$n"; }
  echo "$(date -u +%T) start $n: --model $m --set '$set'" >> "$log"
  run --strategy "$s" --splits train,interpolation,validation --device "$DEVICE" --threads 2 > "$W/$n.out" 2>&1
  echo "$(date -u +%T) end $n (rc $?):" >> "$log"; cat "$W/$n.out" >> "$log"
  pack
  grep -q "^training: rc 0" "$W/$n.out" || return 0
  for x in ${EXTRA[${n%%_*}]:-}; do  # each stopped at DEADLINE seconds after the script's start (0: never)
    local left=$((DEADLINE > 0 ? DEADLINE - SECONDS : 86400)); [ "$left" -gt 30 ] || break
    PY="timeout $left $PY" run --strategy "$x" --splits interpolation,validation,train --evaluate-only > "$W/$n.$x.out" 2>&1
    echo "$(date -u +%T) $n, $x (rc $?):" >> "$log"; cat "$W/$n.$x.out" >> "$log"
    pack
  done
}
declare -A EXTRA=([g4]="greedy-reground" [g5]="unmask-T20")
L=", \"time_limit_s\": $LIMIT"
trial g1_symted_blocks_gpu symt_ed greedy-applicable "{\"rename\": \"rename-one\", \"object_pool\": 24,
 \"loss_weights\": [1, 1, 0.01], \"network\": {\"d_model\": 64, \"n_heads\": 4, \"d_token\": 16}, \"train\": {\"examples\":
 $((84000 / DIV)), \"epochs\": 20, \"batch_size\": 256, \"lr\": 0.002, \"warmup_steps\": 100, \"patience\": null, \"sample_by\": \"h\",
 \"keep\": \"last\"$L}}" &
trial g2_plangpt_blocks_gpu plangpt greedy "{\"object_pool\": 24, \"network\": {\"d_model\": 128, \"n_heads\": 4},
 \"train\": {\"examples\": $((100000 / DIV)), \"epochs\": 16, \"batch_size\": 256, \"lr\": 0.002, \"warmup_steps\": 100,
 \"patience\": null, \"sample_by\": \"h\", \"keep\": \"last\", \"track_coverage\": false$L}}" &
trial g3_diffusion_blocks_gpu diffusion unmask-T20-applicable "{\"object_pool\": 24, \"network\": {\"positions\":
 \"learned\"}, \"train\": {\"examples\": $((100000 / DIV)), \"epochs\": 16, \"batch_size\": 256, \"lr\": 0.004, \"warmup_steps\": 100,
 \"patience\": null, \"sample_by\": \"h\", \"keep\": \"last\", \"pad_weight\": 0.1$L}}" &
P='"network": {"d_model": 768, "n_heads": 12, "n_layers": 12'
T='"batch_size": 64, "lr": 0.0003, "warmup_steps": 100, "patience": null, "sample_by": "h", "keep": "last"'
trial g4_symted_blocks_paper_width symt_ed greedy-applicable "{\"rename\": \"rename-one\", \"object_pool\": 24,
 \"loss_weights\": [1, 1, 0.001], $P, \"d_token\": 64}, \"train\": {\"examples\": $((6400 / DIV)), \"epochs\": ${EP4:-15},
 \"decay_epochs\": ${EP4:-15}, \"contrastive_ramp_steps\": 200, $T$L}}" &
trial g5_diffusion_blocks_paper_width diffusion unmask-T20-applicable "{\"object_pool\": 24, $P, \"dropout\": 0.1,
 \"positions\": \"learned\"}, \"train\": {\"examples\": $((12800 / DIV)), \"epochs\": ${EP5:-15},
 \"decay_epochs\": ${EP5:-15}, $T, \"pad_weight\": 0.1$L}}" &
wait
date -u >> "$log"
