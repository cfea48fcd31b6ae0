cd /work/main
export OMP_NUM_THREADS=1
nice -n 10 ./genplan-env python experiments/recipe_trial.py c1_symte_gripper_b005 --config workflow/configs/budget-cpu.yaml --results runs/recipe --model symt_e_b005 --domain gripper --strategy heuristic-greedy --splits train,interpolation,validation --out runs/exp/c1_symte_gripper_b005
