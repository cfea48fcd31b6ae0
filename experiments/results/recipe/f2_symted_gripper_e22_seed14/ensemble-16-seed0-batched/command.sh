# f2's checkpoint (runs/exp/f2_symted_gripper_e22_seed14/model.ckpt, not committed; ../command.sh trains it) planned
# again with the renaming ensemble of 16 (seed 0) after commit 8558437 made its members one batch of K rows: every
# plan, verdict and model_calls count as in ../ensemble-16-seed0/ (one network call a member, commit 46b07c0);
# timing.txt compares the planning times. Both ran beside two paper-cpu trainings on the two cores.
cd /work/main
export OMP_NUM_THREADS=1
n=f2_symted_gripper_e22_seed14; o=/tmp/s53/f2c; mkdir -p $o; ln -sf /work/main/runs/exp/$n/model.ckpt $o/model.ckpt
e2=$(python3 -c "import json;e=json.load(open('runs/exp/$n/entry.json'));e['names']={'order':'random','samples':16,'seed':0};print(json.dumps(e))")
for s in greedy-reground greedy-applicable; do
  ./genplan-env python experiments/recipe_trial.py $n --config workflow/configs/paper-cpu.yaml --results runs/recipe \
    --model symt_ed --domain gripper --seed 14 --set "$e2" --strategy $s --splits train,interpolation,validation \
    --out $o --evaluate-only
done
# extrapolation, regrounding only (the same with --out /tmp/s53/f2b --splits extrapolation --strategy greedy-reground)
# then their CSVs, plans and logs copied here, and timing.txt written by:
python3 - > experiments/results/recipe/f2_symted_gripper_e22_seed14/ensemble-16-seed0-batched/timing.txt <<'PY'
import csv
base = "experiments/results/recipe/f2_symted_gripper_e22_seed14/"
print("split strategy: planning seconds summed over the split's problems, one call a member (ensemble-16-seed0/) | one batch (this folder); identical plans and model_calls")
for split in ["train", "interpolation", "validation", "extrapolation"]:
    for s in ["greedy-reground", "greedy-applicable"]:
        try:
            a = list(csv.DictReader(open(f"{base}ensemble-16-seed0/{split}.{s}.csv")))
            b = list(csv.DictReader(open(f"{base}ensemble-16-seed0-batched/{split}.{s}.csv")))
        except FileNotFoundError:
            continue
        same = [(r["problem"], r["solved"], r["plan_length"], r["model_calls"]) for r in a] == \
               [(r["problem"], r["solved"], r["plan_length"], r["model_calls"]) for r in b]
        ta, tb = sum(float(r["time"]) for r in a), sum(float(r["time"]) for r in b)
        print(f"{split} {s}: {ta:.2f} | {tb:.2f} s ({ta / tb:.1f}x); same solved, lengths, model_calls: {same}")
PY
# and the plans compared byte for byte: for f in *.plans.json.gz; do cmp <(zcat $f) <(zcat ../ensemble-16-seed0/$f); done
