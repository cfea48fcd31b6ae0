# Stage 7, every family: plan one split with one trained model, seed and strategy; every plan
# checked by VAL; one small CSV per job and every plan found beside it (both committed; `genplan
# validate --evaluation` checks the plans again).


rule evaluate_model:
    input:
        model=L.checkpoint("{benchmark}", "{domain}", "{model}", "{seed}"),
        problems=benchmark_problems,
        plans=L.plans_table("{benchmark}", "{domain}", "{split}"),
    output:
        csv=L.evaluation("{benchmark}", "{domain}", "{model}", "{seed}", "{split}", "{strategy}"),
        plans=L.evaluation_plans("{benchmark}", "{domain}", "{model}", "{seed}", "{split}", "{strategy}"),
    params:
        settings=planning_settings,
        protocol=protocol_args(),
    threads: config["evaluation"].get("threads", 1)  # problems planned at once, a worker process each
    group: evaluation_group()  # cluster runs: group jobs of one trained model's evaluations (common.smk)
    resources:
        mem_mb=scaled(config["evaluation"]["mem_mb"]),
        runtime=config["evaluation"]["runtime_min"],
    log:
        L.log("evaluation", "{benchmark}", "{domain}", "{model}", "seed{seed}", "{split}.{strategy}"),
    benchmark:
        L.jobstats("evaluation", "{benchmark}", "{domain}", "{model}", "seed{seed}", "{split}.{strategy}")
    conda:
        "../../envs/learning.yaml"
    shell:
        "genplan evaluate --model {input.model:q} --benchmark-dir {input.problems:q} --split {wildcards.split} "
        "--plans-table {input.plans:q} --strategy {wildcards.strategy} --settings {params.settings:q} "
        "--benchmark {wildcards.benchmark} --seed {wildcards.seed} --jobs {threads} --out {output.csv:q} "
        "--out-plans {output.plans:q}{params.protocol} 2> {log:q}"
