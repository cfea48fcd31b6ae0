# Seed 15 of the loop in ../p7_plangpt_blocks_b256_bf16_4of7ep_s14/command.sh (its second seed).
