"""A full disk was ': No space left on device', naming no file (`generate` named the
package's own domain file, the source of a copy). Now one line naming the command's output. A real
full disk: a 64 KiB tmpfs (skipped where this process may not mount one)."""

from __future__ import annotations

import json
import subprocess

import pytest
from conftest import run_cli

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def full_disk(tmp_path):
    where = tmp_path / "small"
    where.mkdir()
    res = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(where)], capture_output=True)
    if res.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {res.stderr.decode().strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", str(where)], check=True)


def test_a_full_disk_is_one_line_naming_the_output(full_disk):
    out = full_disk / "bench"
    params = {"sizes": {"train": [20]}, "per_size": {"train": 200}}  # about 200 KB of problems
    res = run_cli("generate", "--domain", "blocks", "--params", json.dumps(params), "--seed", "0", "--out", str(out))
    assert res.returncode == 1 and "Traceback" not in res.stderr, res.stderr
    errors = [line for line in res.stderr.splitlines() if line.startswith("genplan: error:")]
    assert errors == [f"genplan: error: {out}: no space left on the device (or the disk quota is used up) while "
                      "writing it; its temporary files were removed and nothing was published: free space there "
                      "or write elsewhere"], res.stderr
    assert list(full_disk.iterdir()) == []
