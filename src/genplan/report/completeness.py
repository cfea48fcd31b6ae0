"""What a results root lacks for its reports: a report on a partial root (a run still going, a job
that failed, files copied in part) gave partial tables without a word.

The reports read what is there; this module names what is not, from the root's own files:
- per (benchmark, domain, model, strategy), every seed that has an evaluation of one of its splits
  should have them all (`missing_evaluations`): a seed absent from one split averages the others'
  seeds there, and a split absent for one strategy leaves a blank that reads as not evaluated;
- every split that has an evaluation should have its plans table (`missing_plans_tables`): without
  it, best-known lengths and qualities are blank.
`genplan report` prints one warning line for each kind, with the count and the first few, before it
writes the tables.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from genplan.paths import Layout, parse_evaluation_path


def _evaluations(results: Path) -> list[dict]:
    out = []
    for path in Layout(str(results)).evaluation_files():
        try:
            out.append(parse_evaluation_path(path.relative_to(results / "evaluation")))
        except ValueError:
            continue
    return out


def missing_evaluations(results: str | Path) -> list[str]:
    """`<benchmark>/<domain>/<model>/seed<seed>/<split>.<strategy>.csv` of each evaluation the grid of
    seeds and splits of its (benchmark, domain, model, strategy) lacks."""
    grid: dict[tuple, set[tuple[str, str]]] = defaultdict(set)
    for e in _evaluations(Path(results)):
        grid[(e["benchmark"], e["domain"], e["model"], e["strategy"])].add((e["seed"], e["split"]))
    missing = []
    for (bench, dom, model, strategy), have in sorted(grid.items()):
        seeds, splits = {s for s, _ in have}, {p for _, p in have}
        missing += [f"{bench}/{dom}/{model}/seed{s}/{p}.{strategy}.csv"
                    for s in sorted(seeds) for p in sorted(splits) if (s, p) not in have]
    return missing


def missing_plans_tables(results: str | Path) -> list[str]:
    """The plans table of each (benchmark, domain, split) that has evaluations but no table."""
    results = Path(results)
    layout = Layout(str(results))
    wanted = sorted({(e["benchmark"], e["domain"], e["split"]) for e in _evaluations(results)})
    return [str(Path(layout.plans_table(b, d, s)).relative_to(results)) for b, d, s in wanted
            if not Path(layout.plans_table(b, d, s)).is_file()]


def warnings(results: str | Path) -> list[str]:
    """One line per kind of absence, or none for a whole root."""
    lines = []
    for what, names in (("evaluation CSV(s) missing from the seeds x splits of their model and strategy",
                         missing_evaluations(results)),
                        ("plans table(s) missing for evaluated splits (blank best-known lengths and qualities)",
                         missing_plans_tables(results))):
        if names:
            lines.append(f"{results}: a partial results root: {len(names)} {what}, e.g. {', '.join(names[:3])}")
    return lines
