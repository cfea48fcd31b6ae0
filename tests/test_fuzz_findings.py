"""What the fuzz targets (tests/fuzz/) found, each a regular test of its class, and the readers'
contract they hold: a file a user hands genplan gives its data or one GenplanError naming the file,
never another exception, a native crash or gigabytes of memory.

- the stored-plans reader let a document of the right format but wrong shape through (a dict as
  `benchmark_dir`: TypeError in its caller); every single-field edit of a sound document is tried;
- the torch-free model reader handed a 400-byte pickle with a memo index of 171,079,263 to
  CPython's unpickler, which sized its memo by it (2.1 GB, libFuzzer's out-of-memory);
- a saved WL generator whose `iterations` no longer matched its colour layers segfaulted wlplan's
  loader; every single-field edit of a real saved generator is tried, in a child process (a
  crash there is this test's failure, not the test run's);
- found while writing the CSV target: a field past csv's size limit and counters nested thousands
  deep ended the evaluation-CSV reader in csv.Error and RecursionError."""

from __future__ import annotations

import copy
import gzip
import json
import subprocess
import sys
import textwrap

import pytest
from checkpoint_craft import envelope, pickle_bytes
from conftest import REPO

from genplan import checkpoint
from genplan.errors import GenplanError
from genplan.formats import evaluation_csv, stored_plans, tables

sys.path.insert(0, str(REPO / "tests" / "fuzz"))
import targets  # noqa: E402  (the fuzz targets' seeds: sound files of each kind)

WRONG = [None, True, 7, "x", [], {}, [["x"]]]


def _places(doc, path=()):
    """Every place (a key path) in a JSON document."""
    items = doc.items() if isinstance(doc, dict) else enumerate(doc) if isinstance(doc, list) else ()
    for key, value in items:
        yield (*path, key)
        yield from _places(value, (*path, key))


def _edits(doc):
    """`doc` with one place deleted or given one wrong value, for every place and value."""
    for place in _places(doc):
        for value in [..., *WRONG]:
            out = copy.deepcopy(doc)
            parent = out
            for key in place[:-1]:
                parent = parent[key]
            if value is ...:
                if isinstance(parent, dict):
                    del parent[place[-1]]
                    yield place, "deleted", out
                continue
            parent[place[-1]] = value
            yield place, value, out


def _use_stored(doc, csv_path):
    """What the readers of a stored-plans document do with it (genplan.evaluation.revalidate)."""
    stored_plans.benchmark_dir(doc, csv_path)
    (REPO / doc["domain"]["file"], doc["domain"]["sha256"].lower())
    for name, entry in doc["problems"].items():
        (REPO / entry["file"], entry["sha256"].lower(), name.lower())
        if entry["plan"] is not None:
            "\n".join(entry["plan"])


def test_every_single_field_edit_of_a_stored_plans_file_is_read_or_refused_by_name(tmp_path):
    sound = targets._stored_doc()
    csv_path = tmp_path / "evaluation/b/d/m/seed0/test.gbfs.csv"
    path = tmp_path / "test.gbfs.plans.json.gz"
    tried = refused = 0
    for place, value, doc in _edits(sound):
        path.write_bytes(gzip.compress(json.dumps(doc).encode(), mtime=0))
        tried += 1
        try:
            got = stored_plans.read(path)
        except GenplanError as exc:
            assert exc.path == path
            refused += 1
            continue
        try:  # what was let through must be usable: no TypeError, KeyError
            _use_stored(got, csv_path)
        except Exception as exc:  # noqa: BLE001
            pytest.fail(f"{place} = {value!r}: read, then {type(exc).__name__}: {exc}")
    assert tried > 100 and refused > 50, (tried, refused)
    path.write_bytes(gzip.compress(json.dumps({**sound, "benchmark_dir": {}}).encode(), mtime=0))
    with pytest.raises(GenplanError, match="benchmark_dir is not a string"):  # the fuzzer's case
        stored_plans.read(path)


def test_json_nested_thousands_deep_is_refused_by_name(tmp_path):
    deep = tmp_path / "deep.plans.json.gz"
    deep.write_bytes(gzip.compress(b"[" * 100_000 + b"]" * 100_000))
    with pytest.raises(GenplanError, match="nested too deeply"):
        stored_plans.read(deep)


def _evaluation_text(**change) -> str:
    rows = [targets._evaluation_row("p01", "yes"), targets._evaluation_row("p02", "no")]
    rows[1].update(change)
    return tables.csv_text(rows, evaluation_csv.COLUMNS)


@pytest.mark.parametrize("change, said", [
    ({"reason": "x" * 200_000}, "not a CSV file: field larger than field limit"),
    ({"counters": "[" * 5000 + "]" * 5000}, "counters are not a JSON object"),
    ({"counters": "[1, 2]"}, "counters are not a JSON object"),
    ({"counters": "7"}, "counters are not a JSON object"),
])
def test_an_evaluation_csv_past_the_parsers_limits_is_refused_by_name(tmp_path, change, said):
    path = tmp_path / "test.gbfs.csv"
    path.write_text(_evaluation_text(**change))
    with pytest.raises(GenplanError, match=said) as err:
        evaluation_csv.read_evaluation(path)
    assert err.value.path == path
    path.write_text(_evaluation_text())
    assert len(evaluation_csv.read_evaluation(path)) == 2  # the same file unchanged is read


def test_a_pickle_with_a_huge_memo_index_is_refused_without_the_memory(tmp_path):
    """LONG_BINPUT 2^31 - 1 in a tiny data.pkl: refused before CPython's unpickler sizes its memo by
    it, in a child process whose address space is capped at 1 GiB (the unpickler wanted 2+)."""
    body = pickle_bytes(envelope([1.0]))
    assert body.endswith(b".")
    evil = body[:-1] + b"r\xff\xff\xff\x7f."  # LONG_BINPUT 2147483647, then STOP
    path = tmp_path / "model.ckpt"
    path.write_bytes(targets._archive(evil, {}))
    code = textwrap.dedent(f"""
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (2**30, 2**30))
        from genplan import checkpoint
        from genplan.errors import GenplanError
        try:
            checkpoint.read({str(path)!r}, numpy_families=("heuristic",))
        except GenplanError as exc:
            print("refused:", exc)
    """)
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0 and "refused:" in res.stdout and "pickle memo index 2147483647" in res.stdout, \
        (res.returncode, res.stdout, res.stderr[-2000:])
    with pytest.raises(GenplanError, match="corrupt or not a genplan checkpoint"):
        checkpoint.read(path, numpy_families=("heuristic",))


_GENERATOR_EDITS = textwrap.dedent("""
    # Every single-field edit of a saved WL generator that has colours: refused by
    # genplan.features.wlplan_saved (ValueError) or by wlplan itself (an exception), or loaded and
    # used to embed a state. Run in a child process: a segfault here is the test's failure.
    import copy, json, sys
    sys.path.insert(0, sys.argv[1])
    from test_fuzz_findings import WRONG, _edits
    from wlplan.data import DomainDataset, ProblemDataset
    from genplan.features import wlplan_edge as edge
    from genplan.features.wl import WLEncoder

    enc = WLEncoder(sys.argv[2], iterations=2)
    conv = edge.ProblemConverter(enc.domain, ("a", "b"), frozenset(), {("on", "a", "b")})
    states = [conv.state({("clear", "a"), ("ontable", "a"), ("clear", "b"), ("ontable", "b"), ("handempty",)}),
              conv.state({("holding", "a"), ("clear", "b"), ("ontable", "b")}),
              conv.state({("on", "a", "b"), ("clear", "a"), ("ontable", "b"), ("handempty",)})]
    fg = enc.new_generator()
    edge.collect(fg, DomainDataset(enc.domain, [ProblemDataset(conv.problem, states)]))
    sound = json.loads(edge.generator_to_text(fg))
    assert sound["iterations"] == 2 and fg.get_n_features() > 5, (sound["iterations"], fg.get_n_features())
    loaded = refused = 0
    for place, value, saved in _edits(sound):
        text = json.dumps(saved)
        try:
            dom = edge.domain_from_saved(text)
            g = edge.generator_from_text(text)
        except ValueError:
            refused += 1
            continue
        except Exception:  # wlplan's own refusal (its C++ exceptions): not a crash
            refused += 1
            continue
        c = edge.ProblemConverter(dom, ("a", "b"), frozenset(), set())
        try:
            g.set_problem(c.problem)
            for s in states:
                g.embed(s)
        except Exception:
            pass
        loaded += 1
    print("edits", loaded + refused, "refused", refused)
""")


@pytest.mark.timeout(300)
def test_every_single_field_edit_of_a_saved_wl_generator_is_refused_or_safe():
    res = subprocess.run([sys.executable, "-c", _GENERATOR_EDITS, str(REPO / "tests"),
                          str(REPO / "src/genplan/domains/blocks.pddl")], capture_output=True, text=True, timeout=280)
    assert res.returncode == 0, (res.returncode, res.stdout[-2000:], res.stderr[-3000:])  # -11: a segfault
    counts = res.stdout.strip().splitlines()[-1].split()  # (wlplan warns of an edited package_version)
    assert counts[0] == "edits" and int(counts[1]) > 50 and int(counts[3]) > 20, res.stdout
