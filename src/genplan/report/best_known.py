"""Best-known plan lengths as the IPC's quality score defines them: the shortest VAL-valid plan
any run of the pipeline found for a problem, learned planners included (IPC 2008 onwards scores a
plan against the best plan of any participant). Sources: every configuration of the split's plans
table (A* + LM-cut, GBFS + FF, LAMA-first, the reference plans shipped with imported instances),
anytime LAMA's table beside it (`lama_anytime`, run to its time limit on the problems without a
proven optimum: genplan.stages.anytime; genplan.report.collect.plans_tables appends its rows) and
every solved row of every evaluation CSV (a solved row's plan is VAL-valid: genplan.evaluation).
With this reference, quality = best known / plan length never exceeds 1.

Ties go to the earlier source: a plans table's configuration before anytime LAMA (so
`lama_anytime` is a problem's source only where it is strictly shorter than every plan of the
plans table), and the planners before the learned plans (a problem's best known is `learned` only
when a learned plan is strictly shorter than every planner's)."""

from __future__ import annotations

from dataclasses import dataclass

PLANNER, LEARNED = "planner", "learned"


@dataclass(frozen=True)
class Best:
    length: int
    kind: str  # PLANNER or LEARNED
    source: str  # the planner configuration (`astar_lmcut`, `reference`, ...) or `<system> <variant>`


def best_known(plans: dict[tuple, list[dict]], evaluations: list[dict]) -> dict[tuple, Best]:
    """(benchmark, domain, split, problem) -> its Best. `plans`: (benchmark, domain, split) -> the
    plans table rows, anytime LAMA's after them (genplan.report.collect.plans_tables); `evaluations`: evaluation rows of any
    family (genplan.report.collect.evaluation_rows)."""
    best: dict[tuple, Best] = {}
    for (bench, dom, split), table in plans.items():
        for r in table:
            if r["valid"] == "yes" and r["plan_length"] not in ("", None):
                _offer(best, (bench, dom, split, r["problem"]), Best(int(r["plan_length"]), PLANNER, r["config"]))
    for r in sorted(evaluations, key=lambda r: (r["system"], r["variant"])):  # ties: the same source every run
        if r["solved"] == "yes" and r["plan_length"] not in ("", None):
            key = (r["benchmark"], r["domain"], r["split"], r["problem"])
            _offer(best, key, Best(int(r["plan_length"]), LEARNED, f"{r['system']} {r['variant']}"))
    return best


def _offer(best: dict, key: tuple, candidate: Best) -> None:
    old = best.get(key)
    if old is None or candidate.length < old.length:
        best[key] = candidate


def quality(best: dict[tuple, Best], key: tuple, plan_length) -> float | None:
    """best known / plan length of one VAL-valid plan (None for an empty plan or no best known)."""
    n = int(plan_length)
    b = best.get(key)
    return None if b is None or n <= 0 else b.length / n
