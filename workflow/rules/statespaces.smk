# Stage 4: full state spaces (states, h*, transitions) of the training problems, with pymimir.


rule statespace_split:
    input:
        benchmark_problems,
    output:
        spaces=directory("results/statespaces/{benchmark}/{domain}/{split}"),
        table="results/statespaces/{benchmark}/{domain}/{split}.csv",
    params:
        max_states=config["statespace"]["max_states"],
    resources:
        mem_mb=config["statespace"]["mem_mb"],
    log:
        "logs/statespaces/{benchmark}/{domain}/{split}.log",
    benchmark:
        "results/benchmarks/statespaces/{benchmark}/{domain}/{split}.tsv"
    conda:
        "../../envs/planning.yaml"
    shell:
        "genplan statespace --benchmark-dir {input} --split {wildcards.split} "
        "--max-states {params.max_states} --out-dir {output.spaces} --out-table {output.table} 2> {log}"
