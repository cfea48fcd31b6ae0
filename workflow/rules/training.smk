# Stage 6, every family: one training job per (benchmark, domain, model, seed) on its family's
# data (trajectories or state spaces); the validation split selects the weights. A job killed
# mid-way resumes from <checkpoint>.partial when rerun.


rule train_model:
    input:
        unpack(training_data),
    output:
        ckpt=L.checkpoint("{benchmark}", "{domain}", "{model}", "{seed}"),
        history=L.training_log("{benchmark}", "{domain}", "{model}", "{seed}"),
        summary=L.training_summary("{benchmark}", "{domain}", "{model}", "{seed}"),
    params:
        settings=model_settings,
        device=config["training"]["device"],
    threads: config["training"]["threads"]
    resources:
        gpu=training_resources("gpu"),  # sbatch --gpus on a cluster; local runs use CUDA only if present
        mem_mb=training_resources("mem_mb"),
        runtime=training_resources("runtime_min"),
    log:
        L.log("training", "{benchmark}", "{domain}", "{model}", "seed{seed}"),
    benchmark:
        L.benchmark("training", "{benchmark}", "{domain}", "{model}", "seed{seed}")
    conda:
        "../../envs/learning.yaml"
    shell:
        "genplan train --model {wildcards.model} --settings {params.settings:q} --domain {wildcards.domain} "
        "--train {input.train:q} --validation {input.validation:q} --seed {wildcards.seed} --threads {threads} "
        "--device {params.device} --out {output.ckpt:q} --log {output.history:q} --summary {output.summary:q} 2> {log:q}"
