"""Every cluster command the documentation prints works as printed: each `snakemake ... --profile ...`
line of README.md and docs/*.md (fenced blocks and inline code, a span that wraps across lines
joined) is dry-run exactly as written, with only `-n` put after `snakemake`. A user copies these
lines; a line that fails (a target eaten by `--configfile`, a renamed profile key, a placeholder
that cannot run) fails here instead of on their cluster's login node."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.S | re.M)
INLINE = re.compile(r"(?<!`)`([^`\n]+(?:\n[^`\n]+)*?)`(?!`)")


def _commands_in(text: str) -> list[str]:
    """The shell commands of a Markdown text: fenced lines (backslash continuations joined, comments
    after the command dropped by the shell itself) and inline code spans."""
    found = []
    for block in FENCE.findall(text):
        for line in block.replace("\\\n", " ").splitlines():
            found.append(line.strip())
    prose = FENCE.sub("", text)
    found += [re.sub(r"\s*\n\s*", " ", span).strip() for span in INLINE.findall(prose)]
    return found


def cluster_commands() -> list[tuple[str, str]]:
    """(file, command) of every documented snakemake command that names a profile."""
    out = []
    for doc in DOCS:
        for cmd in _commands_in(doc.read_text()):
            bare = cmd.removeprefix("./genplan-env ").strip()
            if bare.startswith("snakemake ") and "--profile" in bare.split():
                out.append((doc.relative_to(REPO).as_posix(), bare))
    return sorted(set(out))


def test_the_documentation_prints_cluster_commands():
    # the extraction itself: the profile's main command and a configuration given with --configfile
    cmds = [c for _, c in cluster_commands()]
    assert "snakemake --profile slurm all" in cmds, cmds
    assert any("--configfile" in c for c in cmds), cmds
    assert _commands_in("a `snakemake --profile slurm\n  all` b\n```\nsnakemake -x \\\n  y  # z\n```\n") == [
        "snakemake -x    y  # z", "snakemake --profile slurm all"]


def test_a_target_after_configfile_is_the_default_target(tmp_path):
    """`--configfile X all` reads `all` as a configuration file (Snakemake's --configfile takes every word
    after it): the repository's `all` is an empty one, so the command builds the default target."""
    import yaml

    assert yaml.safe_load((REPO / "all").read_text()) == {}


@pytest.mark.slow
@pytest.mark.parametrize("doc,command", cluster_commands())
def test_documented_cluster_command_dry_runs_as_printed(doc, command):
    assert "<" not in command and "..." not in command, f"{doc}: `{command}` cannot run as printed (a placeholder)"
    if "conda" in command.split("--sdm")[-1].split() and not shutil.which("conda"):
        pytest.skip(f"{doc}: `{command}` creates conda environments and conda is not on this machine's PATH")
    dry = "snakemake -n " + command.removeprefix("snakemake ")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    res = subprocess.run(["timeout", "-k", "10", "300", "bash", "-c", dry], cwd=REPO, env=env,
                         capture_output=True, text=True)
    text = res.stdout + res.stderr
    assert res.returncode == 0, f"{doc}: `{dry}` exited {res.returncode}:\n{text[-3000:]}"
    assert "This was a dry-run" in text or "Nothing to be done" in text, text[-2000:]
