"""Comments that a reader of the repository can follow: no "issue N" in the package, the tests, the
workflow or perf/ (an issue tracker's number says nothing to someone who has only the code; the
reason it stood for is written instead), and every Markdown page the code cites exists (notes/*.md
pages of a private folder were cited once). experiments/ and perf/results/ keep their history."""

from __future__ import annotations

import re

from conftest import REPO, committed_files

SCOPE = ("src", "tests", "workflow", "perf", "Snakefile", "config.yaml")
ISSUE = re.compile(r"\bissues?[ _-]*\d", re.IGNORECASE)
CITED_PAGE = re.compile(r"(?<![\w/.-])((?:[\w-]+/)*[\w-]+\.md)\b")
IGNORED = ("perf/results/",)
# the repository's own folders (and notes/, which it does not have): a page cited under one must be there
ROOTED = ("docs", "experiments", "notes", "perf", "tests", "workflow")


def _files() -> list[str]:
    return [f for f in committed_files(*SCOPE) if not f.startswith(IGNORED) and (REPO / f).is_file()]


def _text(rel: str) -> str:
    try:
        return (REPO / rel).read_text()
    except UnicodeDecodeError:
        return ""


def test_no_issue_numbers_in_code_tests_workflow_or_perf():
    found = [f"{rel}:{n}: {line.strip()[:100]}" for rel in _files() if rel != "tests/test_self_explaining.py"
             for n, line in enumerate(_text(rel).splitlines(), 1) if ISSUE.search(line)]
    assert not found, "issue numbers (write the reason instead):\n" + "\n".join(found)


def test_every_markdown_page_the_code_cites_exists():
    missing = []
    for rel in _files():
        for page in set(CITED_PAGE.findall(_text(rel))):
            if page.split("/")[0] not in ROOTED:
                continue  # a page of another repository, of ../shared, or a run's output (tables/...)
            if not (REPO / page).is_file():
                missing.append(f"{rel}: {page}")
    assert not missing, "cited pages that are not in the repository:\n" + "\n".join(sorted(missing))
