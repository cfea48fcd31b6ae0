# Trial s2 of the loop in ../p5a_plangpt_blocks_96steps_fp32/command.sh (its second setting: `"cpu_bf16": true`),
# run with --out /tmp/bb/s2 and copied here.
