"""The state-centric quality table (not in the paper): plan quality against the best-known length,
time per problem and decoding steps, for Fast Downward's configurations and every transition
model and decoder; and where each split's best-known lengths came from (a planner configuration
or a learned plan: genplan.report.best_known), so that a quality can be read against its reference;
`from_lama_anytime` counts those of anytime LAMA (genplan.stages.anytime), run to its time limit
on the problems without a proven optimum, strictly shorter than every plan of the plans table.
A model's `n_best_own` counts the problems whose best known is that model's own plan (not another
learned planner's), strictly shorter than every planner's."""

from __future__ import annotations

from collections import Counter

from genplan.report import aggregate, render
from genplan.report.best_known import LEARNED, PLANNER, Best, quality

TEST_SPLITS = aggregate.TEST_SPLITS
PLANNER_CONFIGS = ("astar_lmcut", "gbfs_ff", "lama_first")
ANYTIME = "lama_anytime"  # a best-known source only: it runs where A* proved no optimum
QUALITY_COLUMNS = ["benchmark", "domain", "split", "system", "variant", "beam_mode", "n_seeds", "n_problems",
                   "coverage", "refused", "mean_quality", "mean_length_ratio", "n_best_own", "mean_time_s",
                   "mean_steps", "mean_expansions"]


def _fmt(value) -> str:
    return "" if value is None else f"{value:.4f}"


def _mean(xs):
    return sum(xs) / len(xs) if xs else None


def quality_rows(evals: list[dict], plans: dict, best: dict[tuple, Best]) -> list[dict]:
    """One row per Fast Downward configuration and per (model, decoder) cell: coverage (all seeds'
    problems pooled), mean quality and length ratio over solved problems, how many problems have
    the model's own plan as their best known (`n_best_own`: `own_best`; blank for a planner, whose
    plan sets a best known only as a planner's), mean time, steps and expansions."""
    rows = []
    for (bench, dom, split), table in plans.items():
        lengths = {k[3]: b.length for k, b in best.items() if k[:3] == (bench, dom, split)}
        for config in PLANNER_CONFIGS:
            if not any(r["config"] == config for r in table):
                continue
            q = aggregate.planner_quality(table, config, lengths)
            rows.append({"benchmark": bench, "domain": dom, "split": split, "system": "fast_downward",
                         "variant": config, "beam_mode": "", "n_seeds": 1, "n_problems": q["n_problems"],
                         "coverage": f"{q['coverage']:.4f}", "refused": "", "mean_quality": _fmt(q["quality"]),
                         "mean_length_ratio": _fmt(1 / q["quality"] if q["quality"] else None),
                         "n_best_own": "", "mean_time_s": _fmt(q["time"]), "mean_steps": "",
                         "mean_expansions": ""})
    for key, rs in aggregate.group(evals, aggregate.EVAL_KEY).items():
        bench, dom, split, system, mode, beam = key
        solved = [r for r in rs if r["solved"] == "yes"]
        scored = [quality(best, (bench, dom, split, r["problem"]), r["plan_length"]) for r in solved]
        qual = [q for q in scored if q is not None]
        rows.append({"benchmark": bench, "domain": dom, "split": split, "system": system, "variant": mode,
                     "beam_mode": beam, "n_seeds": len({r["seed"] for r in rs}),
                     "n_problems": len({r["problem"] for r in rs}), "coverage": f"{len(solved) / len(rs):.4f}",
                     "refused": aggregate.refused_label(sum(r["reason"] == "refused" for r in rs), len(rs)), "mean_quality": _fmt(_mean(qual)),
                     "mean_length_ratio": _fmt(_mean([1 / q for q in qual if q > 0])),
                     "n_best_own": own_best(best, (bench, dom, split), solved),
                     "mean_time_s": _fmt(_mean([float(r["time"]) for r in rs if r["time"]])),
                     "mean_steps": _fmt(_mean([float(r["steps"]) for r in rs])),
                     "mean_expansions": _fmt(_mean([float(r["expansions"]) for r in rs]))})
    split_order = {s: i for i, s in enumerate(("validation", *TEST_SPLITS))}
    rows.sort(key=lambda r: (r["benchmark"], r["domain"], split_order.get(r["split"], 9), r["system"], r["variant"], r["beam_mode"]))
    return rows


def own_best(best: dict[tuple, Best], split_key: tuple, solved: list[dict]) -> int:
    """How many problems of `split_key` (benchmark, domain, split) have as their best known a plan of
    these `solved` rows (one model and decoder, any seed): a learned best known (strictly shorter
    than every planner's) that one of the rows' plans reaches. A learned planner whose plan ties it
    counts the problem too: each found the best known plan."""
    shortest: dict[str, int] = {}
    for r in solved:
        if r["plan_length"] not in ("", None):
            shortest[r["problem"]] = min(int(r["plan_length"]), shortest.get(r["problem"], int(r["plan_length"])))
    return sum(1 for p, n in shortest.items()
               if (b := best.get((*split_key, p))) is not None and b.kind == LEARNED and b.length == n)


def source_rows(plans: dict, best: dict[tuple, Best]) -> list[dict]:
    """Per split: how many best-known lengths come from each planner configuration (anytime LAMA's
    apart as well) and from learned plans (by system and variant), ties counted for the planner."""
    rows = []
    split_order = {s: i for i, s in enumerate(("validation", *TEST_SPLITS))}
    splits = sorted({k[:3] for k in best} | set(plans), key=lambda k: (k[0], k[1], split_order.get(k[2], 9), k[2]))
    for bench, dom, split in splits:
        bs = [b for k, b in best.items() if k[:3] == (bench, dom, split)]
        problems = {r["problem"] for r in plans.get((bench, dom, split), [])} | {k[3] for k in best if k[:3] == (bench, dom, split)}
        by = {kind: Counter(b.source for b in bs if b.kind == kind) for kind in (PLANNER, LEARNED)}
        rows.append({"benchmark": bench, "domain": dom, "split": split, "n_problems": len(problems),
                     "n_best_known": len(bs), "from_planner": sum(by[PLANNER].values()),
                     "from_lama_anytime": by[PLANNER][ANYTIME],
                     "from_learned": sum(by[LEARNED].values()),
                     **{f"{kind}_sources": "; ".join(f"{s} {n}" for s, n in sorted(by[kind].items())) for kind in (PLANNER, LEARNED)}})
    return rows


def quality_md(rows: list[dict], sources: list[dict]) -> str:
    headers = ["benchmark", "domain", "split", "system", "variant", "beam", "coverage", "quality",
               "length / best", "best known from its own plan", "time per problem (s)", "steps"]
    body = [[r["benchmark"], r["domain"], r["split"], r["system"], r["variant"], r["beam_mode"] or "–",
             "refused" if r["refused"] == "all" else render.num(float(r["coverage"])),
             render.num(_f(r["mean_quality"])), render.num(_f(r["mean_length_ratio"])),
             "–" if r["n_best_own"] == "" else r["n_best_own"],
             render.num(_f(r["mean_time_s"]), 3), render.num(_f(r["mean_steps"]), 1)] for r in rows]
    intro = ("# State-centric decoding: plan quality and time (not in the paper)\n\n"
             "Coverage pools all seeds' problems (`refused`: the model refused every problem, an FSF encoder "
             "with too few slots); quality = best-known length / plan length over solved problems, never above "
             "1: the best known is the shortest VAL-valid plan any run of the pipeline found for the problem "
             "(A*, GBFS, LAMA-first, the reference plans, anytime LAMA run to its time limit on the problems "
             "without a proven optimum, and every learned planner's solved problems, as the IPC's quality "
             "score); `best known from its own plan`: how many problems (any seed) have this model's own plan, "
             "with this decoder, as their best known, strictly shorter than every planner's (a learned planner "
             "whose plan ties it counts the problem too; – for a planner: a planner's plan is a best known "
             "only as a planner's, counted in the last section). Time per problem over all "
             "problems (decoding, or the planner run).\n\n")
    src_head = ["benchmark", "domain", "split", "problems", "with a best known", "from a planner",
                "of which anytime LAMA", "from a learned plan", "planner configurations", "learned systems"]
    src_body = [[s["benchmark"], s["domain"], s["split"], s["n_problems"], s["n_best_known"], s["from_planner"],
                 s["from_lama_anytime"], s["from_learned"], s["planner_sources"] or "–", s["learned_sources"] or "–"] for s in sources]
    return (intro + render.md(headers, body) + "\n## Where the best-known lengths come from\n\n"
            "Per split, the source of each problem's best-known length (ties counted for the planner, between learned "
            "plans for the first system in name order, and for the "
            "plans table's configurations before anytime LAMA: `of which anytime LAMA` counts the problems where "
            "LAMA run to its time limit found a plan strictly shorter than every plans-table plan).\n\n"
            + render.md(src_head, src_body))


def _f(value):
    return None if value in ("", None) else float(value)
