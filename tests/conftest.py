"""Shared fixtures: the papers' instances beside the checkout (read-only), and small helpers."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PAPER_SPLITS = REPO.parent / "shared" / "benchmarks" / "paper-splits"


@pytest.fixture(scope="session")
def paper_splits() -> Path:
    if not PAPER_SPLITS.is_dir():
        if os.environ.get("GENPLAN_REQUIRE_SHARED"):  # CI: the folder must be there
            pytest.fail(f"GENPLAN_REQUIRE_SHARED is set but {PAPER_SPLITS} is missing")
        pytest.skip(f"the papers' instances are not beside the checkout ({PAPER_SPLITS})")
    return PAPER_SPLITS


def run_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """Run the installed `genplan` command line as a user would."""
    return subprocess.run([sys.executable, "-m", "genplan", *map(str, args)], capture_output=True, text=True, cwd=cwd)
