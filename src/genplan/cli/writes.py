"""What each `genplan` subcommand reads and writes, by its arguments' names, so that the command line
refuses, before the command runs, an output that would destroy an input or another output
(genplan.outputs.check_separate), or a folder it would replace that is not its own (check_out_dir).
Every subcommand has an entry (tests/test_output_safety.py checks it): a new command declares its
paths here."""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from genplan import outputs


@dataclass(frozen=True)
class Paths:
    """A command's path arguments by `dest`: `folders` it replaces as a whole, `files` it writes,
    `reads` its inputs, `trees` its input folders read as a whole (nothing may be written inside)."""

    folders: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    reads: tuple[str, ...] = ()
    trees: tuple[str, ...] = ()


BENCH = ("benchmark_dir",)
PATHS = {
    "generate": Paths(folders=("out",)),
    "import": Paths(folders=("out",), trees=("source",)),
    "import-ipc2023": Paths(folders=("out",), reads=("checksums",), trees=("source",)),
    "import-folder": Paths(folders=("out",), reads=("checksums",), trees=("source",)),
    "plan": Paths(folders=("out_dir",), files=("out_table",), trees=BENCH),
    "plan-anytime": Paths(folders=("out_dir",), files=("out_table",), reads=("plans_table",), trees=BENCH),
    "plan-files": Paths(folders=("out_dir",), reads=("domain", "problems")),
    "trajectories": Paths(files=("out",), reads=("plans_table",), trees=(*BENCH, "plans_dir")),
    "statespace": Paths(folders=("out_dir",), files=("out_table",), trees=BENCH),
    "stats": Paths(files=("out_csv", "out_md"), reads=("results",)),
    "validate": Paths(reads=("domain", "problem", "plan", "evaluation", "problems", "plans")),
    "train": Paths(files=("out", "log", "summary"), reads=("train", "validation")),
    "solve": Paths(files=("out", "trace"), reads=("model", "domain", "problem", "reference_plan", "configfile")),
    "evaluate": Paths(files=("out", "out_plans"), reads=("model", "plans_table"), trees=BENCH),
    "plansformer": Paths(files=("out", "out_plans"), reads=("plans_table",), trees=(*BENCH, "checkpoint")),
    # report writes named files under --out-dir (tables/, figures/), never replacing the folder
    "report": Paths(reads=("results", "published")),
    "doctor": Paths(files=("out",)),
    "cluster-plan": Paths(files=("out",), reads=("configfile", "gpu_check", "jobstats")),
}
POSITIONAL = {"plan-files": {"domain": "DOMAIN", "problems": "PROBLEM"},
              "solve": {"domain": "DOMAIN", "problem": "PROBLEM"},
              "validate": {"domain": "DOMAIN", "problem": "PROBLEM", "plan": "PLAN"}}


def _label(command: str, dest: str) -> str:
    """How the user wrote the argument: DOMAIN for a positional one, else its option."""
    return POSITIONAL.get(command, {}).get(dest) or "--" + dest.replace("_", "-")


def _given(args: argparse.Namespace, dests: tuple[str, ...]) -> dict[str, str]:
    return {d: getattr(args, d) for d in dests if getattr(args, d, None) not in (None, "", [])}


def check(args: argparse.Namespace) -> None:
    """Refuse the parsed command's outputs that name an input or each other (genplan.outputs)."""
    spec, command = PATHS.get(args.command), args.command
    if spec is None:  # a command without an entry: its test fails, the command is not stopped
        return

    def labelled(dests):
        return {_label(command, d): v for d, v in _given(args, dests).items()}

    reads = {k: v if isinstance(v, list) else [v] for k, v in labelled(spec.reads).items()}
    outputs.check_separate(labelled(spec.folders), labelled(spec.files), reads, labelled(spec.trees))
    for label, path in labelled(spec.files).items():
        outputs.check_file(path, label)
    for folder in _given(args, spec.folders).values():
        outputs.check_out_dir(folder, command)
