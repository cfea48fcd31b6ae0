# Stage 8 (state-centric paper): Tables 1 and 3, Figures 2-4 and the quality table, built only
# from the evaluation CSVs, plans tables and training summaries (no job is re-run for them).


rule report_state_centric:
    input:
        state_centric_report_inputs,
    output:
        state_centric_report_outputs(),
    log:
        "logs/report/state-centric.log",
    conda:
        "../../envs/report.yaml"
    shell:
        "genplan report state-centric --results results --out-dir results 2> {log}"
