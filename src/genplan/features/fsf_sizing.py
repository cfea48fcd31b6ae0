"""The problems an FSF encoder with `slots: all_splits` is sized on: every problem of the
benchmark whose trajectories it is trained on (every split, the test splits included), read from
the benchmark's manifest beside the trajectories in the results layout
(<root>/trajectories/<benchmark>/<domain>/train.json.gz -> <root>/problems/<benchmark>/<domain>/,
genplan.paths.problems_of_trajectories). The reference sized its FSF vectors on the object counts
of every split's problems the same way; only the objects and static atoms of each problem are read
(no plan, no result), so nothing of the test results can leak into training."""

from __future__ import annotations

from pathlib import Path

from genplan.errors import GenplanError
from genplan.features.base import ProblemView
from genplan.formats import manifest
from genplan.paths import problems_of_trajectories
from genplan.pddl_io import parse_domain, parse_problem
from genplan.progress import progress


def benchmark_views(trajectories: str | Path, pddl_domain: str) -> tuple[list[ProblemView], Path]:
    """Every problem of the benchmark beside `trajectories` (all splits), as encoder views, and
    the benchmark folder. GenplanError when the file is not in the results layout, the manifest is
    missing, or the benchmark is of another PDDL domain than `pddl_domain`."""
    bench = problems_of_trajectories(Path(trajectories).resolve())
    if bench is None or not (bench / "manifest.csv").is_file():
        raise GenplanError("encoder slots: all_splits sizes the FSF slots on the problems of every split, read from "
                           "the benchmark's manifest beside the trajectories: the trajectories file must lie in the "
                           "results layout (<root>/trajectories/<benchmark>/<domain>/<split>.json.gz) with "
                           "<root>/problems/<benchmark>/<domain>/manifest.csv present"
                           + ("" if bench is None else f" (not found: {bench / 'manifest.csv'})"), trajectories)
    domain = parse_domain(bench / "domain.pddl")
    if domain.name != pddl_domain:
        raise GenplanError(f"the benchmark beside the trajectories is of domain {domain.name!r}, the trajectories of "
                           f"{pddl_domain!r}", bench / "domain.pddl")
    rows = manifest.read(bench)
    if not rows:
        raise GenplanError("no problems in the manifest", bench / "manifest.csv")
    views = [ProblemView.from_task(parse_problem(r["path"], domain))
             for r in progress(rows, total=len(rows), desc="FSF slots: reading every split's problems")]
    return views, bench
