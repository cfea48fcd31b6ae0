"""The one error type that command-line entry points turn into a clear message and exit 1."""

from __future__ import annotations

from pathlib import Path


class GenplanError(Exception):
    """A user-facing failure: names the file (when there is one) and what is wrong with it."""

    def __init__(self, message: str, path: str | Path | None = None):
        self.path = None if path is None else Path(path)
        self.message = message
        super().__init__(f"{self.path}: {message}" if self.path is not None else message)
