"""Commands for running on a cluster: `genplan doctor` (does this node's GPU run our torch?) and
`genplan cluster-plan` (what a configuration's run will ask of the cluster, before it is submitted)."""

from __future__ import annotations

import json
import sys

from genplan.cli import writes
from genplan.cli.types import Command, arg

GPU_CHECK_DEFAULT = "perf/results/gpu-check-cuda-h100.txt"


def cmd_doctor(a) -> int:
    from genplan import atomic, devices

    rep = devices.report()
    print(rep.line())
    problems = []
    if rep.torch_cuda is None:
        problems.append("torch is a CPU-only build: install a CUDA build (GENPLAN_TORCH_INDEX, docs/cluster.md)")
    if rep.driver_ok is False:
        problems.append(f"the NVIDIA driver {rep.driver} is older than {rep.min_driver}, which torch's CUDA "
                        f"{rep.torch_cuda} needs: choose a torch build for this driver (GENPLAN_TORCH_INDEX, "
                        "docs/cluster.md) or update the driver")
    if not rep.cuda_available:
        problems.append("torch sees no CUDA device")
    if a.out:
        atomic.write_text(a.out, json.dumps({**rep.to_dict(), "problems": problems}, indent=2) + "\n")
    if a.require_gpu and problems:
        print("genplan: error: this node cannot train on a GPU: " + "; ".join(problems), file=sys.stderr)
        return 1
    for p in problems:
        print(f"note: {p}")
    return 0


def cmd_cluster_plan(a) -> int:
    from pathlib import Path

    from genplan import atomic, cluster_plan

    lines = cluster_plan.plan(Path(a.configfile), a.profile, Path(a.gpu_check),
                              [Path(p) for p in a.jobstats] if a.jobstats else None)
    text = "\n".join(lines) + "\n"
    print(text, end="")
    if a.out:
        atomic.write_text(a.out, text)
    return 0


def _jobstats(a):
    from genplan.cluster_plan import JOBSTATS

    return [str(p) for p in JOBSTATS]


def _dry_run_reads(a, configfile: str):
    """The workflow Snakemake's dry run reads, in the folder the command runs in."""
    yield "the workflow it dry-runs", "Snakefile", False
    yield "the workflow it dry-runs", "workflow", True


COMMANDS = (
    Command("doctor", cmd_doctor, "say whether torch can use this node's GPU (torch's CUDA against the driver)", (
        arg("--require-gpu", action="store_true",
            help="exit 1 unless torch sees a CUDA device and the driver runs torch's CUDA (run it on a GPU node: "
            "srun -p <gpu partition> --gpus 1 genplan doctor --require-gpu)"),
        arg("--out", default=None, path=writes.OUT_FILE, help="also write the findings as JSON here"))),
    Command("cluster-plan", cmd_cluster_plan, "what a configuration's run will ask of the cluster: jobs, GPU- and "
            "CPU-hours, storage and the longest job, per rule, before anything is submitted", (
                arg("--configfile", required=True, path=writes.PathArg("read", also=_dry_run_reads),
                    help="the configuration (e.g. workflow/configs/paper.yaml)"),
                arg("--profile", default="slurm", path=writes.TREE, help="the Snakemake profile the run will use"),
                arg("--gpu-check", default=str(GPU_CHECK_DEFAULT), path=writes.READ,
                    help="perf/gpu_check.py's table: paper-size training steps/s on a named GPU"),
                arg("--jobstats", nargs="*", default=None, path=writes.PathArg("tree", default=_jobstats),
                    help="folders of Snakemake jobstats (CPU rates); default: the committed CPU runs'"),
                arg("--out", default=None, path=writes.OUT_FILE, help="also write the report here"))),
)
