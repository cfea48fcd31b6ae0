"""What the command-line modules share: the argument types, the help formatter, and `Command`, the
table entry that declares one subcommand (its function, help and arguments)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from dataclasses import dataclass

from genplan.cli import writes


def json_object(text: str) -> dict:
    """An argparse type: a JSON object given on the command line (rules pass configuration so)."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise argparse.ArgumentTypeError(f"not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError("expected a JSON object")
    return value


class HelpFormatter(argparse.RawDescriptionHelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
    """Every command's help: the description as written, and each option's default (none shown for
    a required option or one without a default)."""

    def _get_help_string(self, action):
        if action.required or action.default is None or action.help is None:
            return action.help
        return super()._get_help_string(action)


def arg(*flags: str, **options) -> tuple[tuple[str, ...], dict]:
    """One argument of a `Command`: `add_argument`'s flags and options, and `path`, what a path
    argument is to the output guard (genplan.cli.writes: READ, OUT_FILE, ...)."""
    return flags, options


@dataclass(frozen=True)
class Command:
    """One subcommand: `genplan <name>` runs `func(args)`, whose return value is the exit status."""

    name: str
    func: Callable[[argparse.Namespace], int]
    help: str
    args: tuple[tuple[tuple[str, ...], dict], ...]
    description: str | None = None

    def add_to(self, sub) -> None:
        """Register on the `genplan` parser's subparsers."""
        parser = sub.add_parser(self.name, help=self.help, description=self.description, formatter_class=HelpFormatter)
        paths = {}
        for flags, options in self.args:
            action = parser.add_argument(*flags, **{k: v for k, v in options.items() if k != "path"})
            # what the argument's path is to the output guard (genplan.cli.writes), on the action itself
            action.genplan_path = options.get("path") or writes.implied(action)
            paths[action.dest] = writes.Declared(writes.label(action), action.genplan_path)
        parser.set_defaults(func=self.func, genplan_paths=paths)


# arguments that several commands take with the same meaning
BENCHMARK_DIR = arg("--benchmark-dir", required=True, path=writes.TREE,
                    help="a benchmark folder with manifest.csv and domain.pddl")
SPLIT = arg("--split", required=True, path=writes.NOT_PATH, help="train, validation, interpolation or extrapolation (ipc2023: train, easy, "
            "medium or hard)")
PLANS_TABLE = arg("--plans-table", required=True, path=writes.READ, help="the split's plans table (genplan plan --out-table)")

