# genplan: learning to plan from PDDL, from problems to the papers' tables.
# Run: snakemake --cores 2 all            (default configuration, CPU only)
#      snakemake --profile slurm all      (paper configuration on a SLURM cluster)
from snakemake.utils import min_version

min_version("9.0")


# config.yaml is the default configuration, not a base: a --configfile replaces it (overlays such as
# paper-cpu-lstm-seeds.yaml are given after their base), so that one configuration's models never
# leak into another's.
if not workflow.overwrite_configfiles:

    configfile: "config.yaml"


report: "workflow/report/workflow.rst"   # `snakemake --report report.html`: every table and figure with captions


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
