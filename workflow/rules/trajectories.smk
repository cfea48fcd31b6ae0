# Stage 3: VAL state sequences of every plan, cross-checked with pymimir.


rule trajectories:
    input:
        problems=benchmark_problems,
        plans="results/plans/{benchmark}/{domain}/{split}",
        table="results/plans/{benchmark}/{domain}/{split}.csv",
    output:
        "results/trajectories/{benchmark}/{domain}/{split}.json.gz",
    log:
        "logs/trajectories/{benchmark}/{domain}/{split}.log",
    benchmark:
        "results/benchmarks/trajectories/{benchmark}/{domain}/{split}.tsv"
    conda:
        "../../envs/planning.yaml"
    shell:
        "genplan trajectories --benchmark-dir {input.problems} --split {wildcards.split} "
        "--plans-dir {input.plans} --plans-table {input.table} --out {output} 2> {log}"
