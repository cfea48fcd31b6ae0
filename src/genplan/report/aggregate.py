"""Aggregates for the reports: coverage per seed, mean and population std over seeds (the papers'
mean ± std over 3 seeds), and the symbolic baselines' coverage from the plans tables."""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from genplan import paths
from genplan.domains import DOMAINS

EVAL_KEY = ("benchmark", "domain", "split", "system", "mode", "beam_mode")
# the decoders in report order (the reference as written first, ours after) and the test splits;
# `-allsplits`: an FSF model whose slots were sized on every split (encoder slots: all_splits, the
# reference's sizing), told apart by its training summary (genplan.report.papers.state_centric)
ALL_SPLITS = "-allsplits"
# `-dropstatics`: a WL model whose graphs leave static atoms out at training and inference alike
# (encoder statics: false), told apart by its training summary (`wl_statics: false`); unlike
# `-nostatics` (statics seen at training only: the reference's defect of that name) a consistent representation
DROP_STATICS = "-dropstatics"
BEAM_MODES = ("reference-nostatics", "reference", "pooled", "pooled-nostatics", "reference" + ALL_SPLITS,
              "pooled" + ALL_SPLITS, "reference" + DROP_STATICS, "pooled" + DROP_STATICS)
TEST_SPLITS = paths.TEST_SPLITS


def mean_std(values: list[float]) -> tuple[float, float]:
    arr = np.asarray(values, dtype=float)
    return float(arr.mean()), float(arr.std(ddof=0))


def group(rows: list[dict], keys: tuple[str, ...]) -> dict[tuple, list[dict]]:
    out: dict[tuple, list[dict]] = defaultdict(list)
    for r in rows:
        out[tuple(r[k] for k in keys)].append(r)
    return dict(out)


def coverage(rows: list[dict]) -> dict[tuple, dict]:
    """EVAL_KEY -> {mean, std, n_seeds, n_problems, per_seed, refused} of the fraction solved per
    seed; `refused`: "all" when the model refused every problem of the cell (an FSF encoder with
    too few slots: a 0 by construction, not a measurement), "k/n" when it refused k of n rows,
    "" when none."""
    out = {}
    for key, rs in group(rows, EVAL_KEY).items():
        n_refused = sum(r["reason"] == "refused" for r in rs)
        per_seed = {seed: sum(r["solved"] == "yes" for r in srs) / len(srs)
                    for (seed,), srs in group(rs, ("seed",)).items()}
        sizes = {len(srs) for srs in group(rs, ("seed",)).values()}
        mean, std = mean_std(list(per_seed.values()))
        std = std if len(per_seed) > 1 else None  # one seed: no spread to report
        out[key] = {"mean": mean, "std": std, "n_seeds": len(per_seed), "n_problems": max(sizes),
                    "per_seed": per_seed, "refused": refused_label(n_refused, len(rs))}
    return out


def refused_label(n_refused: int, n_rows: int) -> str:
    """"all", "k/n" or "" (see `coverage`)."""
    if n_refused == 0:
        return ""
    return "all" if n_refused == n_rows else f"{n_refused}/{n_rows}"


def planner_coverage(table: list[dict], config: str) -> tuple[float, int]:
    """Fraction of the table's problems with a VAL-valid plan of `config`, and the problem count."""
    problems = {r["problem"] for r in table}
    solved = {r["problem"] for r in table if r["config"] == config and r["valid"] == "yes"}
    return (len(solved) / len(problems) if problems else 0.0), len(problems)


def planner_quality(table: list[dict], config: str, best: dict[str, int]) -> dict:
    """Coverage, mean quality (best-known / length) and mean time of one planner configuration."""
    runs = [r for r in table if r["config"] == config]
    solved = [r for r in runs if r["valid"] == "yes"]
    qual = [best[r["problem"]] / int(r["plan_length"]) for r in solved if int(r["plan_length"]) > 0]
    times = [float(r["time"]) for r in runs if r.get("time")]
    n = len({r["problem"] for r in table})
    return {"coverage": len(solved) / n if n else 0.0, "n_problems": n, "n_solved": len(solved),
            "quality": float(np.mean(qual)) if qual else None,
            "time": float(np.mean(times)) if times else None}


def domain_rank(domain: str) -> int:
    """A domain's place in the papers' order (genplan.domains.DOMAINS); any other domain after them."""
    return DOMAINS.index(domain) if domain in DOMAINS else len(DOMAINS)
