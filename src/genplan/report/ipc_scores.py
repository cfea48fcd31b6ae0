"""The IPC 2023 learning track's three scores of every planner run on a benchmark imported with its
best known costs (genplan.report.papers.ipc2023 tabulates them, genplan.report.ipc_figure draws them).

A run is one planner on one (domain, level): a classical configuration of the level's plans table
(`<root>/plans/<benchmark>/<domain>/<level>.csv`; every configuration that ran on all the level's
problems, except the shipped `reference` plans), or one evaluation CSV of a learned model and strategy
with one seed (`<root>/evaluation/<benchmark>/<domain>/<model>/seed<seed>/<level>.<strategy>.csv`).
Per problem, with unit action costs (plan cost = plan length):

- solved: a VAL-valid plan (the plans table's `valid`, the evaluation's `solved`);
- quality: best known cost / plan cost for a solved problem, 0 otherwise; the best known costs are
  the benchmark's (`<root>/problems/<benchmark>/<domain>/upper_bounds.csv`, columns split, problem,
  best_known_cost), lowered to the cheapest VAL-valid plan any run being scored found for the problem
  (the IPC's rule: the reference is the best plan known, and a shipped bound is not always the best:
  LAMA-first beat Ferry easy p17's 46 with 45). So no quality exceeds 1, none is clipped, and
  `improved_bounds` lists the problems whose bound a run improved (`CheaperThanBestKnown` remains for a
  bound passed to `quality` directly that a plan undercuts);
- agile: 1 - log t / log T for a solved problem, t its seconds (1 when t <= 1 s) and T the run's
  declared per-problem time limit; 0 when unsolved.

One budget for both kinds of planner, so that neither is favoured: t is wall-clock seconds with loading included,
and a plan found after T counts unsolved (the IPC's rule), whatever limit the planner enforced itself.
A classical run's t is its driver's whole run (its Python start, the translation, the search): Fast
Downward's `--overall-time-limit` counts CPU time, so on a loaded machine it ran past T of wall-clock
(LAMA-first up to 107 s on a 60 s limit in results/ipc2023-cpu), and those plans are `over_budget`. A
learned run's t is the row's `time` (parsing, grounding, search) plus its `load_time` counter (the
`genplan evaluate` process's start, imports and model load: genplan.evaluation.problem.process_age);
a run whose rows predate that counter has `loading_counted` False and its tables say so.

T comes from the results, never from a constant: a classical run's from the `limits.json` its plans
stage writes into the level's plans folder ({config: {time_limit, memory_limit_mb}}), a learned run's
from its rows (the search's `time_limit` counter). A run that solved a problem without a declared
limit is refused by name. A score table sums each score over a run's problems; seeds are summed
per seed over the table's cells and given as mean and population std over the seeds.
"""

from __future__ import annotations

import json
import math
import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from genplan.errors import GenplanError
from genplan.formats import plans_table as plans_format
from genplan.formats.evaluation_csv import read_evaluation
from genplan.formats.tables import read_csv
from genplan.paths import IPC2023_TEST_SPLITS, Layout, parse_evaluation_path
from genplan.report import counting
from genplan.report.aggregate import refused_label

BENCHMARK, LEVELS = "ipc2023", IPC2023_TEST_SPLITS
NOT_SCORED = ("reference", "lama_anytime")  # plans table configurations that are not planner runs
CLASSICAL = {"lama_first": "FD LAMA-first", "gbfs_ff_eager": "FD eager GBFS + hFF", "astar_lmcut": "FD A* + LM-cut",
             "gbfs_ff": "FD lazy GBFS + hFF (preferred operators)"}
FD = "fast_downward"
LIMITS = "limits.json"  # in each level's plans folder


class CheaperThanBestKnown(GenplanError):
    """A VAL-valid plan cheaper than the benchmark's best known cost: the plan or the bound is wrong."""


@dataclass
class Run:
    """One planner on one (domain, level), seed `seed`; `scores`: problem -> (solved, quality, agile, time)."""

    domain: str
    level: str
    system: str
    variant: str
    model: str
    strategy: str
    seed: str
    budget: float | None  # the declared per-problem time limit, seconds (None: none declared, nothing solved)
    memory_mb: int | None
    source: str
    refused: int = 0  # problems the planner refused (a family that cannot read the domain: its message per row)
    loading_counted: bool = True  # t includes the planner's loading (False: rows without `load_time`)
    over_budget: int = 0  # VAL-valid plans found after the budget, counted unsolved
    protocol: bool = False  # every timed row measured under the resource protocol (CPU seconds: genplan.limits)
    starved: list[str] = field(default_factory=list)  # unsolved problems whose run shared its core
    scores: dict[str, tuple[bool, float, float, float | None]] = field(default_factory=dict)

    @property
    def search(self) -> str:
        """What guides the search: `classical` (Fast Downward's configurations), `hybrid` (a learned
        heuristic beside a classical one, strategies named so), `learned` (the learned heuristic or
        policy alone: a pure learned planner)."""
        return search_kind(self.system, self.strategy)

    @property
    def planner(self) -> str:
        if self.system == FD:
            return CLASSICAL.get(self.variant, f"FD {self.variant}")
        return f"{self.model} · {self.strategy}"


def search_kind(system: str, strategy: str) -> str:
    """Run.search of a run of `system` with `strategy`."""
    if system == FD:
        return "classical"
    return "hybrid" if "hybrid" in strategy else "learned"


def agile(seconds: float, budget: float) -> float:
    """The IPC's agile score of one solved problem: 1 at or below 1 s, 0 at or past the budget."""
    if seconds <= 1:
        return 1.0
    return max(0.0, 1 - math.log(seconds) / math.log(budget)) if budget > 1 else 0.0


def quality(cost: int, best: int, source: str, problem: str, bounds_file: str) -> float:
    """best / cost of one VAL-valid plan; CheaperThanBestKnown when cost < best."""
    if cost < best:
        raise CheaperThanBestKnown(f"problem {problem}: a VAL-valid plan of cost {cost} is cheaper than the best "
                                   f"known cost {best} of {bounds_file}: the plan or the bound is wrong", source)
    return 1.0 if cost == best else best / cost


def read_bounds(path: Path) -> dict[tuple[str, str], int]:
    """(split, problem) -> best known cost; GenplanError naming the file when missing or malformed."""
    if not path.is_file():
        raise GenplanError("no best known costs (the benchmark's import writes upper_bounds.csv)", path)
    rows = read_csv(path, "best known costs")
    if rows and not {"split", "problem", "best_known_cost"} <= set(rows[0]):
        raise GenplanError("not a best known costs table (columns split, problem, best_known_cost)", path)
    try:
        return {(r["split"], r["problem"]): int(r["best_known_cost"]) for r in rows}
    except ValueError as exc:
        raise GenplanError(f"a best known cost that is not an integer: {exc}", path) from None


def declared_limits(plans_dir: Path) -> dict:
    """A plans folder's limits.json ({config: {time_limit, memory_limit_mb, ...}}), {} where absent."""
    path = plans_dir / LIMITS
    if not path.is_file():
        return {}
    try:
        return json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise GenplanError(f"not JSON: {exc}", path) from None


def classical_runs(results: Path, benchmark: str = BENCHMARK, levels=LEVELS) -> list[tuple[Run, list[dict]]]:
    """Every classical run of the benchmark's level plans tables, with its rows (problem, solved, cost,
    time); `levels`: the splits read (PlanGPT's Table 3 scores a generated benchmark's interpolation split)."""
    lay, out = Layout(str(results)), []
    for path in sorted((results / "plans" / benchmark).glob("*/*.csv")):
        if path.stem not in levels:
            continue
        domain, level, table = path.parent.name, path.stem, plans_format.read_table(path)
        problems = {r["problem"] for r in table}
        limits = declared_limits(Path(lay.plans_dir(benchmark, domain, level)))
        for config in dict.fromkeys(r["config"] for r in table):
            rows = [r for r in table if r["config"] == config]
            if config in NOT_SCORED or {r["problem"] for r in rows} != problems:
                continue  # not a planner, or a fallback run on another's failures only: not a coverage
            lim = limits.get(config, {})
            run = Run(domain, level, FD, config, "", config, "", lim.get("time_limit"), lim.get("memory_limit_mb"),
                      str(path))
            run.protocol = all(r.get("cpu_time") not in ("", None) for r in rows if r["time"] not in ("", None))
            run.starved = [r["problem"] for r in rows if counting.plans_starved(r)]
            out.append((run, [{"problem": r["problem"], "solved": r["valid"] == "yes", "cost": r["plan_length"],
                               "time": counting.plans_seconds(r), **_classical_details(r)} for r in rows]))
    return out


def learned_runs(results: Path, benchmark: str = BENCHMARK, levels=LEVELS) -> list[tuple[Run, list[dict]]]:
    """Every evaluation CSV of the benchmark's `levels`, one run each, with its rows."""
    out = []
    for path in Layout(str(results)).evaluation_files():
        where = parse_evaluation_path(path)
        if where["benchmark"] != benchmark or where["split"] not in levels:
            continue
        rows = read_evaluation(path)
        counters = [json.loads(r["counters"] or "{}") for r in rows]  # read once a row
        limits = {c.get("time_limit") for c in counters} - {None}
        if len(limits) > 1:
            raise GenplanError(f"rows declare different time limits {sorted(limits)}: one run, one budget", path)
        first = rows[0] if rows else {"system": "", "variant": ""}
        timed = [(r, c) for r, c in zip(rows, counters)]
        protocol = all(c.get("cpu_time") is not None for c in counters)
        memory = {c.get("memory_limit_mb") for c in counters} - {None}
        run = Run(where["domain"], where["split"], first["system"], first["variant"], where["model"],
                  where["strategy"], where["seed"], float(limits.pop()) if limits else None,
                  memory.pop() if len(memory) == 1 else None, str(path),
                  refused=sum(r["reason"] == "refused" for r in rows),
                  loading_counted=protocol or all(c.get("load_time") is not None for r, c in timed
                                                  if r["time"] not in ("", None)),
                  protocol=protocol, starved=[r["problem"] for r, c in timed if counting.evaluation_starved(
                      {**r, "counters": c})])
        out.append((run, [{"problem": r["problem"], "solved": r["solved"] == "yes", "cost": r["plan_length"],
                           "time": counting.evaluation_seconds({**r, "counters": c}), **_learned_details(r, c)}
                          for r, c in timed]))
    return out


def _number(value):
    return None if value in ("", None) else float(value)


def _classical_details(r: dict) -> dict:
    """What a report shows of a Fast Downward row beyond the score: why it stopped, expansions, wall
    seconds, peak memory (KiB, Lab's unit), the errors nobody explained (a crash, a plan VAL rejected)."""
    memory = _number(r.get("peak_memory_mb"))
    return {"reason": "solved" if r["valid"] == "yes" else r["status"],
            "expansions": int(r["expansions"]) if r.get("expansions") not in ("", None) else None,
            "wall_time": _number(r["time"]), "memory": None if memory is None else round(memory * 1024),
            "unexplained": [r["reason"]] if r["status"] == "error" else []}


def _learned_details(r: dict, c: dict) -> dict:
    """The same of a learned row (its counters `c`)."""
    memory = c.get("peak_memory_mb")
    unexplained = []
    if r["reason"] == "error":
        unexplained.append(str(c.get("message", "the planner failed")))
    elif r["reason"] == "val_rejected" or str(r["val"]).startswith("not checked"):
        unexplained.append(f"VAL: {r['val']}")
    return {"reason": r["reason"], "expansions": c.get("states_expanded"),
            "wall_time": c.get("wall_time", _number(r["time"])),
            "memory": None if memory is None else round(float(memory) * 1024), "unexplained": unexplained}


def budgets(results: Path, benchmark: str = BENCHMARK) -> list[float]:
    """Every per-problem time limit the benchmark's runs declare (distinct, sorted); [] without runs."""
    runs = classical_runs(results, benchmark) + learned_runs(results, benchmark)
    return sorted({run.budget for run, _ in runs if run.budget is not None})


def score(run: Run, rows: list[dict], bounds: dict[tuple[str, str], int], bounds_file: str) -> Run:
    """The run with its per-problem scores; GenplanError for a solved problem without a best known cost
    or a declared budget, CheaperThanBestKnown for a plan cheaper than its best known cost."""
    for r in rows:
        time = float(r["time"]) if r["time"] not in ("", None) else None
        if not r["solved"]:
            run.scores[r["problem"]] = (False, 0.0, 0.0, time)
            continue
        if (run.level, r["problem"]) not in bounds:
            raise GenplanError(f"no best known cost of {run.level} problem {r['problem']} (solved in {run.source})",
                               bounds_file)
        if run.budget is None or time is None:
            what = "declared time limit" if run.budget is None else "time"
            raise GenplanError(f"{run.planner} solved {run.level} problem {r['problem']} without a {what}: "
                               f"its agile score is undefined ({LIMITS} of the plans stage, or the search's "
                               "time_limit counter)", run.source)
        if time > run.budget:  # found after the budget (wall-clock, loading included): unsolved, as the IPC counts it
            run.over_budget += 1
            run.scores[r["problem"]] = (False, 0.0, 0.0, time)
            continue
        q = quality(int(r["cost"]), bounds[(run.level, r["problem"])], run.source, r["problem"], bounds_file)
        run.scores[r["problem"]] = (True, q, agile(time, run.budget), time)
    return run


def best_found(pairs: list[tuple[Run, list[dict]]]) -> dict[tuple[str, str, str], int]:
    """(domain, level, problem) -> the cheapest VAL-valid plan any of the runs found."""
    best: dict[tuple[str, str, str], int] = {}
    for run, rows in pairs:
        for r in rows:
            if r["solved"]:
                key = (run.domain, run.level, r["problem"])
                best[key] = min(best.get(key, int(r["cost"])), int(r["cost"]))
    return best


def improved_bounds(results: Path, benchmark: str = BENCHMARK) -> list[dict]:
    """The problems whose shipped best known cost a scored run beat: domain, level, problem, shipped, found."""
    pairs = classical_runs(results, benchmark) + learned_runs(results, benchmark)
    lay, found, shipped, out = Layout(str(results)), best_found(pairs), {}, []
    for (domain, lvl, prob), cost in sorted(found.items()):
        if domain not in shipped:
            shipped[domain] = read_bounds(Path(lay.upper_bounds(benchmark, domain)))
        bound = shipped[domain].get((lvl, prob))
        if bound is not None and cost < bound:
            out.append({"domain": domain, "level": lvl, "problem": prob, "shipped": bound, "found": cost})
    return out


def scored_runs(results: Path, benchmark: str = BENCHMARK) -> list[Run]:
    """Every run of the benchmark under `results`, scored against its domain's best known costs, each
    lowered to the cheapest VAL-valid plan of any run (`best_found`)."""
    return [run for run, _ in scored_pairs(results, benchmark)]


def scored_pairs(results: Path, benchmark: str = BENCHMARK) -> list[tuple[Run, list[dict]]]:
    """`scored_runs` with each run's rows (problem, solved, cost, time and the details a report shows)."""
    lay, best, out = Layout(str(results)), {}, []
    pairs = classical_runs(results, benchmark) + learned_runs(results, benchmark)
    found = best_found(pairs)
    for run, rows in pairs:
        path = Path(lay.upper_bounds(benchmark, run.domain))
        if path not in best:  # the domain's shipped bounds, each lowered to the best plan found
            best[path] = {(lvl, prob): min(cost, found.get((run.domain, lvl, prob), cost))
                          for (lvl, prob), cost in read_bounds(path).items()}
        out.append((score(run, rows, best[path], str(path)), rows))
    return out


IDENTITY = ("system", "variant", "model", "strategy")


def summarise(runs: list[Run], keys: tuple[str, ...]) -> list[dict]:
    """One row per `keys` (e.g. domain, level) and planner: per seed, the problems, solved, quality and
    agile summed over the group's runs; then their mean and population std over the seeds (std None for
    one seed); the levels, budgets and memory limits of the runs (distinct, in order); `refused`: "all",
    "k/n" (problems refused over the runs' rows, seeds pooled) or ""; `loading`: "counted" when every run's
    times include its loading, else "not measured"; `over_budget`: plans found after the budget, counted
    unsolved (seeds pooled)."""
    groups: dict[tuple, list[Run]] = defaultdict(list)
    for run in runs:
        groups[tuple(getattr(run, k) for k in keys + IDENTITY)].append(run)
    out = []
    for key, rs in groups.items():
        per_seed: dict[str, list[float]] = defaultdict(lambda: [0, 0, 0.0, 0.0])
        for run in rs:
            sums = per_seed[run.seed]
            sums[0] += len(run.scores)
            for solved, q, a, _ in run.scores.values():
                sums[1] += solved
                sums[2] += q
                sums[3] += a
        row = {**dict(zip(keys + IDENTITY, key)), "planner": rs[0].planner, "search": rs[0].search,
               "n_seeds": len(per_seed),
               "n_problems": max(s[0] for s in per_seed.values()),
               "levels": [lv for lv in LEVELS if any(r.level == lv for r in rs)],
               "budget_s": sorted({r.budget for r in rs if r.budget is not None}),
               "memory_mb": sorted({r.memory_mb for r in rs if r.memory_mb is not None}),
               "refused": refused_label(sum(r.refused for r in rs), sum(len(r.scores) for r in rs)),
               "loading": "counted" if all(r.loading_counted for r in rs) else "not measured",
               "over_budget": sum(r.over_budget for r in rs)}
        for i, name in ((1, "solved"), (2, "quality"), (3, "agile")):
            values = [s[i] for s in per_seed.values()]
            row[name] = statistics.mean(values)
            row[f"{name}_std"] = statistics.pstdev(values) if len(values) > 1 else None
        out.append(row)
    return out


def solve_times(runs: list[Run]) -> dict[str, dict[str, list[float]]]:
    """planner -> seed -> the seconds of every solved problem (all the runs' domains and levels pooled)."""
    out: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for run in runs:
        out[run.planner][run.seed] += [t for solved, _, _, t in run.scores.values() if solved]
    return {planner: dict(seeds) for planner, seeds in out.items()}
