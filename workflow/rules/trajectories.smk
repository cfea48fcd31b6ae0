# Stage 3: VAL state sequences of every plan, cross-checked with pymimir.


rule trajectories:
    input:
        problems=benchmark_problems,
        plans=L.plans_dir("{benchmark}", "{domain}", "{split}"),
        table=L.plans_table("{benchmark}", "{domain}", "{split}"),
    output:
        L.trajectories("{benchmark}", "{domain}", "{split}"),
    params:
        all_plans="--all-plans" if config.get("trajectories", {}).get("all_plans") else "",
    log:
        L.log("trajectories", "{benchmark}", "{domain}", "{split}"),
    benchmark:
        L.jobstats("trajectories", "{benchmark}", "{domain}", "{split}")
    conda:
        "../../envs/planning.yaml"
    shell:
        "genplan trajectories --benchmark-dir {input.problems:q} --split {wildcards.split} "
        "--plans-dir {input.plans:q} --plans-table {input.table:q} --out {output:q} {params.all_plans} 2> {log:q}"
