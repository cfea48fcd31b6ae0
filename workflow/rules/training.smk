# Stage 6 (state-centric models): one training job per (benchmark, domain, model, seed); the
# encoder is fitted on the training split, the validation split selects the epoch / round.
# A job killed mid-way resumes from <checkpoint>.partial when rerun.


rule train_transition:
    input:
        train="results/trajectories/{benchmark}/{domain}/train.json.gz",
        val="results/trajectories/{benchmark}/{domain}/validation.json.gz",
    output:
        ckpt="results/models/{benchmark}/{domain}/{model}/seed{seed}/model.ckpt",
        history="results/models/{benchmark}/{domain}/{model}/seed{seed}/training.csv",
        summary="results/models/{benchmark}/{domain}/{model}/seed{seed}/summary.json",
    params:
        training=transition_params,
    wildcard_constraints:
        model="(wl|fsf)_(lstm|xgb)_(state|delta)",
        seed=r"\d+",
    threads: config["transition"]["threads"]
    resources:
        gpu=1,  # a cluster resource (sbatch --gpus=1); local runs ignore it and use CUDA only if present
        mem_mb=config["transition"]["mem_mb"],
        runtime=config["transition"]["runtime_min"],
    log:
        "logs/training/{benchmark}/{domain}/{model}/seed{seed}.log",
    benchmark:
        "results/benchmarks/training/{benchmark}/{domain}/{model}/seed{seed}.tsv"
    conda:
        "../../envs/learning.yaml"
    shell:
        "genplan train --model {wildcards.model} --domain {wildcards.domain} "
        "--train-traj {input.train} --val-traj {input.val} --params {params.training:q} "
        "--seed {wildcards.seed} --out {output.ckpt} --log {output.history} "
        "--summary {output.summary} 2> {log}"
