"""Every number the docs quote from a results file is found in that file (genplan.doc_check over
docs/numbers.yaml), and the check fails on a wrong doc number, a changed file, a quote that left
the doc, and a claims list it cannot read."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from genplan import doc_check
from genplan.errors import GenplanError

ROOT = Path(__file__).resolve().parent.parent
STABILITY = "results/tables/symt-stability.csv"
SYMT_DOC = "docs/results/symt.md"


def test_every_number_the_docs_quote_is_in_the_file_it_cites():
    assert doc_check.check(ROOT) == []
    claims = doc_check.load(ROOT / doc_check.CLAIMS)
    assert {c["doc"] for c in claims} >= {"README.md", "docs/results/state-centric.md", SYMT_DOC,
                                          "docs/results/plangpt.md", "docs/results/ipc2023.md"}


def _copy(tmp_path, claim_quotes):
    """A root with the claims of `claim_quotes` and the docs and files they cite."""
    claims = [c for c in doc_check.load(ROOT / doc_check.CLAIMS) if c["quote"] in claim_quotes]
    for c in claims:
        for rel in [c["doc"]] + doc_check.cited_files(ROOT, c["file"]):
            rel = Path(rel).relative_to(ROOT) if Path(rel).is_absolute() else Path(rel)
            (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(ROOT / rel, tmp_path / rel)
    (tmp_path / "docs" / "numbers.yaml").write_text(yaml.safe_dump(claims))
    return claims


def test_a_wrong_number_in_a_doc_or_a_changed_file_is_caught(tmp_path):
    runs = "of 17 symt runs with the contrastive loss"
    l_hid = "L_hid is 766-1,898 in the first epoch"
    _copy(tmp_path, {runs, l_hid})
    assert doc_check.check(tmp_path) == []
    stability = tmp_path / STABILITY
    stability.write_text(stability.read_text().replace("paper,symt,yes,17,", "paper,symt,yes,6,"))
    (failure,) = doc_check.check(tmp_path)
    assert SYMT_DOC in failure and "17 is not in results/tables/symt-stability.csv, which gives 6" in failure
    # an older wording of the doc: the quote is gone from the doc, and said so
    doc = tmp_path / SYMT_DOC
    doc.write_text(doc.read_text().replace("L_hid is 766-1,898", "L_hid is 380-1,900"))
    assert any(l_hid in f and "quote not found in the doc" in f for f in doc_check.check(tmp_path))
    claims = yaml.safe_load((tmp_path / "docs" / "numbers.yaml").read_text())
    for c in claims:  # the old quote listed with the old number: found in the doc, not in the file
        if c["quote"] == l_hid:
            c["quote"], c["number"] = "L_hid is 380-1,900", "380" if c["number"] == "766" else "1,900"
    (tmp_path / "docs" / "numbers.yaml").write_text(yaml.safe_dump(claims))
    failures = doc_check.check(tmp_path)
    assert any("380 is not in" in f and "which gives 766.3" in f for f in failures), failures
    # a whole number is read to the unit: 1,898 is not 1,900
    assert any("1,900 is not in" in f and "which gives 1898" in f for f in failures), failures
    proc = subprocess.run([sys.executable, "-m", "genplan.doc_check", "--root", str(tmp_path)],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 1 and "380 is not in" in proc.stderr


def test_a_claims_list_it_cannot_read_is_refused_naming_the_file(tmp_path):
    bad = tmp_path / "numbers.yaml"
    for text, message in (("- {doc: a.md, quote: x 1, number: '1'}\n", "needs doc, quote, number and file"),
                          ("- {doc: a.md, quote: x 1, number: '2', file: f.csv, key: k}\n", "is not in its quote"),
                          ("- {doc: a.md, quote: x 1, number: '1', file: f.csv, row: {a: b}}\n", "exactly one of"),
                          ("- {doc: a.md, quote: x 1, number: '1', file: f.csv, key: k, hue: red}\n", "unknown keys"),
                          ("- {doc: a.md, quote: seven days, number: seven, file: f.csv, key: k}\n", "not written in digits")):
        bad.write_text(text)
        with pytest.raises(GenplanError, match=message) as err:
            doc_check.load(bad)
        assert err.value.path == bad
