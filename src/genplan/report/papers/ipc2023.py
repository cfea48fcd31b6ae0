"""The IPC 2023 learning track: every planner run on the benchmark `ipc2023` scored as the
competition scores it (genplan.report.ipc_scores: coverage, IPC quality against the benchmark's best
known costs, agile score against each run's declared time limit), beside the published anchors
(genplan.report.published.ipc2023_anchors: LAMA, FDSS, GOFAI, Muninn's IPC quality; WL-GOOSE's coverage),
each anchor with its budget and hardware: a number at 1800 s on the competition's machines is not a
number at our budget, so every row names its budget and hardware and `kind` tells ours from theirs.

Outputs (genplan.report.registry):
- tables/ipc2023-levels.{csv,md}: per domain, level and planner, the problems, solved, IPC quality and
  agile score (sums over the level's problems; a learned model's mean and population std over seeds),
  with the run's budget (seconds) and memory limit (MB, where the run declares one);
- tables/ipc2023-domains.{csv,md}: the same per domain over the levels run (column `levels`) and in
  total, our rows (`kind` ours) followed by the anchors (`kind` published; out of 90 per domain, 900 in
  total, every level);
- tables/ipc2023-learned-vs-lama.{csv,md}: the yardstick (at least LAMA-first's coverage), per learned model and strategy and per
  domain, the problems it solved beside LAMA-first's on the same levels (those both ran), and whether
  it solved at least as many; the heading counts the domains where it did (where a domain ran the hard
  level, again on easy and medium alone, the levels every domain ran), and says where the published
  WL-GOOSE (1800 s) solved fewer problems than LAMA (`published_short_of_lama`);
- figures/ipc2023-coverage-time.{png,pdf}: problems solved against time per planner (genplan.report.ipc_figure).

Every table's column `search` (genplan.report.ipc_scores.Run.search) tells a pure learned planner
(`learned`) from a hybrid (`hybrid`: a learned heuristic beside a classical one, a strategy named so)
and from Fast Downward (`classical`); the versus table lists the hybrids after the pure learned
planners and counts them apart, each planner's count with its problems solved summed beside LAMA-first's.

Without results of the benchmark (a configuration that does not run it) the tables hold the anchors
only and say so, and the figure says "no results"."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from genplan import atomic
from genplan.formats import tables
from genplan.paths import Layout
from genplan.report import ipc_figure, ipc_scores, lab_report, render
from genplan.report.published import ipc2023_anchors

BENCHMARK, LEVELS = ipc_scores.BENCHMARK, ipc_scores.LEVELS
TOTAL = "total"
LEVEL_COLUMNS = ["benchmark", "domain", "level", "planner", "search", "system", "variant", "model", "strategy", "budget_s",
                 "memory_mb", "n_seeds", "n_problems", "solved", "solved_std", "coverage", "quality", "quality_std",
                 "agile", "agile_std", "refused", "loading", "over_budget"]
DOMAIN_COLUMNS = ["benchmark", "domain", "kind", "planner", "search", "system", "variant", "model", "strategy", "levels",
                  "budget_s", "memory", "hardware", "n_seeds", "n_problems", "solved", "solved_std", "quality",
                  "quality_std", "agile", "agile_std", "refused", "loading", "over_budget", "source"]
VERSUS_COLUMNS = ["benchmark", "domain", "planner", "search", "system", "variant", "model", "strategy", "levels", "budget_s",
                  "loading", "n_problems", "solved", "lama_first_solved", "lama_first_over_budget", "at_least_lama_first"]
LAMA = "lama_first"
OURS_HARDWARE = "our run (the configuration's machine)"
ANCHOR_NAMES = {"GOFAI": "GOFAI (track winner)", "WL-GOOSE": "WL-GOOSE (rank-SVM, WL on ILG)"}


def _num(value, digits: int = 2) -> str:
    return "" if value is None else f"{value:.{digits}f}" if isinstance(value, float) else str(value)


def _seconds(budgets: list[float]) -> str:
    return "/".join(f"{b:g}" for b in budgets)


def _order(row: dict) -> tuple:
    level = LEVELS.index(row["level"]) if row.get("level") in LEVELS else -1
    return row["domain"] == TOTAL, row["domain"], level, -row["solved"], row["planner"]


def level_rows(runs: list[ipc_scores.Run]) -> list[dict]:
    """ipc2023-levels: one row per domain, level and planner (module doc)."""
    rows = sorted(ipc_scores.summarise(runs, ("domain", "level")), key=_order)
    return [{**r, "benchmark": BENCHMARK, "budget_s": _seconds(r["budget_s"]),
             "memory_mb": "/".join(map(str, r["memory_mb"])),
             "coverage": r["solved"] / r["n_problems"] if r["n_problems"] else 0.0} for r in rows]


def _ours(row: dict, domain: str) -> dict:
    return {**row, "benchmark": BENCHMARK, "domain": domain, "kind": "ours", "levels": "+".join(row["levels"]),
            "budget_s": _seconds(row["budget_s"]), "memory": "/".join(f"{m} MB" for m in row["memory_mb"]),
            "hardware": OURS_HARDWARE, "source": ""}


def _anchor(a: dict) -> dict:
    measured = {"solved": a["value"]} if a["metric"] == "coverage" else {"quality": a["value"]}
    empty = dict.fromkeys(("solved", "solved_std", "quality", "quality_std", "agile", "agile_std"))
    return {**empty, **measured, "benchmark": BENCHMARK, "domain": a["domain"], "kind": "published",
            "planner": ANCHOR_NAMES.get(a["system"], a["system"]), "search": "", "system": a["system"], "variant": "",
            "model": "", "strategy": "", "levels": "+".join(LEVELS), "budget_s": f"{a['budget_s']:g}", "refused": "",
            "memory": a["memory"], "hardware": a["hardware"], "n_seeds": "", "n_problems": a["out_of"],
            "loading": "", "over_budget": "",
            "source": a["source"]}


def domain_rows(runs: list[ipc_scores.Run], anchors: list[dict]) -> list[dict]:
    """ipc2023-domains: per domain (then `total`) our planners, best coverage first, then the anchors."""
    ours = [_ours(r, r["domain"]) for r in ipc_scores.summarise(runs, ("domain",))]
    ours += [_ours(r, TOTAL) for r in ipc_scores.summarise(runs, ())]
    domains = sorted({r["domain"] for r in ours + anchors} - {TOTAL}) + [TOTAL]
    out = []
    for dom in domains:
        out += sorted((r for r in ours if r["domain"] == dom), key=lambda r: (-r["solved"], r["planner"]))
        out += [_anchor(a) for a in anchors if a["domain"] == dom]
    return out


def _cell(mean, std, digits: int) -> str:
    return render.mean_std(mean, std, digits) if mean is not None else "–"


def _solved(r: dict) -> str:
    """"k/n" (mean±std over seeds), and the refusals of a planner that cannot read the domain."""
    if r["solved"] is None:
        return "–"
    cell = f"{_cell(r['solved'], r['solved_std'], 0 if not r['solved_std'] else 1)}/{r['n_problems']}"
    return cell + (f" (refused {r['refused']})" if r["refused"] else "")


def _budget(r: dict) -> str:
    memory = f", {r['memory']}" if r.get("memory") else ""
    loading = ", loading not measured" if r.get("loading") == "not measured" else ""
    return (f"{r['budget_s']} s" if r["budget_s"] else "none declared") + loading + memory


# the one budget of every row of ours (genplan.report.ipc_scores)
BUDGET_RULE = ("A problem counts solved when a VAL-valid plan was found within the budget, loading included "
               "(genplan.report.counting): under the resource protocol, the CPU seconds of the planner's whole run "
               "(Fast Downward's driver, translator and search; a learned planner's interpreter, imports, model, "
               "parsing, grounding and search), each run a fresh process on a core of its own; rows made before the "
               "protocol in wall-clock seconds. A plan found later counts unsolved (the IPC's rule; column over "
               "budget). A learned row marked \"loading not measured\" predates `load_time`: its time is the "
               "problem's own.")


# what column `search` says (genplan.report.ipc_scores.Run.search)
SEARCH_NOTE = ("Column search: classical (Fast Downward), learned (a pure learned planner: the learned model alone "
               "guides the search), hybrid (a learned heuristic beside a classical one, e.g. a dual queue with hFF; "
               "counted apart from the pure learned planners). ")


def budget_phrase(runs: list[ipc_scores.Run]) -> str:
    """"ours at 60 s per problem" (every declared budget of the runs), or that there are no results."""
    budgets = sorted({r.budget for r in runs if r.budget is not None})
    if not runs:
        return f"no results of benchmark {BENCHMARK} under this results root yet"
    if not budgets:
        return "ours with no declared budget (nothing solved)"
    return "ours at " + " and ".join(f"{b:g} s" for b in budgets) + " per problem"


def _markdown(title: str, headers: list[str], rows: list[list[str]], notes: str) -> str:
    """The title, the table, then the notes: a reader sees the numbers first, the caveats after them."""
    return f"# {title}\n\n" + render.md(headers, rows) + f"\n{notes}\n"


def write_levels(rows: list[dict], runs, lay: Layout) -> list[Path]:
    csv_path, md_path = Path(lay.table("ipc2023-levels", "csv")), Path(lay.table("ipc2023-levels", "md"))
    tables.write_csv(csv_path, [{k: _num(r[k], 4) for k in LEVEL_COLUMNS} for r in rows], LEVEL_COLUMNS)
    md_rows = [[r["domain"], r["level"], r["planner"], r["search"], _budget(r), _solved(r), str(r["over_budget"] or ""),
                _cell(r["quality"], r["quality_std"], 2), _cell(r["agile"], r["agile_std"], 2), str(r["n_seeds"])]
               for r in rows]
    notes = (SEARCH_NOTE + "Per domain and level: solved (VAL-valid) out of the level's problems, IPC quality (best known cost / "
             "plan cost, summed over the problems) and agile score (1 - log t / log T, T the run's budget; summed). "
             "Learned planners: mean±std over seeds. " + BUDGET_RULE
             + ("" if rows else f"\n\n{budget_phrase(runs).capitalize()}."))
    atomic.write_text(md_path, _markdown(f"IPC 2023 learning track per level ({budget_phrase(runs)})",
                                         ["domain", "level", "planner", "search", "budget", "solved", "over budget",
                                          "quality", "agile", "seeds"], md_rows, notes))
    return [csv_path, md_path]


def write_domains(rows: list[dict], runs, lay: Layout) -> list[Path]:
    csv_path, md_path = Path(lay.table("ipc2023-domains", "csv")), Path(lay.table("ipc2023-domains", "md"))
    tables.write_csv(csv_path, [{k: _num(r[k], 4) for k in DOMAIN_COLUMNS} for r in rows], DOMAIN_COLUMNS)
    md_rows = [[r["domain"], r["planner"], r["search"], _budget(r), r["hardware"], r["levels"], _solved(r),
                _cell(r["quality"], r["quality_std"], 1),
                _cell(r["agile"], r["agile_std"], 1)] for r in rows]
    notes = (SEARCH_NOTE + "Ours: summed over the levels run (column levels); the published anchors (IPC 2023 official IPC "
             "quality scores; WL-GOOSE's coverage) at 1800 s per problem on other hardware, every level, out of 90 "
             "per domain: not numbers at our budget. Sources: src/genplan/data/ipc2023_anchors.csv. " + BUDGET_RULE)
    atomic.write_text(md_path, _markdown(f"IPC 2023 learning track per domain: {budget_phrase(runs)}, beside the "
                                         "published anchors at 1800 s",
                                         ["domain", "planner", "search", "budget", "hardware", "levels", "solved", "quality",
                                          "agile"], md_rows, notes))
    return [csv_path, md_path]


def versus_rows(runs: list[ipc_scores.Run]) -> list[dict]:
    """ipc2023-learned-vs-lama: per learned (model, strategy) and domain, over the levels where both it and
    LAMA-first ran, the problems solved by each (a learned model's mean over seeds)."""
    lama = {(r.domain, r.level): r for r in runs if r.system == ipc_scores.FD and r.variant == LAMA}
    learned = [r for r in runs if r.system != ipc_scores.FD and (r.domain, r.level) in lama]
    out = []
    keys = {(r.model, r.strategy, r.domain): r.search for r in learned}
    for key in sorted(keys, key=lambda k: (keys[k] != "learned", k)):  # pure learned planners first, hybrids apart
        mine = [r for r in learned if (r.model, r.strategy, r.domain) == key]
        levels = [lv for lv in LEVELS if any(r.level == lv for r in mine)]
        seeds = sorted({r.seed for r in mine})
        solved = sum(sum(ok for ok, *_ in r.scores.values()) for r in mine) / len(seeds)
        theirs = sum(sum(ok for ok, *_ in lama[(key[2], lv)].scores.values()) for lv in levels)
        budgets = sorted({r.budget for r in mine if r.budget is not None} |
                         {lama[(key[2], lv)].budget for lv in levels if lama[(key[2], lv)].budget is not None})
        first = mine[0]
        out.append({"benchmark": BENCHMARK, "domain": key[2], "planner": first.planner, "search": first.search,
                    "system": first.system,
                    "variant": first.variant, "model": key[0], "strategy": key[1], "levels": "+".join(levels),
                    "budget_s": _seconds(budgets), "loading": "counted" if all(r.loading_counted for r in mine)
                    else "not measured", "n_problems": sum(len(lama[(key[2], lv)].scores) for lv in levels),
                    "solved": solved, "lama_first_solved": theirs,
                    "lama_first_over_budget": sum(lama[(key[2], lv)].over_budget for lv in levels),
                    "at_least_lama_first": solved >= theirs})
    return out


def published_short_of_lama(anchors: list[dict]) -> list[str]:
    """Domains where the published WL-GOOSE coverage is below LAMA's published IPC quality score. Each
    solved problem scores at most 1, so the quality score is a lower bound on LAMA's coverage: in these
    domains the published WL-GOOSE (1800 s) solved fewer problems than LAMA did (same budget, other
    machines), whatever LAMA's coverage itself was."""
    lama = {a["domain"]: a["value"] for a in anchors if a["system"] == "LAMA" and a["metric"] == "ipc_quality"}
    return sorted(a["domain"] for a in _wl_goose(anchors) if a["domain"] in lama and a["value"] < lama[a["domain"]])


def _wl_goose(anchors: list[dict]) -> list[dict]:
    """WL-GOOSE's published coverage rows, one per domain (the total row left out)."""
    return [a for a in anchors if a["system"] == "WL-GOOSE" and a["metric"] == "coverage" and a["domain"] != TOTAL]


def _published_note(anchors: list[dict]) -> str:
    goose = _wl_goose(anchors)
    if not goose:
        return ""
    short, n = published_short_of_lama(anchors), len(goose)
    budget = ", ".join(sorted({f"{_num(a['budget_s'], 0)} s, {a['memory']}" for a in goose}))
    return (f" The published anchors ({budget}, not our budget): WL-GOOSE's coverage is below LAMA's IPC quality "
            f"score, a lower bound on LAMA's coverage, in {len(short)} of {n} domains ({', '.join(short)}), "
            f"so the published WL-GOOSE solved at least as many problems as LAMA in at most {n - len(short)} of {n}.")


SEARCH_LABELS = {"learned": "", "hybrid": " (hybrid: learned and classical heuristics)"}


def _counts(rows: list[dict]) -> list[str]:
    """Per learned planner, pure learned ones first: in how many of its domains it solved at least
    LAMA-first's count, and its problems solved summed over them beside LAMA-first's."""
    planners = sorted({(r["search"] != "learned", r["planner"], r["search"]) for r in rows})
    out = []
    for _, planner, search in planners:
        mine = [r for r in rows if r["planner"] == planner]
        solved = sum(r["solved"] for r in mine)
        out.append(f"{planner}{SEARCH_LABELS.get(search, '')}: at least LAMA-first's coverage in "
                   f"{sum(r['at_least_lama_first'] for r in mine)} of {len(mine)} domains (solved "
                   f"{_num(solved, 1 if solved % 1 else 0)} against LAMA-first's {sum(r['lama_first_solved'] for r in mine)})")
    return out


def write_versus(rows: list[dict], runs, lay: Layout, anchors: list[dict] = ()) -> list[Path]:
    csv_path, md_path = Path(lay.table("ipc2023-learned-vs-lama", "csv")), Path(lay.table("ipc2023-learned-vs-lama", "md"))
    tables.write_csv(csv_path, [{k: ("yes" if r[k] is True else "no" if r[k] is False else _num(r[k], 2))
                                 for k in VERSUS_COLUMNS} for r in rows], VERSUS_COLUMNS)
    counts = _counts(rows)
    if any("hard" in r["levels"].split("+") for r in rows):  # the levels every domain ran, apart
        first = [lv for lv in LEVELS if lv != "hard"]
        counts.append(f"on the {' and '.join(first)} levels alone: "
                      + ", ".join(_counts(versus_rows([r for r in runs if r.level in first]))))
    md_rows = [[r["domain"], r["planner"], r["search"], r["levels"], _budget(r), f"{_num(r['solved'], 1 if r['solved'] % 1 else 0)}/{r['n_problems']}",
                f"{r['lama_first_solved']}/{r['n_problems']}"
                + (f" ({r['lama_first_over_budget']} over budget)" if r["lama_first_over_budget"] else ""),
                "yes" if r["at_least_lama_first"] else "no"] for r in rows]
    notes = (SEARCH_NOTE + "Problems solved (VAL-valid) on the levels both ran, at the same per-problem budget. " + BUDGET_RULE + " "
             + ("; ".join(counts) + "." if counts else budget_phrase(runs).capitalize() + ".")
             + _published_note(list(anchors)))
    atomic.write_text(md_path, _markdown(f"IPC 2023 learning track: learned planners against LAMA-first ({budget_phrase(runs)})",
                                         ["domain", "planner", "search", "levels", "budget", "solved", "LAMA-first",
                                          "at least LAMA-first"], md_rows, notes))
    return [csv_path, md_path]


def compared_levels(runs: list[ipc_scores.Run]) -> tuple[set, list[tuple[str, str]]]:
    """The (domain, level) cells that every planner run in the domain has run, and the others: the tables
    that set planners side by side over sums (coverage, Lab's report, the coverage-time curve) compare
    them on the same problems only. A planner that ran none of a domain's levels leaves its cell blank
    there instead of emptying the domain (its sum says so); a level only some planners have run waits,
    named in the coverage table's notes, with its rows in ipc2023-levels."""
    cells: dict[str, dict[str, set]] = defaultdict(lambda: defaultdict(set))
    for r in runs:
        cells[r.domain][r.level].add(lab_report.algorithm(r))
    keep, left = set(), []
    for domain, levels in cells.items():
        ran = set().union(*levels.values())
        for level, planners in levels.items():
            (keep.add((domain, level)) if planners == ran else left.append((domain, level)))
    return keep, sorted(left, key=lambda c: (c[0], LEVELS.index(c[1]) if c[1] in LEVELS else 99))


def build(results: Path, out_dir: Path, published=None) -> list[Path]:
    """Every table and figure of the module doc; nothing is written when a run is refused (a plan cheaper
    than the best known, a solved problem without a declared budget or a best known cost)."""
    pairs = ipc_scores.scored_pairs(Path(results))
    runs = [run for run, _ in pairs]
    keep, left = compared_levels(runs)
    compared = [(run, rows) for run, rows in pairs if (run.domain, run.level) in keep]
    anchors = ipc2023_anchors()
    levels, domains = level_rows(runs), domain_rows(runs, anchors)
    lay = Layout(str(out_dir))
    written = (write_coverage([r for r, _ in compared], lay, left) + write_levels(levels, runs, lay)
               + write_domains(domains, runs, lay) + write_versus(versus_rows(runs), runs, lay, anchors))
    written += ipc_figure.coverage_time([r for r, _ in compared],
                                        Path(lay.figure("ipc2023-coverage-time", "png")).with_suffix(""))
    return written + write_lab(compared, pairs, runs, Path(out_dir), lay)


STARVED_RERUN = ("./genplan-env snakemake --cores 2 --configfile workflow/configs/ipc2023-cpu.yaml --forcerun "
                 "$(./genplan-env genplan starved --results results/ipc2023-cpu)")


def coverage_notes(runs: list[ipc_scores.Run], left: list[tuple[str, str]] = ()) -> list[str]:
    protocol = all(r.protocol for r in runs)
    kinds = sorted({f"{r.budget:g} s" for r in runs if r.budget is not None})
    return [("A problem counts solved when a VAL-valid plan was found within the budget ("
             + " / ".join(kinds) + " a problem), loading included: CPU seconds of the planner's whole run "
             "under the resource protocol (genplan.limits: one planner process a core, RLIMIT_CPU for the process "
             "group, a wall cap, 8 GiB)" + ("" if protocol else "; runs made before the protocol are counted in "
                                             "wall-clock seconds") + "."),
            "Columns are planners as Downward Lab names algorithms: Fast Downward's configurations (lama_first, "
            "gbfs_ff_eager) and model:strategy of the learned planners; strategies with 'hybrid' in their name "
            "use a classical heuristic beside the learned one.",
            "Problems: the levels run in each domain (30 a level); the sum row adds the domains. "
            "Per level and per planner: ipc2023-levels.md; Lab's report: ipc2023-lab.md; errors and starved runs: "
            "ipc2023-errors.md."] + ([
            "Left out until every planner has run them, so that the planners are compared on the same problems: "
            + ", ".join(f"{d} {lv}" for d, lv in left) + " (their rows are in ipc2023-levels.md)."] if left else [])


def write_coverage(runs: list[ipc_scores.Run], lay: Layout, left: list[tuple[str, str]] = ()) -> list[Path]:
    return lab_report.write_coverage(runs, Path(lay.table("ipc2023-coverage", "csv")),
                                     Path(lay.table("ipc2023-coverage", "md")), coverage_notes(runs, left))


def write_lab(compared, pairs, runs: list[ipc_scores.Run], out_dir: Path, lay: Layout) -> list[Path]:
    """Lab's report and scatter plots over the levels every planner ran (`compared`); the task-wise table
    and the errors over every run."""
    planners = list(dict.fromkeys(lab_report.algorithm(r) for r in runs if r.search == "learned"))
    written = lab_report.write_lab(lab_report.properties(compared), out_dir / "lab" / "ipc2023-eval",
                                   Path(lay.table("ipc2023-lab", "md")),
                                   Path(lay.figure("ipc2023-coverage-time", "png")).parent, planners)
    props = lab_report.properties(pairs)
    written += lab_report.write_taskwise(props, Path(lay.table("ipc2023-taskwise", "csv")))
    return written + lab_report.write_errors(props, runs, Path(lay.table("ipc2023-errors", "md")), STARVED_RERUN)
