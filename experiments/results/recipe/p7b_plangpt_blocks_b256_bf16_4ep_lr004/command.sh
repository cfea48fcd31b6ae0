# Trial p7b of the loops in ../p7a_plangpt_blocks_b256_bf16_7ep_limit3600/command.sh (their second trial).
