"""The package passes ruff's lint as pyproject.toml configures it ([tool.ruff]): `ruff check src/genplan`,
the lint a CI runs, here so that the README's test command covers it (ruff is in the test extras). A
failure names each file, line and rule; the second test shows the configured rules catch a real slip."""

from __future__ import annotations

import subprocess
import sys

from conftest import REPO


def _ruff(*args: str) -> subprocess.CompletedProcess:
    res = subprocess.run([sys.executable, "-m", "ruff", *args], cwd=REPO, capture_output=True, text=True)
    assert "No module named ruff" not in res.stderr, "ruff is not installed: pip install -e '.[test]'"
    return res


def test_the_package_passes_ruff_check():
    res = _ruff("check", "--no-cache", "src/genplan")
    assert res.returncode == 0, res.stdout[-6000:] + res.stderr[-2000:]


def test_the_configured_rules_catch_an_unused_import_and_a_late_bound_loop_variable(tmp_path):
    bad = tmp_path / "slip.py"
    bad.write_text("import os\n\n\ndef make():\n    return [lambda: i for i in range(3)]\n")
    res = _ruff("check", "--no-cache", "--config", str(REPO / "pyproject.toml"), str(bad))
    assert res.returncode == 1
    assert "F401" in res.stdout and "B023" in res.stdout, res.stdout
