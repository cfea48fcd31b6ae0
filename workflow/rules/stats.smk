# Dataset statistics table, from the data stages' files only.


rule dataset_statistics:
    input:
        stats_inputs,
    output:
        csv="results/tables/dataset-statistics.csv",
        md="results/tables/dataset-statistics.md",
    params:
        args=stats_args,
    log:
        "logs/tables/dataset-statistics.log",
    conda:
        "../../envs/report.yaml"
    shell:
        "genplan stats --results results {params.args} "
        "--out-csv {output.csv} --out-md {output.md} 2> {log}"
