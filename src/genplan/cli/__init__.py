"""The `genplan` command line: the subcommands that the Snakemake rules call (the rules call nothing
else) and a few a user runs by hand (`solve`, `validate`, `doctor`, `cluster-plan`). Each is
declared as a `Command` (cli.types) in the module of what it does: the problems (`cli.problems`),
Fast Downward's plans (`cli.plans`), the data made from them and VAL's checks (`cli.data`), training
(`cli.train`), planning with a trained model (`cli.solve`), the Plansformer baseline (`cli.plansformer`),
the reports (`cli.report`) and the cluster's checks and cost (`cli.cluster`). Each argument that is a
path declares what it is (`cli.writes`), so that `main` refuses, before the command runs, an output
that would destroy an input or a folder that is not the command's own (genplan.outputs.guard); a
GenplanError ends a command with one line and a non-zero status."""

from __future__ import annotations

import argparse
import errno
import logging
import sys

from genplan.cli import cluster, data, plans, plansformer, problems, protocol, report, solve, train, writes
from genplan.errors import GenplanError

DESCRIPTION = "The `genplan` command line: one subcommand per pipeline stage (Snakemake rules only call these)."
COMMANDS = (*problems.COMMANDS, *plans.COMMANDS, *data.COMMANDS, *train.COMMANDS, *solve.COMMANDS,
            *plansformer.COMMANDS, *report.COMMANDS, *cluster.COMMANDS, *protocol.COMMANDS)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="genplan", description=DESCRIPTION)
    p.add_argument("-v", "--verbose", action="store_true", help="debug log lines")
    sub = p.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        command.add_to(sub)
    return p


def _no_space(args) -> str:
    """A full disk named by the command's outputs (as its arguments declare them, genplan.cli.writes),
    not by whatever file the failing call held (a write names none; a copy names its source)."""
    outs = writes.output_paths(args)
    return (f"{', '.join(outs) or 'the output'}: no space left on the device (or the disk quota is used up) "
            "while writing it; its temporary files were removed and nothing was published: free space there "
            "or write elsewhere")


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO,
                        format="%(asctime)s %(levelname)s %(message)s", stream=sys.stderr)
    try:
        writes.check(args)  # no output may destroy an input or what is not its own (genplan.outputs)
        return args.func(args)
    except GenplanError as exc:
        print(f"genplan: error: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:  # a file that cannot be read or written
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            print(f"genplan: error: {_no_space(args)}", file=sys.stderr)
            return 1
        print(f"genplan: error: {exc.filename or ''}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    except ValueError as exc:  # unknown names from the registries
        print(f"genplan: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
