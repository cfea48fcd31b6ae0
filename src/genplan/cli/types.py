"""Argument types shared by the command-line modules."""

from __future__ import annotations

import argparse
import json


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
