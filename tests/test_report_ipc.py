"""The IPC 2023 learning track's report (genplan.report.papers.ipc2023) on a tiny results tree
written here (two domains, a few rows; no planner runs): coverage, IPC quality and agile score against
hand-computed values, the published anchors equal to the benchmark README's table, the figure, the
leaderboard's rows of the benchmark, a plan cheaper than the shipped best known cost lowering it, and
the refusals (a solved problem without a declared budget, a missing results folder)."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import matplotlib.pyplot as plt
import pytest
from conftest import run_cli

from genplan.errors import GenplanError
from genplan.formats.evaluation_csv import COLUMNS as EVAL_COLUMNS
from genplan.formats.plans_table import COLUMNS as PLAN_COLUMNS
from genplan.report import build_report, ipc_figure, ipc_scores, legibility
from genplan.report.published import ipc2023_anchors

T = 100  # the tree's declared per-problem budget, seconds


def _write(path: Path, rows: list[dict], columns) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(columns))
        w.writeheader()
        w.writerows(rows)


def _plan(problem, config, length, time, valid="yes", status="satisficing"):
    return {"problem": problem, "config": config, "status": status, "plan_length": length, "time": time,
            "valid": valid, "reason": "", "plan_file": ""}


def _eval(domain, seed, problem, length, time, solved=True):
    counters = json.dumps({"time_limit": T, "max_expansions": 1000})
    row = dict.fromkeys(EVAL_COLUMNS, "")
    row.update(benchmark="ipc2023", domain=domain, split="easy", system="learned_heuristic", variant="ridge",
               model="wl_ridge", seed=seed, strategy="gbfs", problem=problem, solved="yes" if solved else "no",
               reason="goal" if solved else "time_limit", val="valid" if solved else "",
               plan_length=length if solved else "", time=time, counters=counters)
    return row


def tree(root: Path) -> Path:
    """blocksworld easy p01-p03 (best known 10, 8, 20), ferry easy p01-p02 (5, 7); LAMA-first, eager GBFS
    and the shipped reference plans, a learned model with two seeds on blocksworld."""
    for dom, bounds in {"blocksworld": {"p01": 10, "p02": 8, "p03": 20}, "ferry": {"p01": 5, "p02": 7}}.items():
        _write(root / "problems" / "ipc2023" / dom / "upper_bounds.csv",
               [{"split": "easy", "problem": p, "best_known_cost": c} for p, c in bounds.items()],
               ["split", "problem", "best_known_cost"])
        limits = {c: {"time_limit": T, "memory_limit_mb": 8192} for c in ("lama_first", "gbfs_ff_eager")}
        (root / "plans" / "ipc2023" / dom / "easy").mkdir(parents=True)
        (root / "plans" / "ipc2023" / dom / "easy" / "limits.json").write_text(json.dumps(limits))
    _write(root / "plans" / "ipc2023" / "blocksworld" / "easy.csv", [
        _plan("p01", "lama_first", 10, "0.500"),  # the best known cost, under 1 s: quality 1, agile 1
        _plan("p02", "lama_first", 10, "10.000"),  # worse: 8/10; agile 1 - log 10 / log 100 = 0.5
        _plan("p03", "lama_first", "", "101.000", valid="", status="timeout"),
        _plan("p01", "gbfs_ff_eager", 16, "2.000"),  # 10/16; 1 - log 2 / log 100
        _plan("p02", "gbfs_ff_eager", 9, "3.000", valid="no", status="error"),  # invalid: unsolved
        _plan("p03", "gbfs_ff_eager", "", "101.000", valid="", status="timeout"),
        *[_plan(p, "reference", n, "") for p, n in (("p01", 10), ("p02", 8), ("p03", 20))]], PLAN_COLUMNS)
    _write(root / "plans" / "ipc2023" / "ferry" / "easy.csv", [
        _plan("p01", "lama_first", 5, "1.000"), _plan("p02", "lama_first", 14, "1000.000"),  # past the budget: unsolved
        _plan("p01", "gbfs_ff_eager", 5, "0.100"), _plan("p02", "gbfs_ff_eager", 7, "0.200")], PLAN_COLUMNS)
    runs = root / "evaluation" / "ipc2023" / "blocksworld" / "wl_ridge"
    _write(runs / "seed13" / "easy.gbfs.csv", [_eval("blocksworld", 13, "p01", 10, "0.2000"),
                                              _eval("blocksworld", 13, "p02", "", "100.0100", solved=False),
                                              _eval("blocksworld", 13, "p03", 25, "50.0000")], EVAL_COLUMNS)
    _write(runs / "seed14" / "easy.gbfs.csv", [_eval("blocksworld", 14, "p01", 10, "0.3000"),
                                              _eval("blocksworld", 14, "p02", 8, "5.0000"),
                                              _eval("blocksworld", 14, "p03", "", "100.0200", solved=False)],
           EVAL_COLUMNS)
    return root


def _agile(t):
    return 1.0 if t <= 1 else max(0.0, 1 - math.log(t) / math.log(T))


@pytest.fixture
def results(tmp_path) -> Path:
    return tree(tmp_path / "results")


def _rows(path: Path) -> list[dict]:
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def test_coverage_quality_and_agile_by_hand(results):
    written = build_report("ipc2023", results, results)
    assert {p.name for p in written} == {"ipc2023-levels.csv", "ipc2023-levels.md", "ipc2023-domains.csv",
                                         "ipc2023-domains.md", "ipc2023-learned-vs-lama.csv", "ipc2023-learned-vs-lama.md",
                                         "ipc2023-coverage-time.png", "ipc2023-coverage-time.pdf",
                                         "ipc2023-coverage.csv", "ipc2023-coverage.md", "ipc2023-lab.md",
                                         "ipc2023-errors.md", "ipc2023-taskwise.csv", "properties",
                                         "ipc2023-scatter-total_time-wl_ridge-gbfs.png",
                                         "ipc2023-scatter-expansions-wl_ridge-gbfs.png",
                                         "ipc2023-scatter-total_time-wl_ridge-gbfs-seed14.png",
                                         "ipc2023-scatter-expansions-wl_ridge-gbfs-seed14.png"}
    levels = {(r["domain"], r["planner"]): r for r in _rows(results / "tables" / "ipc2023-levels.csv")}
    expected = {  # (domain, planner): solved, quality, agile, problems, seeds
        ("blocksworld", "FD LAMA-first"): (2, 1 + 8 / 10, 1 + _agile(10), 3, 1),
        ("blocksworld", "FD eager GBFS + hFF"): (1, 10 / 16, _agile(2), 3, 1),
        ("ferry", "FD LAMA-first"): (1, 1.0, 1.0, 2, 1),  # p02's plan came after the budget: unsolved
        ("ferry", "FD eager GBFS + hFF"): (2, 2.0, 2.0, 2, 1),
        # seed 13: p01 (1, 1), p03 (20/25, agile 50 s); seed 14: p01 (1, 1), p02 (1, agile 5 s): the mean
        ("blocksworld", "wl_ridge · gbfs"): (2, (1 + 0.8 + 2) / 2, (1 + _agile(50) + 1 + _agile(5)) / 2, 3, 2),
    }
    assert set(levels) == set(expected)  # the shipped reference plans are no planner run
    for key, (solved, quality, agile, n, seeds) in expected.items():
        r = levels[key]
        assert (float(r["solved"]), int(r["n_problems"]), int(r["n_seeds"])) == (solved, n, seeds), key
        assert float(r["quality"]) == pytest.approx(quality, abs=1e-4), key
        assert float(r["agile"]) == pytest.approx(agile, abs=1e-4), key
        assert r["budget_s"] == str(T) and r["level"] == "easy"
    learned = levels[("blocksworld", "wl_ridge · gbfs")]
    assert float(learned["quality_std"]) == pytest.approx(0.1, abs=1e-4)  # seeds 1.8 and 2.0
    assert learned["memory_mb"] == "" and levels[("ferry", "FD LAMA-first")]["memory_mb"] == "8192"
    assert levels[("ferry", "FD LAMA-first")]["over_budget"] == "1" and levels[("ferry", "FD LAMA-first")]["loading"] == "counted"
    assert learned["over_budget"] == "0" and learned["loading"] == "not measured"  # rows without load_time
    assert "| wl_ridge · gbfs | learned | 100 s, loading not measured |" in (results / "tables" / "ipc2023-levels.md").read_text()


def test_the_budget_counts_a_learned_planners_loading(results):
    """A row's load_time (its process's start and model load) is added to its time: a plan found at
    95 s after 10 s of loading is past the 100 s budget and unsolved, as Fast Downward's driver run is
    (one budget for both kinds of planner)."""
    rows = [_eval("blocksworld", 13, p, n, t) for p, n, t in (("p01", 10, "0.2000"), ("p02", 8, "95.0000"),
                                                              ("p03", 20, "50.0000"))]
    for r in rows:
        r["counters"] = json.dumps({**json.loads(r["counters"]), "load_time": 10.0})
    path = results / "evaluation" / "ipc2023" / "blocksworld" / "wl_ridge" / "seed13" / "easy.gbfs.csv"
    _write(path, rows, EVAL_COLUMNS)
    (results / "evaluation" / "ipc2023" / "blocksworld" / "wl_ridge" / "seed14" / "easy.gbfs.csv").unlink()
    run = next(r for r in ipc_scores.scored_runs(results) if r.model == "wl_ridge")
    assert run.loading_counted and run.over_budget == 1
    assert [run.scores[p][0] for p in ("p01", "p02", "p03")] == [True, False, True]
    assert run.scores["p03"][3] == pytest.approx(60.0)  # 50 s of search after 10 s of loading
    assert run.scores["p01"][2] == pytest.approx(_agile(10.2))


def test_tables_name_their_budget_and_set_the_anchors_apart(results):
    build_report("ipc2023", results, results)
    for name in ("ipc2023-levels", "ipc2023-domains"):
        heading = (results / "tables" / f"{name}.md").read_text().splitlines()[0]
        assert heading.startswith("# ") and f"{T} s per problem" in heading, heading
    domains = _rows(results / "tables" / "ipc2023-domains.csv")
    total = {r["planner"]: r for r in domains if r["domain"] == "total"}
    assert float(total["FD LAMA-first"]["solved"]) == 3 and total["FD LAMA-first"]["n_problems"] == "5"
    assert float(total["FD LAMA-first"]["quality"]) == pytest.approx(1 + 0.8 + 1, abs=1e-4)  # ferry p02: late
    published = [r for r in domains if r["kind"] == "published"]
    assert len(published) == 5 * 11  # five anchors per domain of the README, and their totals
    assert {(r["budget_s"], r["kind"]) for r in published} == {("1800", "published")}
    assert all(r["hardware"] and r["source"] for r in published)
    assert {r["budget_s"] for r in domains if r["kind"] == "ours"} == {str(T)}


def test_anchors_equal_the_benchmark_readme(ipc_dir):
    lines = [ln for ln in (ipc_dir / "README.md").read_text().splitlines() if ln.startswith("| ") and not ln.startswith("| domain")]
    readme = {}
    systems = ("LAMA", "FDSS", "GOFAI", "Muninn", "WL-GOOSE")
    for line in lines:
        cells = [c.strip() for c in line.strip("|").split("|")]
        for system, value in zip(systems, cells[1:]):
            readme[("total" if cells[0] == "sum" else cells[0], system)] = float(value)
    anchors = {(a["domain"], a["system"]): a for a in ipc2023_anchors()}
    assert {k: a["value"] for k, a in anchors.items()} == readme
    assert len(readme) == 55
    assert {a["metric"] for (_, s), a in anchors.items() if s == "WL-GOOSE"} == {"coverage"}
    assert {a["budget_s"] for a in anchors.values()} == {1800}
    assert "Xeon E5-2695 v3" in anchors[("ferry", "WL-GOOSE")]["hardware"]


def test_the_figure_is_written_and_reads(results):
    runs = ipc_scores.scored_runs(results)
    fig = ipc_figure.figure(runs)
    width, height = legibility.pixels(fig, 100)
    assert width <= legibility.SCREEN[0] and height <= legibility.MAX_SIZE[1], (width, height)
    assert legibility.overlaps(fig) == [] and legibility.cut_off(fig) == []
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert f"FD LAMA-first ({T} s budget, of 5)" in labels and len(labels) == 3
    plt.close(fig)
    build_report("ipc2023", results, results)
    assert legibility.png_pixels(results / "figures" / "ipc2023-coverage-time.png")[0] > 0


def test_a_plan_cheaper_than_the_shipped_best_known_becomes_the_best_known(results):
    """The IPC's rule: quality is against the best plan known, our runs' included; a shipped bound that
    one of them beats is lowered to that plan's cost (and listed), so no quality exceeds 1."""
    path = results / "plans" / "ipc2023" / "ferry" / "easy.csv"
    path.write_text(path.read_text().replace("p01,gbfs_ff_eager,satisficing,5,", "p01,gbfs_ff_eager,satisficing,4,"))
    runs = {(r.domain, r.variant): r for r in ipc_scores.scored_runs(results) if r.model == ""}
    assert runs[("ferry", "gbfs_ff_eager")].scores["p01"][1] == 1.0
    assert runs[("ferry", "lama_first")].scores["p01"][1] == pytest.approx(4 / 5)
    assert ipc_scores.improved_bounds(results) == [
        {"domain": "ferry", "level": "easy", "problem": "p01", "shipped": 5, "found": 4}]
    with pytest.raises(ipc_scores.CheaperThanBestKnown, match="cost 4"):  # a bound given directly is still checked
        ipc_scores.quality(4, 5, str(path), "p01", "upper_bounds.csv")


def test_a_solved_problem_without_a_declared_budget_is_refused(results):
    (results / "plans" / "ipc2023" / "ferry" / "easy" / "limits.json").unlink()
    with pytest.raises(GenplanError, match="without a declared time limit"):
        build_report("ipc2023", results, results)


def test_no_results_of_the_benchmark_says_so(tmp_path):
    (tmp_path / "evaluation").mkdir()
    build_report("ipc2023", tmp_path, tmp_path)
    assert "no results of benchmark ipc2023" in (tmp_path / "tables" / "ipc2023-levels.md").read_text()
    assert len(_rows(tmp_path / "tables" / "ipc2023-domains.csv")) == 55  # the anchors alone
    res = run_cli("report", "ipc2023", "--results", str(tmp_path / "missing"))
    assert res.returncode == 1 and "no such results folder" in res.stderr


def test_the_leaderboard_gains_the_benchmark(results):
    build_report("leaderboard", results, results)
    board = [r for r in _rows(results / "tables" / "leaderboard.csv") if r["benchmark"] == "ipc2023"]
    cells = {(r["domain"], r["split"], r["variant"]): r for r in board}
    assert set(cells) == {(d, "easy", v) for d in ("blocksworld", "ferry") for v in ("lama_first", "gbfs_ff_eager")} \
        | {("blocksworld", "easy", "ridge")}
    assert cells[("blocksworld", "easy", "lama_first")]["n_solved"] == "2"
    # quality against the shipped best known costs: p02's 8 (the reference plan's 8 too), p01's 10
    assert float(cells[("blocksworld", "easy", "lama_first")]["quality"]) == pytest.approx((1 + 0.8) / 2, abs=1e-4)
    assert f"Benchmark ipc2023: every run at {T} s per problem" in (results / "tables" / "leaderboard.md").read_text()


def test_a_planner_that_cannot_read_the_domain_says_so_in_the_table(results):
    rows = []
    for problem in ("p01", "p02"):
        row = dict.fromkeys(EVAL_COLUMNS, "")
        row.update(benchmark="ipc2023", domain="ferry", split="easy", system="symt", variant="e", model="symt_e",
                   seed=13, strategy="gbfs", problem=problem, solved="no", reason="refused",
                   counters=json.dumps({"message": "the domain has more object types than the model's vocabulary"}))
        rows.append(row)
    _write(results / "evaluation" / "ipc2023" / "ferry" / "symt_e" / "seed13" / "easy.gbfs.csv", rows, EVAL_COLUMNS)
    build_report("ipc2023", results, results)
    row = next(r for r in _rows(results / "tables" / "ipc2023-levels.csv") if r["model"] == "symt_e")
    assert (row["solved"], row["refused"], row["budget_s"]) == ("0", "all", "")  # refused, no budget: no error
    assert "| ferry | easy | symt_e · gbfs | learned | none declared | 0/2 (refused all) |" in \
        (results / "tables" / "ipc2023-levels.md").read_text()


def test_the_papers_reports_never_run_on_an_ipc_only_configuration():
    """A SymT^E (or any family's) model on ipc2023 alone builds the IPC report and the leaderboard,
    never a paper's table of published cells it has no instance of."""
    from genplan.report import registry as reports

    families = {"symt", "heuristic", "transition", "plangpt", "diffusion"}
    assert reports.runs("ipc2023", ["ipc2023"], families) and reports.runs("leaderboard", ["ipc2023"], families)
    for paper in ("symt", "plangpt", "diffusion", "state-centric"):
        assert not reports.runs(paper, ["ipc2023"], families)
        assert reports.runs(paper, ["paper"], families)


def test_learned_against_lama_first_counts_the_levels_both_ran():
    """ipc2023-learned-vs-lama: a learned model compared with LAMA-first on the levels both ran only,
    its solved count the mean over seeds; a level LAMA-first did not run is left out."""
    from genplan.report import ipc_scores
    from genplan.report.papers.ipc2023 import versus_rows

    def run(system, variant, model, strategy, seed, level, solved, n=3, domain="ferry"):
        r = ipc_scores.Run(domain, level, system, variant, model, strategy, seed, 60.0, None, "x")
        r.scores = {f"p{i}": (i < solved, 1.0, 1.0, 1.0) for i in range(n)}
        return r

    runs = [run("fast_downward", "lama_first", "", "", "", "easy", 3), run("fast_downward", "lama_first", "", "", "", "medium", 1),
            run("learned_heuristic", "ridge", "h", "gbfs", "1", "easy", 3), run("learned_heuristic", "ridge", "h", "gbfs", "2", "easy", 2),
            run("learned_heuristic", "ridge", "h", "gbfs", "1", "medium", 2), run("learned_heuristic", "ridge", "h", "gbfs", "2", "medium", 2),
            run("learned_heuristic", "ridge", "h", "gbfs", "1", "hard", 3)]  # no LAMA-first on hard: left out
    (row,) = versus_rows(runs)
    assert row["levels"] == "easy+medium" and row["n_problems"] == 6
    assert row["solved"] == 4.5 and row["lama_first_solved"] == 4 and row["at_least_lama_first"] is True
    runs[1] = run("fast_downward", "lama_first", "", "", "", "medium", 3)
    assert versus_rows(runs)[0]["at_least_lama_first"] is False


def test_the_published_wl_goose_is_short_of_lama_where_its_coverage_is_below_lamas_quality():
    """LAMA's IPC quality score bounds its coverage from below (a solved problem scores at most 1): a
    WL-GOOSE coverage under it is fewer problems solved; one at or above it proves nothing; the total row
    is not a domain. On the shipped anchors: six domains, so at most 4 of 10 for the published WL-GOOSE."""
    from genplan.report.papers.ipc2023 import _published_note, published_short_of_lama
    from genplan.report.published import ipc2023_anchors

    def cell(domain, system, metric, value):
        return {"domain": domain, "system": system, "metric": metric, "value": value, "budget_s": 1800.0,
                "memory": "8 GB"}

    anchors = [cell("a", "LAMA", "ipc_quality", 50.0), cell("a", "WL-GOOSE", "coverage", 49),
               cell("b", "LAMA", "ipc_quality", 50.0), cell("b", "WL-GOOSE", "coverage", 50),
               cell("c", "WL-GOOSE", "coverage", 1),  # no LAMA cell: not judged
               cell("total", "LAMA", "ipc_quality", 100.0), cell("total", "WL-GOOSE", "coverage", 99)]
    assert published_short_of_lama(anchors) == ["a"]
    assert "in 1 of 3 domains (a)" in _published_note(anchors) and "at most 2 of 3" in _published_note(anchors)
    shipped = ipc2023_anchors()
    assert published_short_of_lama(shipped) == ["childsnack", "floortile", "rovers", "satellite", "sokoban", "transport"]
    assert "at most 4 of 10" in _published_note(shipped)


def test_the_versus_heading_counts_easy_and_medium_apart_where_a_domain_ran_hard(tmp_path):
    """A domain with the hard level: the heading counts the domains over the levels both ran and again
    over easy and medium alone (here the learned planner falls behind on hard only)."""
    from genplan.paths import Layout
    from genplan.report import ipc_scores
    from genplan.report.papers.ipc2023 import versus_rows, write_versus

    def run(system, variant, model, strategy, level, solved, domain):
        r = ipc_scores.Run(domain, level, system, variant, model, strategy, "1" if model else "", 60.0, None, "x")
        r.scores = {f"p{i}": (i < solved, 1.0, 1.0, 1.0) for i in range(3)}
        return r

    runs = []
    for domain, hard in (("ferry", (3, 0)), ("spanner", None)):  # hard: LAMA-first 3, ours 0
        for level in ("easy", "medium") + (("hard",) if hard else ()):
            lama, ours = hard if level == "hard" else (2, 3)
            runs += [run("fast_downward", "lama_first", "", "", level, lama, domain),
                     run("learned_heuristic", "ridge", "h", "gbfs", level, ours, domain)]
    rows = versus_rows(runs)
    assert [(r["domain"], r["levels"], r["at_least_lama_first"]) for r in rows] == [
        ("ferry", "easy+medium+hard", False), ("spanner", "easy+medium", True)]
    write_versus(rows, runs, Layout(str(tmp_path)))
    text = (tmp_path / "tables" / "ipc2023-learned-vs-lama.md").read_text()
    planner = rows[0]["planner"]
    assert f"{planner}: at least LAMA-first's coverage in 1 of 2 domains (solved 12 against LAMA-first's 11)" in text
    assert f"on the easy and medium levels alone: {planner}: at least LAMA-first's coverage in 2 of 2 domains" in text


def test_a_hybrid_planner_is_labelled_and_counted_apart_from_the_pure_learned_ones(tmp_path):
    """A strategy named hybrid (a learned heuristic beside a classical one) is `hybrid` in column search
    of every table, its versus rows after the pure learned planners', its count a sentence of its own."""
    from genplan.paths import Layout
    from genplan.report import ipc_scores
    from genplan.report.papers.ipc2023 import level_rows, versus_rows, write_versus

    def run(system, variant, model, strategy, solved):
        r = ipc_scores.Run("ferry", "easy", system, variant, model, strategy, "1" if model else "", 60.0, None, "x")
        r.scores = {f"p{i}": (i < solved, 1.0, 1.0, 1.0) for i in range(3)}
        return r

    runs = [run("fast_downward", "lama_first", "", "", 2), run("learned_heuristic", "rank", "h", "compiled-hybrid-ff-gbfs", 3),
            run("learned_heuristic", "rank", "h", "compiled-gbfs", 1)]
    assert [r.search for r in runs] == ["classical", "hybrid", "learned"]
    rows = versus_rows(runs)
    assert [(r["strategy"], r["search"]) for r in rows] == [("compiled-gbfs", "learned"), ("compiled-hybrid-ff-gbfs", "hybrid")]
    assert {r["planner"]: r["search"] for r in level_rows(runs)} == {
        "FD LAMA-first": "classical", "h · compiled-hybrid-ff-gbfs": "hybrid", "h · compiled-gbfs": "learned"}
    write_versus(rows, runs, Layout(str(tmp_path)))
    text = (tmp_path / "tables" / "ipc2023-learned-vs-lama.md").read_text()
    assert ("h · compiled-gbfs: at least LAMA-first's coverage in 0 of 1 domains (solved 1 against LAMA-first's 2); "
            "h · compiled-hybrid-ff-gbfs (hybrid: learned and classical heuristics): at least LAMA-first's coverage "
            "in 1 of 1 domains (solved 3 against LAMA-first's 2)") in text


def test_every_markdown_table_has_as_many_header_cells_as_row_cells(results):
    # a table whose header lacks a column puts every later cell under the wrong heading
    written = build_report("ipc2023", results, results)
    checked = 0
    for path in (p for p in written if p.suffix == ".md"):
        block: list[str] = []
        for line in path.read_text().splitlines() + [""]:
            if line.startswith("|"):
                block.append(line)
                continue
            if block:
                widths = {len(row.strip().strip("|").split("|")) for row in block}
                assert len(widths) == 1, (path.name, block[:3])
                checked += 1
                block = []
    assert checked >= 5
