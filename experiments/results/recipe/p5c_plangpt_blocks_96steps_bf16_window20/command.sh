# Trial s3 of the loop in ../p5a_plangpt_blocks_96steps_fp32/command.sh (its third setting: `"cpu_bf16": true,
# "length_window": 20`), run with --out /tmp/bb/s3 and copied here.
