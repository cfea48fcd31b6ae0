"""The IPC 2023 runs as planning researchers read a planner comparison: Downward Lab's reports (PyPI
`lab`, its `downward.reports`), made from the pipeline's own scored runs (genplan.report.ipc_scores,
which count every problem by genplan.report.counting's one rule).

- `<root>/lab/ipc2023-eval/properties`: Lab's properties file, one run per (planner, domain, level,
  problem): coverage (1 when solved within the budget), cost, quality (best known cost / cost),
  score_agile (the IPC agile score), expansions, total_time (the seconds the budget counts: CPU seconds
  under the resource protocol), wall_time, memory (peak KiB), error (Lab's vocabulary: success,
  search-out-of-time, search-out-of-memory, refused, over-budget) and unexplained_errors (a planner
  crash, a plan VAL rejected, a plan VAL could not check). Lab reads it as any experiment's.
- tables/ipc2023-lab.md: Lab's AbsoluteReport of those attributes (coverage, quality and agile sums per
  domain, then task-wise tables), with its date line left out so that it regenerates byte for byte.
- tables/ipc2023-coverage.md/.csv: the one short table a reader looks for first: domains by planners,
  problems solved over the three levels, the sum; footnotes say what counts.
- tables/ipc2023-errors.md: the unexplained errors, one row each (Lab's markdown only points to its
  HTML for them), and the runs that shared their core (`starved`: rerun them on a quiet machine).
- figures/ipc2023-scatter-<attribute>-<planner>.png: Lab's scatter plots of total_time and expansions,
  each pure learned planner against LAMA-first (missing values at the top and right edges)."""

from __future__ import annotations

import json
import logging
from collections import defaultdict
from pathlib import Path

from genplan import atomic
from genplan.formats import tables
from genplan.report.ipc_scores import FD, Run

log = logging.getLogger("genplan")

LAMA = "lama_first"
LAB_ATTRIBUTES = ["coverage", "quality", "score_agile", "error", "total_time", "expansions", "memory"]


def algorithm(run: Run) -> str:
    """A run's planner as Lab names an algorithm: Fast Downward's configuration, or model:strategy
    (seeds other than one are told apart by seed)."""
    if run.system == FD:
        return run.variant
    return f"{run.model}:{run.strategy}" + ("" if run.seed in ("", "13") else f":seed{run.seed}")


def _error(solved: bool, reason: str, over: bool) -> str:
    if solved:
        return "success"
    if over:
        return "over-budget"
    return {"time_limit": "search-out-of-time", "memory_limit": "search-out-of-memory", "timeout": "search-out-of-time",
            "refused": "refused", "unsolvable": "unsolvable", "dead_end": "search-unsolvable-incomplete",
            "node_limit": "search-out-of-expansions"}.get(reason, reason or "unsolved")


def properties(pairs: list[tuple[Run, list[dict]]]) -> dict:
    """Lab's properties of every scored run (genplan.report.ipc_scores.scored_pairs: each run with its
    rows, which carry the reason, expansions, wall seconds, peak KiB and unexplained errors)."""
    props = {}
    for run, rows in pairs:
        alg = algorithm(run)
        details = {r["problem"]: r for r in rows}
        for problem, (solved, q, agile_score, seconds) in sorted(run.scores.items()):
            d = details.get(problem, {})
            over = not solved and bool(d.get("solved"))  # a VAL-valid plan, after the budget
            name = f"{run.level}-{problem}"
            props[f"{alg}-{run.domain}-{name}"] = {
                "algorithm": alg, "domain": run.domain, "problem": name, "coverage": int(solved),
                "cost": int(d["cost"]) if solved else None, "quality": round(q, 4),
                "score_agile": round(agile_score, 4), "expansions": d.get("expansions") if solved else None,
                "total_time": None if seconds is None or not solved else round(seconds, 3),
                "wall_time": d.get("wall_time"), "memory": d.get("memory"),
                "error": _error(solved, d.get("reason", ""), over),
                "unexplained_errors": d.get("unexplained", [])}
    return props


def write_lab(props: dict, eval_dir: Path, out_md: Path, figures: Path, planners: list[str]) -> list[Path]:
    """Lab's properties file, its absolute report (markdown) and its scatter plots."""
    eval_dir.mkdir(parents=True, exist_ok=True)
    atomic.write_text(eval_dir / "properties", json.dumps(props, indent=1, sort_keys=True) + "\n")
    if not props:  # Lab aborts on an experiment without runs
        atomic.write_text(out_md, "# IPC 2023 learning track: Downward Lab's absolute report\n\nNo runs.\n")
        return [eval_dir / "properties", out_md]
    try:
        return _lab_reports(props, eval_dir, out_md, figures, planners)
    except SystemExit as exc:  # Lab ends the process on what it cannot report (logging.critical)
        from genplan.errors import GenplanError

        raise GenplanError(f"Downward Lab could not report these runs ({exc}): see the log above", eval_dir) from None


def _lab_reports(props: dict, eval_dir: Path, out_md: Path, figures: Path, planners: list[str]) -> list[Path]:
    from downward.reports.absolute import AbsoluteReport
    from downward.reports.scatter import ScatterPlotReport

    logging.getLogger().setLevel(logging.WARNING)  # Lab logs every table it makes at INFO
    order = list(dict.fromkeys([LAMA, *sorted({p["algorithm"] for p in props.values()} - set(planners)), *planners]))
    tmp = out_md.with_name(out_md.name + ".lab")
    AbsoluteReport(attributes=LAB_ATTRIBUTES, format="md", filter_algorithm=order)(str(eval_dir), str(tmp))
    text = tmp.read_text().splitlines(keepends=True)
    tmp.unlink()
    # Lab's first two lines are its title and today's date: a report that regenerates byte for byte has neither
    body = "".join(text[2:]) if len(text) > 2 and text[1].strip()[:4].isdigit() else "".join(text)
    body = _without_task_tables(body)
    atomic.write_text(out_md, "# IPC 2023 learning track: Downward Lab's absolute report\n\n" + body)
    written = [eval_dir / "properties", out_md]
    for planner in planners:
        if planner == LAMA or not any(p["algorithm"] == planner for p in props.values()):
            continue
        ran = defaultdict(set)
        for p in props.values():
            ran[(p["domain"], p["problem"])].add(p["algorithm"])
        both = {task for task, algorithms in ran.items() if {LAMA, planner} <= algorithms}
        if not both:
            continue

        def on_both(run, both=both):  # Lab's scatter plot takes the tasks both planners ran, exactly
            return (run["domain"], run["problem"]) in both

        for attribute in ("total_time", "expansions"):
            png = figures / f"ipc2023-scatter-{attribute}-{planner.replace(':', '-')}.png"
            ScatterPlotReport(attributes=[attribute], filter_algorithm=[LAMA, planner], filter=on_both, format="png",
                              scale="log", show_missing=True)(str(eval_dir), str(png))
            written.append(png)
    return written


def _without_task_tables(markdown: str) -> str:
    """Lab's report without its task-wise tables (a section `### <domain>` under every attribute, one row
    a task: 900 rows an attribute), which tables/ipc2023-taskwise.csv holds instead, one row a run;
    the table of contents' links to them go with them."""
    out, skipping = [], False
    for line in markdown.splitlines(keepends=True):
        if line.startswith("### ") or line.startswith("## info") or line.startswith("* **[Info]"):
            skipping = not line.startswith("* ")  # Lab's algorithm info: revisions of a Lab experiment, all '?'
            continue
        if line.startswith("## "):
            skipping = False
        if skipping:
            continue
        if line.startswith("  * [") and "](#" in line:  # the table of contents' task-table links
            continue
        out.append(line)
    return "".join(out).replace("See HTML report for details.", "Each is listed in ipc2023-errors.md.")


TASKWISE = ["algorithm", "domain", "problem", "coverage", "error", "cost", "quality", "score_agile", "total_time",
            "wall_time", "memory", "expansions", "unexplained_errors"]


def write_taskwise(props: dict, out_csv: Path) -> list[Path]:
    """One row a run, Lab's properties in columns (sorted by domain, problem, algorithm)."""
    rows = [{**p, "unexplained_errors": "; ".join(p["unexplained_errors"])}
            for p in sorted(props.values(), key=lambda p: (p["domain"], p["problem"], p["algorithm"]))]
    tables.write_csv(out_csv, [{k: ("" if r.get(k) is None else r[k]) for k in TASKWISE} for r in rows], TASKWISE)
    return [out_csv]


def coverage_table(runs: list[Run], labels: dict[str, str]) -> tuple[list[str], list[dict]]:
    """Domains by planners (Lab's algorithm names), problems solved over every level run, with a
    problems column and the sum row; a planner's cell is empty in a domain it did not run."""
    planners = list(dict.fromkeys(algorithm(r) for r in sorted(runs, key=lambda r: (r.system != FD, algorithm(r)))))
    solved, problems = defaultdict(int), defaultdict(set)
    ran = set()
    for run in runs:
        solved[(run.domain, algorithm(run))] += sum(s[0] for s in run.scores.values())
        problems[run.domain] |= {(run.level, p) for p in run.scores}
        ran.add((run.domain, algorithm(run)))
    rows = []
    for domain in sorted(problems):
        rows.append({"domain": domain, "problems": len(problems[domain]),
                     **{labels.get(p, p): (solved[(domain, p)] if (domain, p) in ran else "") for p in planners}})
    rows.append({"domain": "sum", "problems": sum(len(v) for v in problems.values()),
                 **{labels.get(p, p): sum(solved[(d, p)] for d in problems if (d, p) in ran) for p in planners}})
    return [labels.get(p, p) for p in planners], rows


def write_coverage(runs: list[Run], out_csv: Path, out_md: Path, notes: list[str]) -> list[Path]:
    columns, rows = coverage_table(runs, {})
    tables.write_csv(out_csv, rows, ["domain", "problems", *columns])
    head = "| domain | problems | " + " | ".join(columns) + " |\n" + "|---" * (len(columns) + 2) + "|\n"
    body = "".join("| " + " | ".join(str(r[c]) for c in ["domain", "problems", *columns]) + " |\n" for r in rows)
    foot = "".join(f"\n[{i}] {n}" for i, n in enumerate(notes, 1))
    atomic.write_text(out_md, "# IPC 2023 learning track: problems solved\n\n" + head + body + foot + "\n")
    return [out_csv, out_md]


def write_errors(props: dict, runs: list[Run], out_md: Path, rerun: str) -> list[Path]:
    """The unexplained errors, one row a run, and the runs that shared their core."""
    errors = sorted((p["algorithm"], p["domain"], p["problem"], "; ".join(p["unexplained_errors"]))
                    for p in props.values() if p["unexplained_errors"])
    lines = ["# IPC 2023 learning track: unexplained errors and starved runs\n",
             f"\n## Unexplained errors ({len(errors)})\n",
             "\nA planner that crashed, a plan VAL rejected or could not check: every one is a defect to explain.\n\n"]
    if errors:
        lines.append("| algorithm | domain | problem | error |\n|---|---|---|---|\n")
        lines += [f"| {a} | {d} | {p} | {e} |\n" for a, d, p, e in errors]
    else:
        lines.append("None.\n")
    starved = sorted((algorithm(r), r.domain, r.level, len(r.starved), r.source) for r in runs if r.starved)
    lines.append(f"\n## Starved runs ({len(starved)})\n\nUnsolved problems whose run got under 0.9 CPU seconds per "
                 "wall second (it shared its core; genplan.limits.STARVED_RATIO). Rerun them on a quiet machine: "
                 f"`{rerun}`.\n\n")
    if starved:
        lines.append("| algorithm | domain | level | starved problems | file |\n|---|---|---|---|---|\n")
        lines += [f"| {a} | {d} | {lvl} | {n} | {src} |\n" for a, d, lvl, n, src in starved]
    else:
        lines.append("None.\n")
    atomic.write_text(out_md, "".join(lines))
    return [out_md]
