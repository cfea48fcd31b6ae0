# Stage 6, every family: one training job per (benchmark, domain, model, seed) on its family's
# data (trajectories or state spaces); the validation split selects the weights. A job killed
# mid-way resumes from its partial state (model.ckpt.partial) when rerun. `train_model` trains the families that ask
# for a GPU (`gpu: 1`), `train_model_cpu` the CPU-only ones (the learned heuristics): the same job,
# in two rules so that a cluster profile sends each to its own partition.


rule train_model:
    wildcard_constraints:
        model=models_training_on_gpu(True),
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
        L.jobstats("training", "{benchmark}", "{domain}", "{model}", "seed{seed}")
    conda:
        "../../envs/learning.yaml"
    shell:
        "genplan train --model {wildcards.model} --settings {params.settings:q} --domain {wildcards.domain} "
        "--train {input.train:q} --validation {input.validation:q} --seed {wildcards.seed} --threads {threads} "
        "--device {params.device} --gpus {resources.gpu} --out {output.ckpt:q} --log {output.history:q} --summary {output.summary:q} 2> {log:q}"


use rule train_model as train_model_cpu with:
    wildcard_constraints:
        model=models_training_on_gpu(False),
