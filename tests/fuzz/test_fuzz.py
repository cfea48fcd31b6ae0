"""Each fuzz target (tests/fuzz/targets.py) run by atheris for a bounded time (15 s a target by
default; GENPLAN_FUZZ_SECONDS changes it) from its seeds, with no finding: no exception but
GenplanError, no crash, no input past 10 s, no memory past 2 GiB. Slow (the fast subset leaves them
out); the longer run is perf/fuzz.sh. What a run finds is written to the test's tmp folder, and
becomes a regular test (tests/test_fuzz_findings.py) once fixed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import targets  # noqa: E402

SECONDS = int(os.environ.get("GENPLAN_FUZZ_SECONDS", "15"))


@pytest.mark.slow
@pytest.mark.timeout(SECONDS + 240)
@pytest.mark.parametrize("target", list(targets.TARGETS))
def test_a_fuzz_target_finds_nothing_in_its_bounded_run(target, tmp_path):
    corpus, found = tmp_path / "corpus", tmp_path / "found"
    corpus.mkdir()
    found.mkdir()
    res = subprocess.run([sys.executable, str(HERE / "run.py"), target, f"-max_total_time={SECONDS}", "-timeout=10",
                          "-rss_limit_mb=2048", f"-artifact_prefix={found}/", str(corpus)],
                         capture_output=True, text=True, timeout=SECONDS + 200)
    findings = [p.name for p in found.iterdir() if not p.name.startswith("slow-unit-")]
    assert res.returncode == 0 and not findings, (res.returncode, findings, res.stderr[-4000:])
    assert "Done " in res.stderr and any(p.name.startswith("seed-") for p in corpus.iterdir()), res.stderr[-2000:]
