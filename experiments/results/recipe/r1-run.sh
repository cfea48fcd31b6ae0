#!/bin/bash
# one SymT^ED training job per settings file, one after another, nice 5, one thread, CPU
cd /work/main
R=runs/recipe
for name in "$@"; do
  mkdir -p /tmp/helper-ramp/$name
  nice -n 5 ./genplan-env genplan train --model symt_ed --settings "$(cat /tmp/helper-ramp/$name.json)" \
    --domain blocks --train $R/statespaces/paper/blocks/train.csv $R/statespaces/paper/blocks/train \
    $R/trajectories/paper/blocks/train.json.gz --validation $R/trajectories/paper/blocks/validation.json.gz \
    --seed 13 --threads 1 --device cpu --out /tmp/helper-ramp/$name/model.ckpt \
    --log /tmp/helper-ramp/$name/training.csv --summary /tmp/helper-ramp/$name/summary.json \
    2> /tmp/helper-ramp/$name/train.log
  echo "$name rc $?"
done
