"""One leaderboard for every system of the pipeline, and the state-centric
paper's Table 4 (model sizes across methods) from the same numbers.

Rows: every (benchmark, domain, split, system, variant, model, strategy) of the evaluation CSVs
under a results root (every family that has landed), and Fast Downward's configurations from the
plans tables (A* + LM-cut, GBFS + FF, LAMA-first, and eager GBFS + FF where a configuration runs it:
the IPC 2023 benchmark's; anytime LAMA only feeds the best-known lengths: it runs where A* proved no
optimum, so a coverage of it would not compare). The IPC 2023 benchmark's levels (easy, medium, hard)
are its splits, after the papers' splits. Columns:

- coverage: the fraction of the split's problems solved (VAL-valid plan), mean over seeds;
- quality: mean over the solved problems of best-known length / plan length, the best known
  being the shortest VAL-valid plan of any system on that problem (genplan.report.best_known:
  every Fast Downward run and the reference plan of the plans table, anytime LAMA's table, and
  every learned planner's solved rows; and a benchmark's own best known costs where it ships them:
  the IPC 2023 benchmark's upper_bounds.csv); ipc_score: the same ratio summed over all problems (0 for
  an unsolved one) over the number of problems (the IPC's quality score);
- mean_length: mean plan length over the solved problems; median_time_s: median seconds per
  solved problem (the learned planners: their own clock, model binding included; Fast Downward:
  the driver's wall time, translator included);
- parameters (or tree nodes for XGBoost) and training CPU and wall seconds, and the device, from
  the training summaries (mean over seeds; CPU time `job_cpu_s`, or `cpu_time_s` in the heuristic
  family's older summaries: blank only for a summary written before training jobs recorded it).

GBFS + FF runs in the plans stage only where A* + LM-cut neither found a plan nor proved there is
none: its row counts the problems it solved there over the split's problems, as every row does
(`n_problems` is the split's size for every row), so it never ranks above A* on a smaller base.
Optional: `<root>/scaling/scaling.csv` of `perf/scaling.py` adds the scaling sets
(benchmark `scaling`, one split per size).

A benchmark whose results declare their per-problem budget (the IPC 2023 benchmark: its plans
folders' limits.json, its searches' time limits) names it under the Markdown table and in the figures'
titles; the other benchmarks' tables and figures are as before.

Outputs (genplan.report.registry): tables/leaderboard.{md,csv}, tables/model-sizes.{md,csv},
figures/leaderboard.{png,pdf,svg} and leaderboard-quality.{png,pdf} (genplan.report.leaderboard_figure:
each system's best configuration, coverage by domain and split), tables/learned-vs-classical.csv."""

from __future__ import annotations

import csv
import statistics
from pathlib import Path

from genplan import atomic, registry
from genplan.formats import plans_table as plans_format
from genplan.formats import tables
from genplan.paths import Layout
from genplan.report import aggregate, collect, counting, render
from genplan.report import best_known as known
from genplan.report.ipc_scores import budgets, declared_limits, read_bounds
from genplan.report.registry import BOUNDED

COLUMNS = ["benchmark", "domain", "split", "system", "variant", "model", "strategy", "coverage", "n_solved",
           "n_problems", "n_seeds", "quality", "ipc_score", "mean_length", "median_time_s", "parameters",
           "parameter_unit", "train_cpu_s", "train_wall_s", "device"]
FD = "fast_downward"
FD_CONFIGS = ("astar_lmcut", "gbfs_ff", "lama_first", "gbfs_ff_eager")
SPLIT_ORDER = {"validation": 0, "interpolation": 1, "extrapolation": 2, "easy": 3, "medium": 4, "hard": 5, "test": 6}
# a training summary's CPU seconds (genplan.training.job.TIMES); the heuristic family's committed summaries
# name it `cpu_time_s`, the name it wrote before it trained through genplan.training.job
CPU_TIME = ("job_cpu_s", "cpu_time_s")
SIZE_COLUMNS = ["family", "system", "variant", "architecture", "parameter_unit", "min", "max", "n_models", "ratio"]


def _f(value) -> float | None:
    return None if value in ("", None) else float(value)


def _size(summary: dict) -> tuple[float | None, str]:
    nodes = collect.summary_value(summary, "xgb_nodes")
    if nodes is not None:
        return float(nodes), "tree nodes"
    params = collect.summary_value(summary, "parameters", "lstm_parameters")
    unit = "tree nodes" if summary.get("learner") == "xgb" and summary.get("family") == "heuristic" else "parameters"
    return (None if params is None else float(params)), unit


def _summaries(results: Path) -> dict[tuple, list[dict]]:
    out: dict[tuple, list[dict]] = {}
    for s in collect.training_summaries(results):
        out.setdefault((s["benchmark"], s["domain"], s["model"]), []).append(s)
    return out


def _mean(values):
    values = [v for v in values if v is not None]
    return statistics.mean(values) if values else None


def best_known(results: Path, evaluations: list[dict]) -> dict[tuple, int]:
    """(benchmark, domain, split, problem) -> the shortest VAL-valid plan of any system
    (genplan.report.best_known: the plans tables, anytime LAMA's tables, every learned plan), or the
    benchmark's own best known cost where it ships a lower one (genplan.report.registry.BOUNDED)."""
    best = {key: b.length for key, b in known.best_known(collect.plans_tables(results), evaluations).items()}
    lay = Layout(str(results))
    for bench, dom in sorted({k[:2] for k in best if k[0] in BOUNDED}):
        path = Path(lay.upper_bounds(bench, dom))
        if path.is_file():
            for (split, problem), cost in read_bounds(path).items():
                key = (bench, dom, split, problem)
                if key in best:
                    best[key] = min(best[key], cost)
    return best


def declared_budgets(results: Path) -> dict[str, str]:
    """benchmark -> its runs' declared per-problem time limits ("60 s", "60 s / 300 s"), for the benchmarks
    whose results name their budget (BOUNDED: the IPC 2023 benchmark's) and have runs; {} otherwise."""
    out = {}
    for bench in BOUNDED:
        seconds = budgets(results, bench)
        if seconds:
            out[bench] = " / ".join(f"{b:g} s" for b in seconds)
    return out


def learned_rows(results: Path, evaluations: list[dict], best: dict[tuple, int]) -> list[dict]:
    summaries = _summaries(results)
    rows = []
    keys = ("benchmark", "domain", "split", "system", "variant", "model", "strategy")
    for key, rs in aggregate.group(evaluations, keys).items():
        seeds = aggregate.group(rs, ("seed",))
        n = max(len(v) for v in seeds.values())
        solved = [r for r in rs if counting.evaluation_counts(r)]  # VAL-valid within the budget
        ratios = [best[(r["benchmark"], r["domain"], r["split"], r["problem"])] / int(r["plan_length"])
                  for r in solved if int(r["plan_length"]) > 0]
        sums = summaries.get((key[0], key[1], key[5]), [])
        sizes = [_size(s) for s in sums]
        rows.append({**dict(zip(keys, key)),
                     "coverage": statistics.mean(sum(map(counting.evaluation_counts, v)) / len(v)
                                                 for v in seeds.values()),
                     "n_solved": len(solved), "n_problems": n, "n_seeds": len(seeds),
                     "quality": _mean(ratios), "ipc_score": sum(ratios) / (n * len(seeds)),
                     "mean_length": _mean([_f(r["plan_length"]) for r in solved]),
                     "median_time_s": statistics.median(_f(r["time"]) for r in solved) if solved else None,
                     "parameters": _mean([p for p, _ in sizes]), "parameter_unit": sizes[0][1] if sizes else "",
                     "train_cpu_s": _mean([collect.summary_value(s, *CPU_TIME) for s in sums]),
                     "train_wall_s": _mean([collect.summary_value(s, "job_time_s") for s in sums]),
                     "device": "/".join(sorted({str(s.get("device")) for s in sums if s.get("device")}))})
    return rows


def fast_downward_rows(results: Path, best_all: dict[tuple, int]) -> list[dict]:
    rows = []
    for (bench, dom, split), table in collect.plans_tables(results).items():
        if split not in SPLIT_ORDER:
            continue
        best = {p: best_all[(bench, dom, split, p)] for p in plans_format.best_known_lengths(table)}
        problems = {r["problem"] for r in table}
        declared = declared_limits(Path(Layout(str(results)).plans_dir(bench, dom, split)))
        for config in FD_CONFIGS:
            runs = [r for r in table if r["config"] == config]
            if not runs:
                continue
            budget = declared.get(config, {}).get("time_limit")
            solved = [r for r in runs if counting.plans_counts(r, budget)]  # VAL-valid within the budget
            ratios = [best[r["problem"]] / int(r["plan_length"]) for r in solved
                      if r["problem"] in best and int(r["plan_length"]) > 0]
            n = len(problems)  # every row's denominator is the split (GBFS + FF's too: see the docstring)
            rows.append({"benchmark": bench, "domain": dom, "split": split, "system": FD, "variant": config,
                         "model": "", "strategy": config, "coverage": len(solved) / n if n else 0.0,
                         "n_solved": len(solved), "n_problems": n, "n_seeds": 1, "quality": _mean(ratios),
                         "ipc_score": sum(ratios) / n if n else None,
                         "mean_length": _mean([float(r["plan_length"]) for r in solved]),
                         "median_time_s": statistics.median(float(r["time"]) for r in solved) if solved else None,
                         "parameters": None, "parameter_unit": "", "train_cpu_s": None, "train_wall_s": None,
                         "device": "cpu"})
    return rows


def scaling_rows(results: Path) -> list[dict]:
    path = results / "scaling" / "scaling.csv"
    if not path.is_file():
        return []
    with open(path, newline="") as fh:
        data = list(csv.DictReader(fh))
    best: dict[str, int] = {}
    for r in data:
        if r["solved"] == "yes":
            best[r["problem"]] = min(best.get(r["problem"], 10**9), int(r["plan_length"]))
    rows = []
    for (dom, size, planner), rs in aggregate.group(data, ("domain", "size", "planner")).items():
        solved = [r for r in rs if counting.evaluation_counts(r)]  # VAL-valid within the budget
        ratios = [best[r["problem"]] / int(r["plan_length"]) for r in solved]
        system = FD if planner in FD_CONFIGS else planner.split("-", 1)[0]
        variant = planner
        rows.append({"benchmark": "scaling", "domain": dom, "split": f"size{size}", "system": system,
                     "variant": variant, "model": "", "strategy": planner, "coverage": len(solved) / len(rs),
                     "n_solved": len(solved), "n_problems": len(rs), "n_seeds": 1, "quality": _mean(ratios),
                     "ipc_score": sum(ratios) / len(rs),
                     "mean_length": _mean([float(r["plan_length"]) for r in solved]),
                     "median_time_s": statistics.median(float(r["time"]) for r in solved) if solved else None,
                     "parameters": None, "parameter_unit": "", "train_cpu_s": None, "train_wall_s": None,
                     "device": "cpu"})
    return rows


def _order(r: dict) -> tuple:
    split = SPLIT_ORDER.get(r["split"], len(SPLIT_ORDER))
    size = int(r["split"][4:]) if r["split"].startswith("size") else 0
    return (r["benchmark"], r["domain"], split, size, -r["coverage"], -(r["ipc_score"] or 0), r["system"],
            r["variant"], r["model"], r["strategy"])


def _cell(value, digits=2) -> str:
    return "" if value is None else (f"{value:.4f}" if isinstance(value, float) else str(value))


def model_sizes(rows: list[dict], results: Path) -> list[dict]:
    """Table 4: every learned model's size range (over domains and benchmarks) per family,
    system and variant, as its family names a training summary (its `size_entry`, with the
    architecture), and its ratio to the transition LSTMs' median size."""
    by: dict[tuple, list[float]] = {}
    about: dict[tuple, tuple[str, str]] = {}  # (family, system, variant) -> (architecture, unit)
    for sums in _summaries(results).values():
        for s in sums:
            size, unit = _size(s)
            if size is None:
                continue
            system, variant, architecture = registry.family(s["family"]).impl.size_entry(s)
            by.setdefault((s["family"], system, variant), []).append(size)
            about[(s["family"], system, variant)] = (architecture, unit)
    lstm = [v for (f, _, var), vs in by.items() if f == "transition" and var == "lstm" for v in vs]
    ref = statistics.median(lstm) if lstm else None
    out = []
    for (family, system, variant), sizes in sorted(by.items()):
        architecture, unit = about[(family, system, variant)]
        ratio = statistics.median(sizes) / ref if ref and unit == "parameters" else None
        out.append({"family": family, "system": system, "variant": variant, "architecture": architecture,
                    "parameter_unit": unit, "min": int(min(sizes)), "max": int(max(sizes)), "n_models": len(sizes),
                    "ratio": ratio})
    return out


def build(results: Path, out_dir: Path, published=None) -> list[Path]:
    evaluations = collect.evaluation_rows(results)
    best = best_known(results, evaluations)
    rows = sorted(learned_rows(results, evaluations, best) + fast_downward_rows(results, best) + scaling_rows(results),
                  key=_order)
    sizes = model_sizes(rows, results)
    lay = Layout(str(out_dir))
    written = []
    path = Path(lay.table("leaderboard", "csv"))
    tables.write_csv(path, [{k: _cell(r[k]) for k in COLUMNS} for r in rows], COLUMNS)
    written.append(path)
    headers = ["benchmark", "domain", "split", "system", "variant", "model", "strategy", "coverage", "quality",
               "IPC score", "mean length", "median s", "params / nodes", "train CPU s", "train wall s", "device"]
    md_rows = [[r["benchmark"], r["domain"], r["split"], r["system"], r["variant"], r["model"] or "–", r["strategy"],
                f"{r['n_solved']}/{r['n_problems'] * r['n_seeds']} ({render.num(r['coverage'])})",
                render.num(r["quality"]), render.num(r["ipc_score"]), render.num(r["mean_length"], 1),
                render.num(r["median_time_s"], 2), render.num(r["parameters"], 0), render.num(r["train_cpu_s"], 1),
                render.num(r["train_wall_s"], 1), r["device"] or "–"] for r in rows]
    path = Path(lay.table("leaderboard", "md"))
    budgets = declared_budgets(results)
    notes = "".join(f"\nBenchmark {b}: every run at {text} per problem (the runs' declared time limits).\n"
                    for b, text in budgets.items())
    atomic.write_text(path, "# Leaderboard: every system on the same instances\n\n" + render.md(headers, md_rows)
                      + notes)
    written.append(path)
    path = Path(lay.table("model-sizes", "csv"))
    tables.write_csv(path, [{k: _cell(r[k]) for k in SIZE_COLUMNS} for r in sizes], SIZE_COLUMNS)
    written.append(path)
    path = Path(lay.table("model-sizes", "md"))
    atomic.write_text(path, "# Model sizes across methods (state-centric Table 4, from our training summaries)\n\n"
                      + render.md(["family", "system", "variant", "architecture", "unit", "size", "models",
                                   "ratio to LSTM"],
                                  [[s["family"], s["system"], s["variant"], s["architecture"], s["parameter_unit"],
                                    f"{s['min']:,}–{s['max']:,}", str(s["n_models"]), render.num(s["ratio"], 2)]
                                   for s in sizes]))
    written.append(path)
    from genplan.report.leaderboard_figure import coverage_figure

    written += coverage_figure(rows, Path(lay.figure("leaderboard", "png")).with_suffix(""), budgets)
    return written
