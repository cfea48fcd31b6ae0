"""Run one fuzz target (tests/fuzz/targets.py) under atheris, coverage-guided over genplan's own
modules and the PDDL library's (not lark, its parser generator: instrumented, it parsed 13
problems a second, 154 without):

    ./genplan-env python tests/fuzz/run.py TARGET [libFuzzer flags] [CORPUS_DIR ...]

e.g. `-max_total_time=300 -timeout=10 -artifact_prefix=crashes/ corpus/problem`. An empty (or no)
corpus folder is seeded from the target's seeds first. A finding is written as
`<artifact_prefix>crash-<sha1>` (or timeout-, oom-) and the run exits non-zero; rerun one input
with `run.py TARGET that-file`. Targets: the keys of targets.TARGETS. The longer run of every
target, one after another, is perf/fuzz.sh."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import atheris

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

with atheris.instrument_imports(include=["genplan", "pddl"]):
    import targets


def main(argv: list[str]) -> None:
    if len(argv) < 2 or argv[1] not in targets.TARGETS:
        sys.exit(f"usage: run.py TARGET [libFuzzer flags] [CORPUS_DIR ...]; targets: {list(targets.TARGETS)}")
    one_input, seeds = targets.TARGETS[argv[1]]
    rest = argv[2:]
    dirs = [a for a in rest if not a.startswith("-") and Path(a).is_dir()]
    if not [a for a in rest if not a.startswith("-")]:  # no corpus and no input: a fresh seeded corpus
        dirs = [tempfile.mkdtemp(prefix=f"genplan-fuzz-{argv[1]}-")]
        rest.append(dirs[0])
    if dirs and not any(Path(dirs[0]).iterdir()):
        for i, seed in enumerate(seeds()):
            (Path(dirs[0]) / f"seed-{i}").write_bytes(seed)
    atheris.Setup([argv[0], *rest], one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main(sys.argv)
