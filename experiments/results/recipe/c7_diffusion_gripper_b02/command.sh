cd /work/main
export OMP_NUM_THREADS=1
bash experiments/results/recipe/diffusion-curve.sh gripper 16 c7_diffusion_gripper 2000:b02
