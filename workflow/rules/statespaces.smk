# Stage 4: full state spaces (states, h*, transitions) of the training problems, with pymimir.

# minutes a state-space job may run on a cluster (the profiles' `runtime`), the same on every attempt (so
# a retry never asks past a partition's limit; a retry helps a job killed for its memory, which grows)
STATESPACE_RUNTIME_MIN = 480


rule statespace_split:
    input:
        benchmark_problems,
    output:
        spaces=directory(L.statespace_dir("{benchmark}", "{domain}", "{split}")),
        table=L.statespace_table("{benchmark}", "{domain}", "{split}"),
    params:
        max_states=config["statespace"]["max_states"],
    resources:
        mem_mb=scaled(config["statespace"]["mem_mb"]),
        runtime=STATESPACE_RUNTIME_MIN,
    log:
        L.log("statespaces", "{benchmark}", "{domain}", "{split}"),
    benchmark:
        L.jobstats("statespaces", "{benchmark}", "{domain}", "{split}")
    conda:
        "../../envs/planning.yaml"
    shell:
        "genplan statespace --benchmark-dir {input:q} --split {wildcards.split} --max-states {params.max_states} "
        "--out-dir {output.spaces:q} --out-table {output.table:q} 2> {log:q}"
