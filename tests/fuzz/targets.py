"""The fuzz targets: each reader of a file a user hands genplan, given the fuzzer's bytes as that
file. The contract every reader keeps (the developers' guide: bad input gets one clear error naming
the file) is that it returns or raises GenplanError; any other exception, a crash of native code,
a hang past libFuzzer's -timeout or memory past -rss_limit_mb is a finding.

Each target is `(one_input(data: bytes), seeds() -> list[bytes])`. A leading mode byte lets one
target reach a reader's inner layers too (a gzip file's JSON, a torch zip's pickle), where bytes
mutated at the outer layer would only break a checksum. Seeds are made from the repository's own
files (the packaged domains, the test fixtures) when the run starts, so nothing binary is committed.

The harness (tests/fuzz/run.py) follows atheris's documented use (`atheris.Setup`, `atheris.Fuzz`
over a `TestOneInput(bytes)`, `atheris.instrument_imports` for coverage)."""

from __future__ import annotations

import gzip
import io
import itertools
import json
import sys
import tempfile
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))  # checkpoint_craft, the crafted torch zips

# modules the readers import only when first needed, imported here so that run.py's coverage
# instrumentation (which sees only what is imported inside it) covers them
from genplan import (  # noqa: E402
    checkpoint,
    checkpoint_numpy,  # noqa: E402,F401
    pddl_io,
    registry,
)
from genplan.errors import GenplanError  # noqa: E402
from genplan.features import wl, wlplan_edge  # noqa: E402,F401
from genplan.formats import evaluation_csv as evaluation_format  # noqa: E402
from genplan.formats import stored_plans, tables  # noqa: E402
from genplan.models.heuristic import model as _heuristic_model  # noqa: E402,F401

DOMAINS = sorted((REPO / "src/genplan/domains").glob("*.pddl")) + [REPO / "tests/fixtures/typed_courier/domain.pddl"]
TMP = Path(tempfile.mkdtemp(prefix="genplan-fuzz-"))
_names = itertools.count()


def _file(data: bytes, suffix: str) -> Path:
    """`data` as a file of a new name (the domain reader caches by path, size and mtime)."""
    path = TMP / f"{next(_names)}-{suffix}"
    path.write_bytes(data)
    return path


def _guarded(read, path: Path) -> None:
    try:
        read(path)
    except GenplanError:
        pass
    finally:
        path.unlink(missing_ok=True)


# -- PDDL domains and problems --------------------------------------------------------------------

def domain(data: bytes) -> None:
    _guarded(pddl_io.parse_domain, _file(data, "domain.pddl"))


def domain_seeds() -> list[bytes]:
    return [p.read_bytes() for p in DOMAINS]


_PARSED: dict[int, object] = {}


def problem(data: bytes) -> None:
    """Byte 0 picks the domain; the rest is the problem, read as `genplan` reads one: the cheap
    header check before VAL, then the full parse."""
    if not data:
        return
    index = data[0] % len(DOMAINS)
    if index not in _PARSED:
        _PARSED[index] = pddl_io.parse_domain(DOMAINS[index])
    dom = _PARSED[index]

    def read(path):
        pddl_io.check_problem_header(path, dom)
        pddl_io.parse_problem(path, dom)

    _guarded(read, _file(data[1:], "problem.pddl"))


def problem_seeds() -> list[bytes]:
    blocks = DOMAINS.index(REPO / "src/genplan/domains/blocks.pddl")
    courier = DOMAINS.index(REPO / "tests/fixtures/typed_courier/domain.pddl")
    out = [bytes([blocks]) + b"(define (problem p) (:domain blocks) (:objects a b)\n"
           b" (:init (clear a) (ontable a) (clear b) (ontable b) (handempty)) (:goal (and (on a b))))\n"]
    out += [bytes([courier]) + p.read_bytes() for p in sorted((REPO / "tests/fixtures/typed_courier").glob("p*.pddl"))]
    return out


# -- plans ----------------------------------------------------------------------------------------

def plan(data: bytes) -> None:
    _guarded(pddl_io.read_plan_lines, _file(data, "p.plan"))


def plan_seeds() -> list[bytes]:
    return [b"(unstack c e)\n(put-down c)\n; a comment\n\n(stack e f)\n; cost = 3 (unit cost)\n",
            b"(pick ball1 rooma left)\n(move rooma roomb)\n(drop ball1 roomb left)\n"]


# -- stored plans ---------------------------------------------------------------------------------

def _stored_read(path: Path) -> None:
    doc = stored_plans.read(path)
    stored_plans.benchmark_dir(doc, TMP / "evaluation/b/d/m/seed0/test.gbfs.csv")


def _stored_doc() -> dict:
    return {"format": stored_plans.FORMAT, "evaluation": "test.gbfs.csv", "benchmark_dir": "problems/b/d",
            "domain": {"file": "domain.pddl", "sha256": "0" * 64},
            "problems": {"p01": {"file": "test/p01.pddl", "sha256": "1" * 64, "plan": ["(pick a b)", "(drop a c)"]},
                         "p02": {"file": "test/p02.pddl", "sha256": "2" * 64, "plan": None}}}


def _value(fdp):
    """A JSON value of every kind, chosen by the fuzzer's bytes."""
    kind = fdp.ConsumeIntInRange(0, 6)
    return [None, True, fdp.ConsumeInt(8), fdp.ConsumeUnicodeNoSurrogates(12), [], {}, -1.5e308][kind]


def _edited(doc, fdp, edits: int = 3):
    """`doc` with up to `edits` of its places (a key at any depth) deleted or given another value:
    a document of the right shape but wrong in one field, which byte-level mutations of its gzip
    would almost never reach."""
    for _ in range(fdp.ConsumeIntInRange(1, edits)):
        node, path = doc, []
        while isinstance(node, (dict, list)) and node and fdp.ConsumeBool():
            keys = list(node) if isinstance(node, dict) else list(range(len(node)))
            path.append(keys[fdp.ConsumeIntInRange(0, len(keys) - 1)])
            node = node[path[-1]]
        if not path:
            continue
        parent = doc
        for key in path[:-1]:
            parent = parent[key]
        if fdp.ConsumeBool() and isinstance(parent, dict):
            del parent[path[-1]]
        else:
            parent[path[-1]] = _value(fdp)
    return doc


def stored(data: bytes) -> None:
    """Byte 0 % 3 == 0: the rest is the file; 1: the rest gzip-compressed (the JSON inside
    reached); 2: the rest edits a sound document's fields (`_edited`)."""
    import atheris

    if not data:
        return
    if data[0] % 3 == 2:
        doc = _edited(_stored_doc(), atheris.FuzzedDataProvider(data[1:]))
        body = gzip.compress(json.dumps(doc).encode(), mtime=0)
    else:
        body = data[1:] if data[0] % 3 == 0 else gzip.compress(data[1:], mtime=0)
    _guarded(_stored_read, _file(body, "test.gbfs.plans.json.gz"))


def stored_seeds() -> list[bytes]:
    text = json.dumps(_stored_doc()).encode()
    return [b"\x01" + text, b"\x00" + gzip.compress(text, mtime=0), b"\x02" + bytes(range(64))]


# -- evaluation CSVs and plans tables -------------------------------------------------------------

def _evaluation_row(problem: str, solved: str) -> dict:
    return {"benchmark": "paper", "domain": "blocks", "split": "test", "system": "learned_heuristic",
            "variant": "ridge", "model": "h", "seed": "0", "strategy": "gbfs", "problem": problem, "size": "4",
            "num_objects": "4", "horizon": "", "solved": solved, "reason": "" if solved == "yes" else "time_limit",
            "val": "valid" if solved == "yes" else "", "plan_length": "6" if solved == "yes" else "",
            "best_known": "6", "quality": "1.0" if solved == "yes" else "", "time": "0.5", "steps": "7",
            "model_calls": "12", "counters": '{"expanded": 7}'}


def evaluation_csv(data: bytes) -> None:
    """Byte 0 even: an evaluation CSV (genplan.formats.evaluation_csv.read_evaluation); odd: a plans table
    (genplan.formats.tables.read_csv, as genplan.formats.plans_table.read_table reads one)."""
    if not data:
        return
    read = evaluation_format.read_evaluation if data[0] % 2 == 0 else (lambda p: tables.read_csv(p, "plans table"))
    _guarded(read, _file(data[1:], "test.gbfs.csv"))


def evaluation_seeds() -> list[bytes]:
    text = tables.csv_text([_evaluation_row("p01", "yes"), _evaluation_row("p02", "no")], evaluation_format.COLUMNS)
    plans = "problem,valid,plan_length,planner,time,problem_sha256\np01,yes,6,astar-lmcut,0.1," + "a" * 64 + "\n"
    return [b"\x00" + text.encode(), b"\x01" + plans.encode()]


# -- models ---------------------------------------------------------------------------------------

def _archive(pickled: bytes, records: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("archive/data.pkl", pickled)
        archive.writestr("archive/byteorder", "little")
        for key, value in records.items():
            archive.writestr(f"archive/data/{key}", value)
        archive.writestr("archive/version", "3\n")
    return buf.getvalue()


_RECORDS = {"0": b"", "1": bytes(range(32))}  # an empty weight vector, 4 doubles


def model(data: bytes) -> None:
    """A model file loaded as `genplan solve` loads one (genplan.registry.load_model: the envelope,
    then the family's model). Byte 0 even: the rest is the file; odd: the rest is the pickle of a
    torch zip (`data.pkl`) holding records "0" (empty) and "1" (32 bytes)."""
    if not data:
        return
    body = data[1:] if data[0] % 2 == 0 else _archive(data[1:], _RECORDS)
    _guarded(registry.load_model, _file(body, "model.ckpt"))


def model_seeds() -> list[bytes]:
    import checkpoint_craft as craft
    from wlplan.data import DomainDataset

    from genplan.features import wlplan_edge as edge
    from genplan.features.wl import WLEncoder

    encoder = WLEncoder(REPO / "src/genplan/domains/blocks.pddl")
    generator = encoder.new_generator()
    edge.collect(generator, DomainDataset(encoder.domain, []))  # no colours: a 0-dimensional model
    encoder._fg = generator
    env = craft.envelope(craft.Tensor("0", 0, (0,), (1,), 0))
    env["vocabulary"] = encoder.to_dict()
    env["identity"]["dim"] = 0
    pickled = craft.pickle_bytes(env)
    four = craft.pickle_bytes(craft.envelope(craft.Tensor("1", 0, (2, 2), (2, 1), 4)))
    return [b"\x01" + pickled, b"\x01" + four, b"\x00" + _archive(pickled, _RECORDS),
            b"\x00" + checkpoint.FORMAT.encode() + b"\n"]


TARGETS = {"domain": (domain, domain_seeds), "problem": (problem, problem_seeds), "plan": (plan, plan_seeds),
           "stored-plans": (stored, stored_seeds), "evaluation-csv": (evaluation_csv, evaluation_seeds),
           "model": (model, model_seeds)}
