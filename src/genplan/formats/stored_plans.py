"""The plans an evaluation found, stored beside its CSV so that anyone can check them again.

`<split>.<strategy>.plans.json.gz` (genplan.paths.Layout.evaluation_plans) is written with
`<split>.<strategy>.csv` by `genplan evaluate`: gzip JSON (mtime 0: a rerun that finds the same
plans writes the same bytes), format `genplan-plans/1`:

    {"format": "genplan-plans/1", "evaluation": "<split>.<strategy>.csv",
     "benchmark_dir": "problems/<benchmark>/<domain>",   # relative to the results root
     "domain": {"file": "domain.pddl", "sha256": "..."},
     "problems": {"<problem>": {"file": "<split>/<problem>.pddl", "sha256": "...",
                                "plan": ["(pick ball1 rooma left)", ...]}}}

Every problem of the CSV has an entry; `plan` is what the planner returned, VAL-valid or not (a
plan that stopped short of the goal too), and null where the model refused the problem. The
hashes say whether a problem folder regenerated later (or given to `genplan validate --problems`)
holds the very files that were evaluated. `benchmark_dir` is absolute for an evaluation written
outside a results layout.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import zlib
from pathlib import Path

from genplan.errors import GenplanError

FORMAT = "genplan-plans/1"
SUFFIX = ".plans.json.gz"


def plans_path(evaluation_csv: str | Path) -> Path:
    """The stored plans beside an evaluation CSV: `<split>.<strategy>.csv` -> `<split>.<strategy>.plans.json.gz`."""
    p = Path(evaluation_csv)
    return p.with_name(p.name.removesuffix(".csv") + SUFFIX)


def sha256(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def results_root(evaluation_csv: str | Path) -> Path | None:
    """The results root of an evaluation CSV laid out as `Layout.evaluation`
    (<root>/evaluation/<benchmark>/<domain>/<model>/seed<seed>/<file>), else None."""
    p = Path(evaluation_csv)
    parents = p.parents
    if len(p.parts) < 6 or parents[4].name != "evaluation" or not parents[0].name.startswith("seed"):
        return None
    return parents[5]


def document(evaluation_csv: str | Path, benchmark_dir: str | Path, domain: str | Path,
             entries: list[tuple[str, Path, list[str] | None]]) -> dict:
    """The stored-plans document of one evaluation; `entries`: (problem, problem file, plan as
    action strings or None where refused), in the CSV's order."""
    benchmark_dir = Path(benchmark_dir)
    root = results_root(Path(evaluation_csv).absolute())
    location = str(benchmark_dir.absolute())
    if root is not None:
        try:
            location = benchmark_dir.absolute().relative_to(root).as_posix()
        except ValueError:
            pass
    problems = {}
    for name, problem, plan in entries:
        try:
            file = Path(problem).relative_to(benchmark_dir).as_posix()
        except ValueError:
            file = str(Path(problem).absolute())
        problems[name] = {"file": file, "sha256": sha256(problem), "plan": plan}
    return {"format": FORMAT, "evaluation": Path(evaluation_csv).name, "benchmark_dir": location,
            "domain": {"file": Path(domain).name, "sha256": sha256(domain)}, "problems": problems}


def encode(doc: dict) -> bytes:
    text = json.dumps(doc, separators=(",", ":"), sort_keys=False) + "\n"
    return gzip.compress(text.encode("utf-8"), mtime=0)


def read(path: str | Path) -> dict:
    """A stored-plans document; GenplanError naming the file when it is missing or not one."""
    path = Path(path)
    if not path.is_file():
        raise GenplanError("stored plans not found (an evaluation of an older genplan? rerun its evaluation)", path)
    try:
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            doc = json.load(fh)
    except (OSError, EOFError, zlib.error, UnicodeDecodeError, json.JSONDecodeError) as exc:  # zlib: a flipped byte
        raise GenplanError(f"not a stored-plans file (gzip JSON): {exc}", path) from None
    except RecursionError:  # json's decoder on arrays or objects nested thousands deep
        raise GenplanError("not a stored-plans file (gzip JSON): nested too deeply", path) from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or not isinstance(doc.get("problems"), dict):
        raise GenplanError(f"not a stored-plans file of format {FORMAT}", path)
    fault = _shape_fault(doc)
    if fault:
        raise GenplanError(f"not a stored-plans file of format {FORMAT}: {fault}", path)
    return doc


def _shape_fault(doc: dict) -> str | None:
    """What in `doc` is not of the shape the module docstring gives (every field a reader uses), or
    None: its readers index the document without further checks."""
    if not isinstance(doc.get("benchmark_dir"), str):
        return "benchmark_dir is not a string"
    dom = doc.get("domain")
    if not (isinstance(dom, dict) and isinstance(dom.get("file"), str) and isinstance(dom.get("sha256"), str)):
        return "domain is not {file, sha256}"
    for name, entry in doc["problems"].items():
        if not (isinstance(entry, dict) and isinstance(entry.get("file"), str) and isinstance(entry.get("sha256"), str)):
            return f"problem {name!r} is not {{file, sha256, plan}}"
        plan = entry.get("plan", ...)
        if not (plan is None or isinstance(plan, list) and all(isinstance(step, str) for step in plan)):
            return f"the plan of problem {name!r} is neither null nor a list of action strings"
    return None


def benchmark_dir(doc: dict, evaluation_csv: str | Path, problems: str | Path | None = None) -> Path:
    """Where the evaluated problems are: `problems` when given, else the document's folder under the
    evaluation's results root."""
    if problems is not None:
        return Path(problems)
    location = Path(doc["benchmark_dir"])
    if location.is_absolute():
        return location
    root = results_root(Path(evaluation_csv).absolute())
    if root is None:
        raise GenplanError("not laid out as <root>/evaluation/<benchmark>/<domain>/<model>/seed<seed>/: "
                           "give the problems folder (--problems)", evaluation_csv)
    return root / location
