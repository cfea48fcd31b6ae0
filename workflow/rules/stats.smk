# Dataset statistics table, from the data stages' files only.


rule dataset_statistics:
    input:
        stats_inputs,
    output:
        csv=L.table("dataset-statistics", "csv"),
        md=L.table("dataset-statistics", "md"),
    params:
        args=stats_args,
        results=results_root_of,
    log:
        L.log("tables", "dataset-statistics"),
    conda:
        "../../envs/report.yaml"
    shell:
        "genplan stats --results {params.results:q} {params.args} "
        "--out-csv {output.csv:q} --out-md {output.md:q} 2> {log:q}"
