# Stage 7 (state-centric models): decode one split with one trained model, seed and beam mode;
# every plan checked by VAL; one small CSV per job (committed).


rule evaluate_transition_model:
    input:
        model="results/models/{benchmark}/{domain}/{model}/seed{seed}/model.ckpt",
        problems=benchmark_problems,
        plans="results/plans/{benchmark}/{domain}/{split}.csv",
    output:
        "results/evaluation/{benchmark}/{domain}/{model}/seed{seed}/{split}.{beam_mode}.csv",
    params:
        decode=decode_params,
    wildcard_constraints:
        model="(wl|fsf)_(lstm|xgb)_(state|delta)",
        seed=r"\d+",
        beam_mode="pooled|reference|pooled-nostatics|reference-nostatics",
    threads: 1
    resources:
        mem_mb=evaluation_resource("mem_mb", 4000),
        runtime=evaluation_resource("runtime_min", 120),
    log:
        "logs/evaluation/{benchmark}/{domain}/{model}/seed{seed}/{split}.{beam_mode}.log",
    benchmark:
        "results/benchmarks/evaluation/{benchmark}/{domain}/{model}/seed{seed}/{split}.{beam_mode}.tsv"
    conda:
        "../../envs/learning.yaml"
    shell:
        "genplan evaluate --model {input.model} --benchmark-dir {input.problems} "
        "--split {wildcards.split} --plans-table {input.plans} --params {params.decode:q} "
        "--beam-mode {wildcards.beam_mode} --benchmark {wildcards.benchmark} --seed {wildcards.seed} "
        "--out {output} 2> {log}"
