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
        runtime=config["planner"]["runtime_min"],
    log:
        L.log("plans", "{benchmark}", "{domain}", "{split}"),
    benchmark:
        L.jobstats("plans", "{benchmark}", "{domain}", "{split}")
    conda:
        "../../envs/planning.yaml"
    shell:
        "genplan plan --benchmark-dir {input:q} --split {wildcards.split} --params {params.planner:q} "
        "--threads {threads} --out-dir {output.plans:q} --out-table {output.table:q} 2> {log:q}"


# Stage 2b: anytime LAMA (to its time limit, the last plan kept) on the problems the plans table
# leaves without a proven optimum: the best-known reference of the reports' quality. Its own table
# and folder beside the plans stage's, so that enabling it reruns nothing trained from the plans.


rule anytime_plans:
    input:
        problems=benchmark_problems,
        plans=L.plans_table("{benchmark}", "{domain}", "{split}"),
    output:
        plans=directory(L.anytime_dir("{benchmark}", "{domain}", "{split}")),
        table=L.anytime_table("{benchmark}", "{domain}", "{split}"),
    params:
        planner=anytime_params,
    threads: config["planner"]["threads"]
    resources:
        mem_mb=planner_mem_mb,
        runtime=config["planner"]["runtime_min"],
    log:
        L.log("anytime-plans", "{benchmark}", "{domain}", "{split}"),
    benchmark:
        L.jobstats("anytime-plans", "{benchmark}", "{domain}", "{split}")
    conda:
        "../../envs/planning.yaml"
    shell:
        "genplan plan-anytime --benchmark-dir {input.problems:q} --split {wildcards.split} "
        "--plans-table {input.plans:q} --params {params.planner:q} --threads {threads} "
        "--out-dir {output.plans:q} --out-table {output.table:q} 2> {log:q}"
