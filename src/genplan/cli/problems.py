"""The commands that write a benchmark folder's problems: our seeded generators (`generate`), the
papers' instances (`import`), the IPC 2023 learning track's (`import-ipc2023`) and a folder of PDDL the
user names (`import-folder`, genplan.benchmarks)."""

from __future__ import annotations

import logging
from pathlib import Path

from genplan.cli import writes
from genplan.cli.types import Command, arg
from genplan.cli.types import json_object as _json

log = logging.getLogger("genplan")
DOMAIN = arg("--domain", required=True, path=writes.NOT_PATH, help="blocks, gripper, logistics or visitall")
GENERATED_DOMAIN = arg("--domain", required=True, path=writes.NOT_PATH, help="blocks, gripper, logistics, visitall, depots, driverlog, "
                       "floortile, satellite or zenotravel (genplan.domains.GENERATED_DOMAINS)")
OUT_BENCHMARK = arg("--out", required=True, path=writes.OUT_FOLDER, help="the benchmark folder (written atomically): new, empty, or "
                    "one this command wrote (genplan.outputs)")


def cmd_generate(a) -> int:
    from genplan.configuration import check_value
    from genplan.stages.problems import generate_benchmark

    check_value(a.params, ("properties", "generate", "additionalProperties"), "--params (a domain's generate section)")
    rows = generate_benchmark(a.domain, a.params, a.seed, Path(a.out))
    log.info("generated %d %s problems into %s", len(rows), a.domain, a.out)
    return 0


def cmd_import(a) -> int:
    from genplan.stages.importer import import_benchmark

    import_benchmark(a.domain, a.source or None, a.out, verify=not a.no_verify)
    return 0


def cmd_import_ipc2023(a) -> int:
    from genplan.stages.ipc_import import import_ipc2023

    import_ipc2023(a.domain, a.source, a.out, checksum_file=a.checksums)
    return 0


def cmd_import_folder(a) -> int:
    from genplan.errors import GenplanError
    from genplan.stages.folder_import import import_folder

    if a.layout == "flat" and not a.splits:
        raise GenplanError("--splits is needed for the flat layout (split -> problem name patterns)")
    import_folder(a.domain, a.source, a.layout, a.out, splits=a.splits, checksum_file=a.checksums)
    return 0


COMMANDS = (
    Command("generate", cmd_generate, "write a generated benchmark for one domain (all splits)", (
        GENERATED_DOMAIN,
        arg("--params", type=_json, required=True, help='the domain\'s generate section (JSON), e.g. '
            '{"sizes": {"train": [4, 6]}, "per_size": {"train": 3}}'),
        arg("--seed", type=int, required=True, help="the same seed gives the same problems"),
        OUT_BENCHMARK),
        description="Our seeded generators: the PDDL problems of every split at the configured sizes, duplicates "
                    "removed within and across splits, with manifest.csv and domain.pddl."),
    Command("import", cmd_import, "import the papers' instances for one domain", (
        DOMAIN,
        arg("--source", default=None, path=writes.TREE, help="local folder laid out like the release; omit to download it"),
        arg("--no-verify", action="store_true", help="accept local files that differ from the release"),
        OUT_BENCHMARK),
        description="The papers' exact instances, from a local copy laid out like the release or downloaded from "
                    "the pinned release; every file checked against its SHA-256."),
    Command("import-ipc2023", cmd_import_ipc2023, "import one domain of the IPC 2023 learning track", (
        arg("--domain", required=True, path=writes.NOT_PATH, help="an IPC 2023 domain: blocksworld, childsnack, ferry, floortile, miconic, "
            "rovers, satellite, sokoban, spanner or transport"),
        arg("--source", required=True, path=writes.TREE, help="your copy of the track's benchmarks repository (its root folder)"),
        arg("--checksums", default=None, path=writes.READ, help="a checksum list (sha256sum format) instead of the shipped one"),
        OUT_BENCHMARK),
        description="The training problems (split train) and the test levels (easy, medium, hard) of one domain, "
                    "with the reference plans and the best known costs (upper_bounds.csv), from a local copy of "
                    "the benchmarks repository (it has no licence: it is not downloaded); every file checked "
                    "against its SHA-256, the domain and every problem parsed, before anything is written."),
    Command("import-folder", cmd_import_folder, "import one domain of a folder of PDDL (your own benchmark)", (
        arg("--domain", required=True, path=writes.NOT_PATH, help="the domain's subfolder of --source"),
        arg("--source", required=True, path=writes.TREE, help="the benchmark folder: one subfolder per domain"),
        arg("--layout", required=True, choices=("ipc2023", "flat"), help="ipc2023: domain.pddl, training/easy/, "
            "testing/<level>/; flat: Fast Downward's, domain.pddl beside the problems"),
        arg("--splits", type=_json, default=None, help='flat layout: split -> shell patterns of problem names '
            '(JSON), e.g. {"train": ["p0[1-4]"], "test": ["p0[5-7]"]}'),
        arg("--checksums", default=None, path=writes.READ, help="a checksum list (sha256sum format, paths relative to --source) "
            "every file read must match; without it the sums are recorded in checksums.sha256"),
        OUT_BENCHMARK),
        description="A benchmark registered by configuration alone (genplan.benchmarks): the domain and every "
                    "problem parsed, a bad file refused by name, before anything is written; the SHA-256 of "
                    "every file read recorded in the benchmark folder's checksums.sha256."),
)
