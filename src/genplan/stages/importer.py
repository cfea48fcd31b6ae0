"""Stage 1 for the `paper` benchmark: import the papers' exact instances (and their reference
plans) from a local folder laid out like the public release, or download them from the release,
pinned by commit, every file checked against the SHA-256 sums shipped in `data/paper_release.sha256`.

Local layout (and the layout of `data/paper_release.sha256`):
    <domain>/domain.pddl, <domain>/<split dir>/*.pddl, <domain>/reference-plans/<split dir>/*.plan
with split dirs train, validation, test-interpolation, test-extrapolation.
"""

from __future__ import annotations

import hashlib
import logging
import shutil
import urllib.request
from importlib import resources
from pathlib import Path

from genplan import atomic
from genplan.domains import check_domain
from genplan.errors import GenplanError
from genplan.formats import manifest
from genplan.pddl_io import atom_to_str, parse_domain, parse_problem
from genplan.stages.generators import size_parameter

log = logging.getLogger("genplan")

RELEASE_REPO = "ai4society/state-centric-gen-planning"
RELEASE_COMMIT = "ac8a3a97fa7526381199a89bc99c4afc94ce4796"
RELEASE_URL = f"https://raw.githubusercontent.com/{RELEASE_REPO}/{RELEASE_COMMIT}/data"
UPSTREAM_DOMAIN = {"blocks": "blocks", "gripper": "gripper", "logistics": "logistics", "visitall": "visitall-from-everywhere"}
SPLIT_DIRS = {"train": "train", "validation": "validation", "interpolation": "test-interpolation", "extrapolation": "test-extrapolation"}


def release_checksums() -> dict[str, str]:
    text = (resources.files("genplan") / "data" / "paper_release.sha256").read_text()
    sums = {}
    for line in text.splitlines():
        digest, rel = line.split(maxsplit=1)
        sums[rel.strip()] = digest
    return sums


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _upstream_url(rel: str, base: str) -> str:
    """Map a path of our layout to the release repository's layout (data/pddl, data/plans)."""
    parts = rel.split("/")
    dom = UPSTREAM_DOMAIN[parts[0]]
    if parts[1] == "reference-plans":
        return f"{base}/plans/{dom}/{'/'.join(parts[2:])}"
    return f"{base}/pddl/{dom}/{'/'.join(parts[1:])}"


def download_release(domain: str, dest: Path, base_url: str = RELEASE_URL) -> Path:
    """Fetch one domain's files of the pinned release into `dest/<domain>/`, verifying each."""
    sums = {rel: d for rel, d in release_checksums().items() if rel.startswith(domain + "/")}
    for rel, digest in sums.items():
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        url = _upstream_url(rel, base_url)
        try:
            with urllib.request.urlopen(url, timeout=60) as resp:
                data = resp.read()
        except OSError as exc:
            raise GenplanError(f"cannot download {url}: {exc}; give a local folder (paper_splits in the configuration)") from None
        if hashlib.sha256(data).hexdigest() != digest:
            raise GenplanError(f"checksum mismatch for {url}: the release changed or the download is corrupt", target)
        target.write_bytes(data)
    return dest / domain


def import_benchmark(domain: str, source: str | Path | None, out_dir: str | Path, verify: bool = True) -> list[dict]:
    """Copy one domain's instances into a genplan benchmark folder with a manifest.

    `source` is a folder laid out like the release (its `<domain>/` subfolder is read), or None to
    download the pinned release. With `verify`, each local file must match the release checksums."""
    check_domain(domain)
    out_dir = Path(out_dir)
    with atomic.output_dir(out_dir, owner="import") as tmp:
        tmp = Path(tmp)
        if source is None:
            src = download_release(domain, tmp / ".download")
        else:
            src = Path(source) / domain
            if not src.is_dir():
                raise GenplanError(f"no folder for domain {domain!r} in the benchmark source", src)
        rows = _copy_tree(domain, src, tmp, verify and source is not None)
        if source is None:
            shutil.rmtree(tmp / ".download")
        atomic.write_text(tmp / "manifest.csv", manifest.to_csv(rows))
    log.info("imported %d %s problems", len(rows), domain)
    return rows


def _copy_tree(domain: str, src: Path, dst: Path, verify: bool) -> list[dict]:
    sums = release_checksums() if verify else {}

    def copy(path: Path, rel: str) -> Path:
        if verify:
            if rel not in sums:
                raise GenplanError("file is not part of the pinned release", path)
            if _sha256(path) != sums[rel]:
                raise GenplanError("file differs from the pinned release (checksum mismatch)", path)
        target = dst / rel.split("/", 1)[1]
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
        return target

    dom_file = src / "domain.pddl"
    if not dom_file.is_file():
        raise GenplanError("domain.pddl missing", dom_file)
    copy(dom_file, f"{domain}/domain.pddl")
    dom = parse_domain(dom_file)  # the user's files are parsed and named in messages, not the copies
    rows = []
    for split, split_dir in SPLIT_DIRS.items():
        files = sorted((src / split_dir).glob("*.pddl"))
        if not files:
            raise GenplanError(f"no problems for split {split!r}", src / split_dir)
        for f in files:
            copy(f, f"{domain}/{split_dir}/{f.name}")
            task = parse_problem(f, dom)
            canonical = "\n".join(sorted(atom_to_str(a) for a in task.init | task.statics)) + "\n|" + \
                "\n".join(sorted(atom_to_str(a) for a in task.goal))
            rows.append({
                "problem": f.stem, "split": split, "file": f"{split_dir}/{f.name}",
                "size": size_parameter(domain, task), "num_objects": task.num_objects, "seed": "",
                "canonical": hashlib.sha1(canonical.encode()).hexdigest()[:16],
            })
            plan = src / "reference-plans" / split_dir / f"{f.stem}.plan"
            if plan.is_file():
                copy(plan, f"{domain}/reference-plans/{split_dir}/{plan.name}")
    if verify:
        expected = {rel for rel in sums if rel.startswith(domain + "/")}
        copied = {f"{domain}/{p.relative_to(dst).as_posix()}" for p in dst.rglob("*") if p.is_file()}
        missing = sorted(expected - copied)
        if missing:
            raise GenplanError(f"incomplete copy of the release: {len(missing)} files missing, e.g. {missing[0]}", src)
    # our folders use the pipeline's split names
    for split, split_dir in SPLIT_DIRS.items():
        if split != split_dir:
            (dst / split_dir).rename(dst / split)
            if (dst / "reference-plans" / split_dir).is_dir():
                (dst / "reference-plans" / split_dir).rename(dst / "reference-plans" / split)
    for r in rows:
        r["file"] = f"{r['split']}/{Path(r['file']).name}"
    return rows
