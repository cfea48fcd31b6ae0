"""perf/ipc2023_race.sh resumes the IPC race on a fresh clone: it imports the domains (new files), then touches
the committed outputs so that Snakemake does not take them for stale. Snakemake dates a job by the oldest of
its outputs and its benchmark file, so every folder of the results root that holds a rule's output or
benchmark and is committed must be touched; one left out (jobstats was) sends every committed table and model
back to be made again, hours of planning. Derived from the workflow's rules, so a new committed output folder
is covered."""

from __future__ import annotations

import re
from pathlib import Path

import yaml
from conftest import REPO, committed_files

CONFIG = REPO / "workflow" / "configs" / "ipc2023-cpu.yaml"
SCRIPT = REPO / "perf" / "ipc2023_race.sh"


def _rule_folders(root: str) -> set[str]:
    """The first folder under `root` of every output and benchmark pattern of the workflow's rules."""
    from snakemake.api import SnakemakeApi
    from snakemake.settings.types import ConfigSettings, OutputSettings, ResourceSettings

    folders = set()
    with SnakemakeApi(OutputSettings()) as api:
        wf = api.workflow(resource_settings=ResourceSettings(), snakefile=REPO / "Snakefile", workdir=REPO,
                          config_settings=ConfigSettings(configfiles=[CONFIG]))._workflow
        for rule in wf.rules:
            patterns = [str(f) for f in rule.output] + ([str(rule.benchmark)] if rule.benchmark else [])
            for pattern in patterns:
                rel = Path(pattern)
                if rel.is_relative_to(root) and rel != Path(root):
                    folders.add(rel.relative_to(root).parts[0])
    return folders


def _touched(script: str) -> set[str]:
    """The folders the script's touch step lists with `git ls-files "$root/<folder>" ...`."""
    lines = [line for line in script.replace("\\\n", " ").splitlines() if "git ls-files" in line and '"$root/' in line]
    assert len(lines) == 1, f"{SCRIPT.name}: expected one `git ls-files \"$root/...\"` line, found {len(lines)}"
    return set(re.findall(r'"\$root/([^"/]+)"', lines[0]))


def test_the_race_script_touches_every_committed_folder_that_dates_a_job():
    root = yaml.safe_load(CONFIG.read_text())["results_dir"]
    committed = {Path(f).relative_to(root).parts[0] for f in committed_files(root) if "/" in f[len(root) + 1:]}
    dating = _rule_folders(root) & committed
    assert {"plans", "evaluation", "models", "jobstats"} <= dating, dating  # the test sees what it guards
    script = SCRIPT.read_text()
    missing = dating - _touched(script)
    assert not missing, (f"{SCRIPT.name} does not touch the committed {sorted(missing)} of {root}: on a fresh clone "
                         "those outputs look older than the imported problems and every job using them runs again")


def test_the_race_script_gives_every_committed_output_one_time():
    """Touched one after the other, a checkpoint or plans table listed after the evaluations made from it is
    newer than they (by microseconds: Snakemake compares the full time), and they run again."""
    touches = [line for line in SCRIPT.read_text().splitlines() if re.search(r"\btouch\b", line.split("#")[0])]
    assert touches, f"{SCRIPT.name} touches nothing"
    assert all('-d "@$stamp"' in line for line in touches), touches
