"""Best-known plan lengths as the IPC's quality score defines them: the shortest VAL-valid plan
any run of the pipeline found for a problem, learned planners included (IPC 2008 onwards scores a
plan against the best plan of any participant). Sources: every configuration of the split's plans
table (A* + LM-cut, GBFS + FF, LAMA-first, the reference plans shipped with imported instances),
anytime LAMA's table beside it (`lama_anytime`, run to its time limit on the problems without a
proven optimum: genplan.stages.anytime; genplan.report.collect.plans_tables appends its rows) and
every solved row of every evaluation CSV (a solved row's plan is VAL-valid: genplan.evaluation.split).
With this reference, quality = best known / plan length never exceeds 1.

Ties go to the earlier source: a plans table's configuration before anytime LAMA (so
`lama_anytime` is a problem's source only where it is strictly shorter than every plan of the
plans table), and the planners before the learned plans (a problem's best known is `learned` only
when a learned plan is strictly shorter than every planner's).

Each best known names the plan set it came from (`source`: the planner configuration, or the
learned plan's `<system> <variant>`) and where that plan is stored (`plan`, relative to the results
root: `plans/<benchmark>/<domain>/<split>/<problem>.<config>.plan`, anytime LAMA's under
`<split>.anytime/`; for a learned plan the evaluation's stored plans, `<...>.plans.json.gz#<problem>`,
genplan.formats.stored_plans). `table_rows` lists them one problem a row (`COLUMNS`: `best_known_source`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from genplan.formats.stored_plans import plans_path
from genplan.paths import ANYTIME_SUFFIX

PLANNER, LEARNED = "planner", "learned"
COLUMNS = ["benchmark", "domain", "split", "problem", "best_known", "best_known_kind", "best_known_source",
           "best_known_plan"]


@dataclass(frozen=True)
class Best:
    length: int
    kind: str  # PLANNER or LEARNED
    source: str  # the planner configuration (`astar_lmcut`, `reference`, ...) or `<system> <variant>`
    plan: str = ""  # where that plan is stored (module doc); "" where its row names no file


def best_known(plans: dict[tuple, list[dict]], evaluations: list[dict]) -> dict[tuple, Best]:
    """(benchmark, domain, split, problem) -> its Best. `plans`: (benchmark, domain, split) -> the
    plans table rows, anytime LAMA's after them (genplan.report.collect.plans_tables); `evaluations`: evaluation rows of any
    family (genplan.report.collect.evaluation_rows)."""
    best: dict[tuple, Best] = {}
    for (bench, dom, split), table in plans.items():
        for r in table:
            if r["valid"] == "yes" and r["plan_length"] not in ("", None):
                _offer(best, (bench, dom, split, r["problem"]),
                       Best(int(r["plan_length"]), PLANNER, r["config"], _planner_plan(bench, dom, split, r)))
    for r in sorted(evaluations, key=lambda r: (r["system"], r["variant"])):  # ties: the same source every run
        if r["solved"] == "yes" and r["plan_length"] not in ("", None):
            key = (r["benchmark"], r["domain"], r["split"], r["problem"])
            _offer(best, key, Best(int(r["plan_length"]), LEARNED, f"{r['system']} {r['variant']}", _learned_plan(r)))
    return best


def _planner_plan(bench: str, dom: str, split: str, row: dict) -> str:
    if not row.get("plan_file"):
        return ""
    folder = f"{split}{ANYTIME_SUFFIX}" if row["config"] == "lama_anytime" else split
    return f"plans/{bench}/{dom}/{folder}/{row['plan_file']}"


def _learned_plan(row: dict) -> str:
    """The evaluation's stored plans (relative to its results root where its path says it) and the problem."""
    if not row.get("source"):
        return ""
    path = plans_path(row["source"])
    parts = path.parts
    if len(parts) >= 6 and parts[-6] == "evaluation":  # <root>/evaluation/<benchmark>/<domain>/<model>/seed<seed>/<file>
        path = Path(*parts[-6:])
    return f"{path.as_posix()}#{row['problem']}"


def table_rows(best: dict[tuple, Best]) -> list[dict]:
    """One row per problem with a best known (`COLUMNS`), sorted: its length, its kind (planner or
    learned), the plan set it came from (`best_known_source`) and where that plan is stored."""
    return [{"benchmark": k[0], "domain": k[1], "split": k[2], "problem": k[3], "best_known": b.length,
             "best_known_kind": b.kind, "best_known_source": b.source, "best_known_plan": b.plan}
            for k, b in sorted(best.items())]


def _offer(best: dict, key: tuple, candidate: Best) -> None:
    old = best.get(key)
    if old is None or candidate.length < old.length:
        best[key] = candidate


def quality(best: dict[tuple, Best], key: tuple, plan_length) -> float | None:
    """best known / plan length of one VAL-valid plan (None for an empty plan or no best known)."""
    n = int(plan_length)
    b = best.get(key)
    return None if b is None or n <= 0 else b.length / n
