"""The `genplan` command line: one subcommand per pipeline stage (Snakemake rules only call these):
the data stages in `cli.data`, the learned planners of every family in `cli.models`."""

from __future__ import annotations

import argparse
import logging
import sys

from genplan.cli import data, models
from genplan.cli.types import HelpFormatter
from genplan.errors import GenplanError

log = logging.getLogger("genplan")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="genplan", description=__doc__)
    p.add_argument("-v", "--verbose", action="store_true", help="debug log lines")
    sub = p.add_subparsers(dest="command", required=True)
    data.add_parsers(sub)  # generate, import, plan, plan-anytime, plan-files, trajectories, statespace, stats, validate
    models.add_parsers(sub)  # train, solve, evaluate, report, migrate
    for command in sub.choices.values():  # every command's --help shows its defaults
        command.formatter_class = HelpFormatter
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO,
                        format="%(asctime)s %(levelname)s %(message)s", stream=sys.stderr)
    try:
        return args.func(args)
    except GenplanError as exc:
        print(f"genplan: error: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:  # a file that cannot be read or written
        print(f"genplan: error: {exc.filename or ''}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    except ValueError as exc:  # unknown names from the registries
        print(f"genplan: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
