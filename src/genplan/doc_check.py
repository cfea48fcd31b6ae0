"""Every number a doc quotes from a results file is found in that file: a maintained list of claims
(docs/numbers.yaml), each one quoted number checked against the file it cites.

A claim names the `doc`, a `quote` of it (found in the doc with runs of whitespace, line breaks
included, read as one space), the `number` as the quote prints it (inside the quote: `1,898`,
`0.63`), the cited `file` (a path, a glob or a list of them, from the repository root) and how to
read the value there:
- a CSV cell: `row` (column -> value; exactly one row of the file must match) and `column`;
- an aggregate over the rows of every matched CSV: `where` (column -> value, optional), `agg`
  (min, max, sum, mean, median or count) of `column` (not for count), optionally `divide` (60:
  seconds to minutes); empty cells are skipped;
- a JSON value: `key` (dotted for nested keys);
- a text file: `pattern`, a regular expression whose first group is the number.
The value agrees when it rounds to the quoted number at the quote's decimals (`0.6317` is `0.63`,
`1897.8` is `1,898`). `python -m genplan.doc_check [--root DIR] [--claims FILE]` prints each claim
that fails (the doc, the quote, the file, what the file holds) and exits 1 when one does."""

from __future__ import annotations

import argparse
import csv
import json
import re
import statistics
import sys
from pathlib import Path

import yaml

from genplan.errors import GenplanError

CLAIMS = "docs/numbers.yaml"
AGGREGATES = {"min": min, "max": max, "sum": sum, "mean": statistics.mean, "median": statistics.median,
              "count": len}
KEYS = {"doc", "quote", "number", "file", "row", "column", "where", "agg", "divide", "key", "pattern"}


def load(path: Path) -> list[dict]:
    """The claims of `path`, each checked for its keys; GenplanError naming the file and the claim."""
    if not path.is_file():
        raise GenplanError("doc-number claims not found", path)
    try:
        claims = yaml.safe_load(path.read_text())
    except yaml.YAMLError as exc:
        raise GenplanError(f"not YAML: {exc}", path) from None
    if not isinstance(claims, list):
        raise GenplanError("expected a list of claims", path)
    for i, c in enumerate(claims):
        where = f"claim {i + 1} ({c.get('quote', '?') if isinstance(c, dict) else c!r})"
        if not isinstance(c, dict) or {"doc", "quote", "number", "file"} - set(c):
            raise GenplanError(f"{where}: needs doc, quote, number and file", path)
        if set(c) - KEYS:
            raise GenplanError(f"{where}: unknown keys {sorted(map(str, set(c) - KEYS))}", path)
        ways = [k for k in ("row", "agg", "key", "pattern") if k in c]
        if len(ways) != 1 or ("row" in c and "column" not in c) or (c.get("agg") not in (None, *AGGREGATES)) \
                or ("agg" in c and c["agg"] != "count" and "column" not in c):
            raise GenplanError(f"{where}: give exactly one of row+column, agg(+column), key or pattern", path)
        if str(c["number"]) not in str(c["quote"]):
            raise GenplanError(f"{where}: number {c['number']} is not in its quote", path)
        if not re.fullmatch(r"-?[\d,]*\.?\d+", str(c["number"])):
            raise GenplanError(f"{where}: number {c['number']!r} is not written in digits", path)
    return claims


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def cited_files(root: Path, spec) -> list[Path]:
    found = []
    for pattern in [spec] if isinstance(spec, str) else spec:
        found += sorted(root.glob(pattern)) if any(ch in pattern for ch in "*?[") else [root / pattern]
    return found


def _rows(paths: list[Path]) -> list[dict]:
    rows = []
    for p in paths:
        with open(p, newline="") as fh:
            rows += list(csv.DictReader(fh))
    return rows


def _matches(row: dict, want: dict) -> bool:
    return all(str(row.get(k)) == str(v) for k, v in want.items())


def value(claim: dict, root: Path):
    """The value the claim's file holds (a float), or a string saying why there is none."""
    paths = cited_files(root, claim["file"])
    missing = [str(p.relative_to(root)) for p in paths if not p.is_file()]
    if not paths or missing:
        return f"no such file: {', '.join(missing) or claim['file']}"
    if "row" in claim:
        rows = [r for r in _rows(paths) if _matches(r, claim["row"])]
        return float(rows[0][claim["column"]]) if len(rows) == 1 else f"{len(rows)} rows match {claim['row']}"
    if "agg" in claim:
        rows = [r for r in _rows(paths) if _matches(r, claim.get("where", {}))]
        values = rows if claim["agg"] == "count" else [float(r[claim["column"]]) for r in rows
                                                        if r.get(claim["column"]) not in ("", None)]
        if not values and claim["agg"] != "count":
            return f"no row with a {claim['column']}"
        return AGGREGATES[claim["agg"]](values) / float(claim.get("divide", 1))
    if "key" in claim:
        data = json.loads(paths[0].read_text())
        for part in claim["key"].split("."):
            if not isinstance(data, dict) or part not in data:
                return f"no key {claim['key']}"
            data = data[part]
        return float(data)
    m = re.search(claim["pattern"], paths[0].read_text())
    return float(m.group(1).replace(",", "")) if m else f"pattern {claim['pattern']!r} not found"


def agrees(found: float, number: str) -> bool:
    """`found` rounds to the quoted `number` at its decimals."""
    text = str(number).replace(",", "")
    decimals = len(text.split(".")[1]) if "." in text else 0
    return abs(found - float(text)) <= 0.5 * 10 ** -decimals + 1e-9


def check(root: Path, claims_path: Path | None = None) -> list[str]:
    """One message per claim that fails: its quote not in the doc, or its number not in its file."""
    claims = load(claims_path or root / CLAIMS)
    docs: dict[str, str] = {}
    failures = []
    for c in claims:
        doc = root / c["doc"]
        if c["doc"] not in docs:
            docs[c["doc"]] = _flat(doc.read_text()) if doc.is_file() else ""
        head = f"{c['doc']}: \"{c['quote']}\""
        if _flat(str(c["quote"])) not in docs[c["doc"]]:
            failures.append(f"{head}: quote not found in the doc")
            continue
        try:
            found = value(c, root)
        except (ValueError, KeyError, json.JSONDecodeError) as exc:
            found = f"cannot read the value: {exc!r}"
        if isinstance(found, str):
            failures.append(f"{head}: {c['file']}: {found}")
        elif not agrees(found, c["number"]):
            failures.append(f"{head}: {c['number']} is not in {c['file']}, which gives {found:.4g}")
    return failures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m genplan.doc_check", description=__doc__.split("\n")[0])
    parser.add_argument("--root", default=".", help="the repository root (default: .)")
    parser.add_argument("--claims", default=None, help=f"the claims file (default: <root>/{CLAIMS})")
    args = parser.parse_args(argv)
    root = Path(args.root)
    try:
        failures = check(root, Path(args.claims) if args.claims else None)
    except GenplanError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    for f in failures:
        print(f, file=sys.stderr)
    n = len(load(Path(args.claims) if args.claims else root / CLAIMS))
    print(f"{n - len(failures)} of {n} doc numbers found in their files")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
