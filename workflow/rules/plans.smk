# Stage 2: Fast Downward plans (A* + LM-cut, GBFS + FF fallback, LAMA), every plan checked by VAL.


rule plan_split:
    input:
        benchmark_problems,
    output:
        plans=directory("results/plans/{benchmark}/{domain}/{split}"),
        table="results/plans/{benchmark}/{domain}/{split}.csv",
    params:
        planner=planner_params,
    threads: config["planner"]["threads"]
    resources:
        mem_mb=planner_mem_mb,
        runtime=config["planner"]["runtime_min"],
    log:
        "logs/plans/{benchmark}/{domain}/{split}.log",
    benchmark:
        "results/benchmarks/plans/{benchmark}/{domain}/{split}.tsv"
    conda:
        "../../envs/planning.yaml"
    shell:
        "genplan plan --benchmark-dir {input} --split {wildcards.split} "
        "--params {params.planner:q} --threads {threads} --out-dir {output.plans} --out-table {output.table} 2> {log}"
