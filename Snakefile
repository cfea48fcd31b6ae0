# genplan: learning to plan from PDDL, from problems to the papers' tables.
# Run: snakemake --cores 2 all            (default configuration, CPU only)
#      snakemake --profile slurm all      (paper configuration on a SLURM cluster)
from snakemake.utils import min_version

min_version("9.0")


configfile: "config.yaml"


include: "workflow/rules/common.smk"
include: "workflow/rules/problems.smk"
include: "workflow/rules/plans.smk"
include: "workflow/rules/trajectories.smk"
include: "workflow/rules/statespaces.smk"
include: "workflow/rules/stats.smk"
include: "workflow/rules/training.smk"
include: "workflow/rules/evaluation.smk"
include: "workflow/rules/report.smk"


rule all:
    input:
        all_outputs(),
    default_target: True
