"""PlanGPT's Table 3 (plangpt-icaps24): coverage, IPC agile and IPC quality score on T_set, PlanGPT
beside the GNN policy of Ståhlberg, Bonet and Geffner (2022), on Blocksworld, Logistics and VisitAll.

Ours: on the interpolation split (T_set's stand-in, as Table 1 reads it) of each domain where a
PlanGPT model was evaluated, under one results root: each evaluation CSV of PlanGPT (its CE and CES
models under each decoding) and of the learned heuristic (`SYSTEMS`: the other learned families are in
the leaderboard), and each classical configuration of the split's plans table (LAMA-first, lazy
GBFS + hFF, ...), one run per seed (genplan.report.ipc_scores reads them). We have no GNN policy: the
published GNN numbers stand beside ours. Per problem, with unit action
costs:

- solved: a VAL-valid plan within the run's budget T (below), as every table counts
  (genplan.report.counting);
- quality: best / cost of a VAL-valid plan, `best` the cheapest VAL-valid plan any of these runs found
  (generated problems ship no best known cost), 0 when unsolved;
- agile: 1 - log t / log T (`ipc_scores.agile`), T the run's declared per-problem limit (a classical
  run's limits.json, a search's time_limit counter) or, for a decoder that declares none (PlanGPT's),
  the largest limit the split's other runs declare: the budget of the planners beside it. Where no run
  of the split declares one (plans made before the plans stage wrote limits.json), agile is left empty.

Both scores are summed over the split's problems, as the paper's are; the published sums are over
T_set's 6,000+ problems per domain and ours over the split's few, so only coverage and the per-problem
means compare. Several seeds: each sum per seed, then their mean.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from pathlib import Path

from genplan import atomic
from genplan.formats import tables
from genplan.report import ipc_scores, render
from genplan.report.published import Published
from genplan.report.registry import PAPERS_BENCHMARKS

PAPER, NAME = "plangpt-icaps24", "plangpt-table3"
SPLIT = "interpolation"  # T_set's stand-in
SYSTEMS = ("plangpt", "learned_heuristic")  # the learned runs tabulated (evaluation CSVs' `system`)
THEIRS = {"blocks": "blocksworld", "logistics": "logistics", "visitall": "visitall"}  # Table 3's domains
PUBLISHED = {"plangpt": "PlanGPT (published)", "gnn_stahlberg22": "GNN of Ståhlberg et al. 2022 (published)"}
METRICS = ("coverage_percent", "ipc_agile", "ipc_quality")
NOTE = "on T_set: PlanGPT's 6,000+ generated problems per domain, not these; sums over those problems"
COLUMNS = ["benchmark", "domain", "split", "planner", "source", "n_seeds", "n_problems", "budget_s",
           "coverage_percent", "ipc_agile", "ipc_quality", "agile_per_problem", "quality_per_problem", "note"]


def _budget(run, declared: dict) -> float | None:
    return run.budget if run.budget is not None else max(declared.get(run.domain, ()), default=None)


def scores(pairs) -> list[tuple]:
    """(run, T, {problem: (solved, quality, agile or None)}) per run (module doc)."""
    best = ipc_scores.best_found(pairs)
    declared = defaultdict(set)
    for run, _ in pairs:
        if run.budget is not None:
            declared[run.domain].add(run.budget)
    out = []
    for run, rows in pairs:
        budget, per = _budget(run, declared), {}
        for r in rows:
            if not r["solved"]:
                per[r["problem"]] = (False, 0.0, 0.0)
                continue
            t = float(r["time"]) if r["time"] not in ("", None) else None
            if budget is not None and t is not None and t > budget:  # found after the budget: unsolved
                per[r["problem"]] = (False, 0.0, 0.0)
                continue
            agile = None if budget is None or t is None else ipc_scores.agile(t, budget)
            quality = ipc_scores.quality(int(r["cost"]), best[(run.domain, run.level, r["problem"])], run.source,
                                         r["problem"], "the cheapest plan of the runs scored")
            per[r["problem"]] = (True, quality, agile)
        out.append((run, budget, per))
    return out


def _fmt(x, digits=2) -> str:
    return "" if x is None else f"{x:.{digits}f}"


def our_rows(results: Path, benchmark: str) -> list[dict]:
    groups = defaultdict(list)
    learned = [(run, rs) for run, rs in ipc_scores.learned_runs(results, benchmark, (SPLIT,)) if run.system in SYSTEMS]
    domains = {run.domain for run, _ in learned if run.system == "plangpt"}
    pairs = [(run, rs) for run, rs in ipc_scores.classical_runs(results, benchmark, (SPLIT,)) + learned
             if run.domain in domains]
    for run, budget, per in scores(pairs):
        groups[(run.domain, run.planner)].append((budget, per))
    rows = []
    for (domain, planner), seeds in sorted(groups.items()):
        n = max(len(per) for _, per in seeds)
        sums = [(sum(s for s, _, _ in per.values()), sum(q for _, q, _ in per.values()),
                 None if any(a is None for _, _, a in per.values()) else sum(a for _, _, a in per.values()))
                for _, per in seeds]
        solved, quality = (statistics.mean(x[i] for x in sums) for i in (0, 1))
        agile = None if any(x[2] is None for x in sums) else statistics.mean(x[2] for x in sums)
        budgets = sorted({b for b, _ in seeds if b is not None})
        rows.append({"benchmark": benchmark, "domain": domain, "split": SPLIT, "planner": planner, "source": "ours",
                     "n_seeds": len(seeds), "n_problems": n, "budget_s": "/".join(f"{b:g}" for b in budgets),
                     "coverage_percent": _fmt(100 * solved / n if n else None), "ipc_agile": _fmt(agile),
                     "ipc_quality": _fmt(quality), "agile_per_problem": _fmt(agile / n if n and agile is not None else None, 3),
                     "quality_per_problem": _fmt(quality / n if n else None, 3),
                     "note": "" if agile is not None else "agile: no time limit declared on this split"})
    return rows


def published_rows(pub: Published, benchmark: str, domains) -> list[dict]:
    rows = []
    for domain in domains:
        theirs = THEIRS.get(domain)
        for system, label in PUBLISHED.items():
            cells = {m: pub.get("3", theirs, "tset", system, "", m) for m in METRICS} if theirs else {}
            if not any(cells.values()):
                continue
            rows.append({"benchmark": benchmark, "domain": domain, "split": "tset", "planner": label,
                         "source": "published", "n_seeds": "", "n_problems": "6,000+", "budget_s": "",
                         **{m: "" if cells[m] is None else f"{cells[m][0]:g}" for m in METRICS},
                         "agile_per_problem": "", "quality_per_problem": "", "note": NOTE})
    return rows


def rows(results: Path, pub: Published) -> list[dict]:
    out = []
    for benchmark in PAPERS_BENCHMARKS:
        mine = our_rows(results, benchmark)
        domains = sorted({r["domain"] for r in mine})
        out += [r for d in domains for r in published_rows(pub, benchmark, [d]) + [m for m in mine if m["domain"] == d]]
    return out


def markdown(table: list[dict]) -> str:
    headers = ["planner", "problems", "coverage %", "IPC-A (sum)", "IPC-Q (sum)", "IPC-A / problem",
               "IPC-Q / problem", "limit (s)"]
    out = ["# PlanGPT Table 3: coverage, IPC agile (IPC-A) and IPC quality (IPC-Q) scores on T_set's stand-in\n\n",
           "Ours: the interpolation split; every planner run on it; quality against the cheapest VAL-valid plan "
           "any of them found, agile with the run's declared limit (a decoder without one: the largest limit of the "
           f"split's other runs). Published: {NOTE}, so only coverage and the per-problem scores compare. "
           "We have no GNN policy.\n"]
    for bench, dom in dict.fromkeys((r["benchmark"], r["domain"]) for r in table):
        body = [[r["planner"], r["n_problems"], r["coverage_percent"] or "–", r["ipc_agile"] or "–", r["ipc_quality"] or "–",
                 r["agile_per_problem"] or "–", r["quality_per_problem"] or "–", r["budget_s"] or "–"]
                for r in table if (r["benchmark"], r["domain"]) == (bench, dom)]
        out += [f"\n## {bench} · {dom}\n\n", render.md(headers, body)]
    return "".join(out)


def build(results: Path, out_dir: Path, pub: Published) -> list[Path]:
    table = rows(results, pub)
    stem = out_dir / "tables" / NAME
    tables.write_csv(stem.with_suffix(".csv"), table, COLUMNS)
    atomic.write_text(stem.with_suffix(".md"), markdown(table))
    return [stem.with_suffix(".csv"), stem.with_suffix(".md")]
