# Stage 8 (state-centric paper): Tables 1 and 3, Figures 2-4, the quality, decoders and agreement
# tables, built only from the evaluation CSVs, plans tables and training summaries; the outputs
# are the report module's own list (genplan.report.registry).


rule report_state_centric:
    input:
        state_centric_report_inputs,
    output:
        reported("state-centric"),
    params:
        results=results_root_of,
    log:
        L.log("report", "state-centric"),
    conda:
        "../../envs/report.yaml"
    shell:
        "genplan report state-centric --results {params.results:q} 2> {log:q}"


# Stage 8 (SymT paper): Table 2 (coverage of the sequence models under each decoding) and Table 1
# (parameter counts), from the evaluation CSVs and training summaries of the sequence families.


rule report_symt:
    input:
        symt_report_inputs,
    output:
        reported("symt"),
    params:
        results=results_root_of,
    log:
        L.log("report", "symt"),
    conda:
        "../../envs/report.yaml"
    shell:
        "genplan report symt --results {params.results:q} 2> {log:q}"


# Stage 8 (PlanGPT paper): Table 1 (CE vs CES under greedy, multibeam and top-p decoding), Table 2
# (top-p with CES on the extrapolation split, against the IPC sets) and Figure 3 (validation loss
# and coverage per epoch with both stop points), from the PlanGPT models' CSVs, summaries and logs.


rule report_plangpt:
    input:
        plangpt_report_inputs,
    output:
        reported("plangpt"),
    params:
        results=results_root_of,
    log:
        L.log("report", "plangpt"),
    conda:
        "../../envs/report.yaml"
    shell:
        "genplan report plangpt --results {params.results:q} 2> {log:q}"


# Stage 8 (plan-diffusion paper): Table 1 (coverage and quality of diffusion beside PlanGPT greedy
# and SymT^ED greedy, extrapolation too), Table 2 (an unmasking trace committed under
# <results>/traces/, from `genplan solve --trace`), Figure 4 (coverage and time per plan against T
# on Blocksworld interpolation, both schedules). Reads the evaluation CSVs only.


rule report_diffusion:
    input:
        diffusion_report_inputs,
    output:
        reported("diffusion"),
    params:
        results=results_root_of,
    log:
        L.log("report", "diffusion"),
    conda:
        "../../envs/report.yaml"
    shell:
        "genplan report diffusion --results {params.results:q} 2> {log:q}"


# One leaderboard for every system of the pipeline (issue 16): coverage, quality against the best
# known plan, median time, model size, training time and device, from the evaluation CSVs, plans
# tables and training summaries; the state-centric Table 4 (model sizes) from the same numbers.


rule leaderboard:
    input:
        leaderboard_inputs,
    output:
        reported("leaderboard"),
    params:
        results=results_root_of,
    log:
        L.log("report", "leaderboard"),
    conda:
        "../../envs/report.yaml"
    shell:
        "genplan report leaderboard --results {params.results:q} 2> {log:q}"

