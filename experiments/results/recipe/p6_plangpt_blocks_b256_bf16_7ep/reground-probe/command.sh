# Why regrounding loops where greedy solves probBLOCKS-4-2 (experiments/sequence-recipe.md, "Within the hour"):
# mid-4-2.pddl is probBLOCKS-4-2 with its initial state replaced by the state after greedy's first two
# actions, (unstack c b) (stack c d); p6's checkpoint (runs/exp/p6_plangpt_blocks_b256_bf16_7ep/model.ckpt,
# not committed; remade by ../command.sh) plans it greedily:
cd /work/main
export OMP_NUM_THREADS=1
D=experiments/results/recipe/p6_plangpt_blocks_b256_bf16_7ep/reground-probe
./genplan-env genplan solve --model runs/exp/p6_plangpt_blocks_b256_bf16_7ep/model.ckpt --strategy greedy \
    runs/recipe/problems/paper/blocks/domain.pddl $D/mid-4-2.pddl --out $D/mid-4-2.greedy.plan
