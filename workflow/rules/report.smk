# Stage 8: one rule per report of genplan.report.registry (the papers' tables and figures, and the
# leaderboard), built only from the result files the registry says it reads (evaluation CSVs,
# training summaries and logs, plans tables); its outputs are the report module's own list.


def report_rule(paper, name):
    """The rule `name` that builds the report `paper` (a function, so that each rule's command is
    bound to its own report: a rule's shell command is evaluated again when its job runs)."""

    rule:
        name:
            name
        input:
            report_inputs(paper),
        output:
            reported(paper),
        params:
            results=results_root_of,
        log:
            L.log("report", paper),
        conda:
            "../../envs/report.yaml"
        shell:
            f"genplan report {paper} --results {{params.results:q}} 2> {{log:q}}"


for _paper, _rep in reports.REPORTS.items():
    report_rule(_paper, _rep.rule)
