cd /work/main
export OMP_NUM_THREADS=1
bash experiments/results/recipe/diffusion-curve.sh blocks 24 c8_diffusion_blocks 6000:b06
