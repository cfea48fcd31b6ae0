"""./genplan-env, the README's way in: cheap checks on a copy of the script in a scratch folder,
with virtual environments made --without-pip (a tenth of a second) and nothing installed. The
real install (system python3, first and second call) is checked by hand: see the script."""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "genplan-env"
NO_PIP_MESSAGE = "apt-get install python3-venv (or python3-pip)"


def test_script_is_executable_posix_sh():
    assert SCRIPT.stat().st_mode & stat.S_IXUSR
    assert SCRIPT.read_text().startswith("#!/bin/sh\n")
    subprocess.run(["sh", "-n", str(SCRIPT)], check=True)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A scratch 'repository': the script and a pyproject.toml (physical path: the script
    records `pwd -P`)."""
    root = tmp_path.resolve()
    shutil.copy2(SCRIPT, root / "genplan-env")
    (root / "pyproject.toml").write_text('[project]\nname = "scratch"\n')
    return root


def make_venv(root: Path, stamp: bool) -> Path:
    venv = root / ".venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    if stamp:  # what the script writes after a successful install
        digest = hashlib.sha256((root / "pyproject.toml").read_bytes()).hexdigest()
        (venv / ".genplan-installed").write_text(f"{digest} {venv}\n")
    return venv


def run(root: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if k not in ("PYTHON", "PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run([str(root / "genplan-env"), *args], capture_output=True, text=True, timeout=60,
                          env={**base, "PATH": "/usr/bin:/bin", **env})


def test_ready_venv_runs_the_command_at_once(project):
    venv = make_venv(project, stamp=True)
    res = run(project, "sh", "-c", 'printf "%s\\n" "$VIRTUAL_ENV" "$(command -v python)" "$1"; exit 7',
              "sh", "two words")
    assert res.returncode == 7, res.stderr  # the command's exit status passes through
    assert res.stdout.splitlines() == [str(venv), str(venv / "bin" / "python"), "two words"]
    assert res.stderr == ""  # nothing made, nothing installed

    res = run(project)
    assert res.returncode == 0 and "genplan-env snakemake --cores 2 all" in res.stdout
    assert "genplan-env python -m pytest" in res.stdout


@pytest.fixture
def debian_without_venv_nor_pip(tmp_path_factory) -> dict[str, str]:
    """A python3 like Debian's without python3-venv and python3-pip: `-m venv` fails unless
    --without-pip, and neither ensurepip nor pip imports (in it or in a venv made from it)."""
    d = tmp_path_factory.mktemp("debian")
    for module in ("ensurepip", "pip"):
        (d / "shadow" / module).mkdir(parents=True)
        (d / "shadow" / module / "__init__.py").write_text(f"raise ImportError('no {module} (simulated)')\n")
    python3 = d / "python3"
    python3.write_text(f"""#!/bin/sh
if [ "$1" = -m ] && [ "$2" = venv ]; then
    case " $* " in *" --without-pip "*) ;; *) echo "ensurepip is not available (simulated)" >&2; exit 1 ;; esac
fi
exec "{sys.executable}" "$@"
""")
    python3.chmod(0o755)
    return {"PYTHON": str(python3), "PYTHONPATH": str(d / "shadow")}


def test_broken_venv_is_made_anew_and_missing_pip_named(project, debian_without_venv_nor_pip):
    venv = make_venv(project, stamp=True)
    (venv / "bin" / "python").unlink()
    (venv / "bin" / "python").symlink_to("/nonexistent/python3")  # e.g. its base Python removed
    res = run(project, "true", **debian_without_venv_nor_pip)
    assert res.returncode != 0
    assert "making it anew" in res.stderr
    assert NO_PIP_MESSAGE in res.stderr.strip().splitlines()[-1]  # one line says what to install
    # made anew, with --without-pip; no stamp: the next call installs
    subprocess.run([str(venv / "bin" / "python"), "-c", "pass"], check=True)
    assert not (venv / ".genplan-installed").exists()


@pytest.mark.parametrize("stamp", ["missing", "stale"])
def test_unfinished_or_stale_install_is_redone(project, debian_without_venv_nor_pip, stamp):
    venv = make_venv(project, stamp=True)
    (venv / "kept").touch()
    if stamp == "missing":  # an install that was interrupted
        (venv / ".genplan-installed").unlink()
    else:  # dependencies changed since
        with open(project / "pyproject.toml", "a") as f:
            f.write('dependencies = ["numpy"]\n')
    res = run(project, "true", **debian_without_venv_nor_pip)
    # it goes to install (here it finds no pip to install with), in the same venv
    assert res.returncode != 0 and NO_PIP_MESSAGE in res.stderr.strip().splitlines()[-1], res.stderr
    assert (venv / "kept").exists()
