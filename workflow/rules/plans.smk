# Stage 2: Fast Downward plans (A* + LM-cut, GBFS + FF fallback, LAMA), every plan checked by VAL.


rule plan_split:
    input:
        benchmark_problems,
    output:
        plans=directory(L.plans_dir("{benchmark}", "{domain}", "{split}")),
        table=L.plans_table("{benchmark}", "{domain}", "{split}"),
    params:
        planner=planner_params,
    threads: config["planner"]["threads"]
    resources:
        mem_mb=planner_mem_mb,
        runtime=scaled(config["planner"]["runtime_min"]),
    log:
        L.log("plans", "{benchmark}", "{domain}", "{split}"),
    benchmark:
        L.benchmark("plans", "{benchmark}", "{domain}", "{split}")
    conda:
        "../../envs/planning.yaml"
    shell:
        "genplan plan --benchmark-dir {input:q} --split {wildcards.split} --params {params.planner:q} "
        "--threads {threads} --out-dir {output.plans:q} --out-table {output.table:q} 2> {log:q}"
