"""The benchmark registry, as families have one (genplan.registry): what each benchmark declares, in one
place, for the configuration check, the workflow and the importer.

A benchmark (`Benchmark`) declares
- its splits: the training split `train` first, an optional `validation`, then its test levels;
- where its problems come from (`source`): `generators` (ours, seeded), `release` (the papers' pinned
  download) or `folder` (a folder the user names, read in one of the `LAYOUTS`);
- whether it ships reference plans and best known costs (`reference_plans`, `bounds`), and how it is
  scored (`scoring`: coverage, quality against the best known plan, the IPC's agile score);
- its checksums: a list pinned in the package (`ipc2023_learning.sha256`), or none, in which case the
  import records the SHA-256 of every file it read (checksums.sha256 in the problems folder).

Three are built in (`BUILTIN`): `generated`, `paper` and `ipc2023`; `ipc2023` is an entry of the folder
kind in the `ipc2023` layout with its checksums pinned (its import keeps its own rule and command,
`genplan import-ipc2023`, so that the committed results are not re-imported). Any other benchmark is
registered by configuration alone: an entry of `benchmark_folders` names its folder, its layout and
(for the flat layout) which problems make which split:

    benchmarks: [mine]
    benchmark_folders:
      mine: {path: my-benchmark, layout: flat, splits: {train: ["p0[1-4]"], test: ["p0[5-7]"]}}

Layouts, under the folder, one subfolder per domain (the config's `domains` name them):
- `ipc2023`: <domain>/domain.pddl, <domain>/training/easy/*.pddl (split train),
  <domain>/testing/<easy|medium|hard>/*.pddl (one split a level present), reference plans under
  <domain>/plans/<same path>.plan where present (the IPC 2023 learning track's repository);
- `flat`: Fast Downward's benchmarks: <domain>/domain.pddl beside the problems <domain>/*.pddl; each
  split lists shell patterns (fnmatch) of problem names (file stems); a problem matched by two splits
  is refused, one matched by none is left out (the import logs how many).
Split names come from genplan.paths.FOLDER_SPLITS (train, validation, test, easy, medium, hard).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from genplan.domains import DOMAINS, GENERATED_DOMAINS, IPC2023_DOMAINS
from genplan.paths import FOLDER_SPLITS, IPC2023_SPLITS, SPLITS

LAYOUTS = ("ipc2023", "flat")
SOURCES = ("generators", "release", "folder")
SCORES = ("coverage", "quality", "agile")
IPC2023_LEVELS = {"train": "training/easy", "easy": "testing/easy", "medium": "testing/medium",
                  "hard": "testing/hard"}  # split -> folder of the ipc2023 layout


@dataclass(frozen=True)
class Benchmark:
    name: str
    splits: tuple[str, ...]  # train first, then validation where there is one, then the test levels
    source: str  # one of SOURCES
    domains: tuple[str, ...] | None = None  # None: the subfolders of a folder benchmark's `path`
    layout: str | None = None  # a folder benchmark's (LAYOUTS)
    path: str | None = None  # a folder benchmark's folder (for ipc2023: the config's ipc2023_dir)
    patterns: dict = field(default_factory=dict)  # flat layout: split -> problem name patterns
    checksums: str | None = None  # a pinned checksum list shipped in genplan/data; None: recorded on import
    reference_plans: bool = False
    bounds: bool = False  # ships best known costs (<problems>/upper_bounds.csv)
    scoring: tuple[str, ...] = ("coverage", "quality")

    @property
    def test_splits(self) -> tuple[str, ...]:
        return tuple(s for s in self.splits if s not in ("train", "validation"))


BUILTIN = {
    "generated": Benchmark("generated", SPLITS, "generators", domains=GENERATED_DOMAINS),
    "paper": Benchmark("paper", SPLITS, "release", domains=DOMAINS, checksums="paper_release.sha256",
                       reference_plans=True),
    "ipc2023": Benchmark("ipc2023", IPC2023_SPLITS, "folder", domains=IPC2023_DOMAINS, layout="ipc2023",
                         checksums="ipc2023_learning.sha256", reference_plans=True, bounds=True,
                         scoring=SCORES),
}


def from_entry(name: str, entry: dict) -> Benchmark:
    """A user's folder benchmark from its `benchmark_folders` entry (checked by the schema: path,
    layout, splits for the flat layout)."""
    if entry["layout"] == "flat":
        patterns = {s: tuple(entry["splits"][s]) for s in FOLDER_SPLITS if s in entry.get("splits", {})}
        splits = tuple(patterns)
    else:
        patterns = {}
        splits = IPC2023_SPLITS  # the levels a domain's folder has are imported (a config names the ones it runs)
    return Benchmark(name, splits, "folder", layout=entry["layout"], path=entry["path"], patterns=patterns,
                     checksums=entry.get("checksums"), reference_plans=entry["layout"] == "ipc2023",
                     scoring=("coverage", "quality"))


def configured(config: dict) -> dict[str, Benchmark]:
    """Every benchmark a configuration can name: the built-in ones and its `benchmark_folders`."""
    out = dict(BUILTIN)
    for name, entry in (config.get("benchmark_folders") or {}).items():
        out[name] = from_entry(name, entry)
    return out


def folder_names(config: dict) -> list[str]:
    """The configuration's own folder benchmarks (the workflow's `import_folder` rule serves them)."""
    return list(config.get("benchmark_folders") or {})


def source_files(bench: Benchmark, domain: str) -> list[str]:
    """The files of a folder benchmark's domain the import may read (PDDL and plans, sorted): the import
    rule's inputs, so that a changed or added file imports the domain again."""
    folder = Path(bench.path, domain)
    return sorted(str(p) for p in folder.rglob("*") if p.suffix in (".pddl", ".plan") and p.is_file())


def domains_of(bench: Benchmark) -> tuple[str, ...]:
    """The domains a benchmark provides: its declared ones, or its folder's subfolders with a domain.pddl."""
    if bench.domains is not None:
        return bench.domains
    root = Path(bench.path)
    return tuple(sorted(p.name for p in root.iterdir() if (p / "domain.pddl").is_file())) if root.is_dir() else ()


def faults(config: dict) -> list[str]:
    """One line per problem of the configured benchmarks' names and folders: an unknown name, a built-in
    name reused by `benchmark_folders`, a folder that is not there, a flat layout without a `train` split
    (genplan.configuration then checks the domains and splits each provides, and reads the folders)."""
    known = configured(config)
    lines = [f"benchmark_folders.{n}: {n!r} is a built-in benchmark; name yours otherwise"
             for n in folder_names(config) if n in BUILTIN]
    lines += [f"benchmarks: unknown benchmark {b!r}; the built-in ones are {list(BUILTIN)}, or name a folder "
              f"under benchmark_folders" for b in config["benchmarks"] if b not in known]
    for name in folder_names(config):
        bench = known[name]
        if not Path(bench.path).is_dir():
            lines.append(f"benchmark_folders.{name}.path: no such folder: {bench.path}")
        elif bench.layout == "flat" and "train" not in bench.splits:
            lines.append(f"benchmark_folders.{name}.splits: the flat layout needs a `train` split")
    return lines
