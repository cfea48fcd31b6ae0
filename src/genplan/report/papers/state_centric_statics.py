"""Static atoms in the WL graphs, decided on evidence: the paper's representation
(static atoms embedded at training and inference: the `reference` and `pooled` decoders) against
the same models with static atoms left out of both (`encoder: {statics: false}`: the
`reference-dropstatics` and `pooled-dropstatics` decoders), per domain, test split, model and beam,
each a mean over the seeds both representations ran.

The rule: the representation without statics becomes the default only if it is at least as good
on every domain's test splits, read as the mean coverage over the WL models of each (domain, test
split) under the beam the default configuration decodes with (config.yaml: `beam3-pooled`);
otherwise the paper's stays. The reference beam's differences are shown beside it, not decided on
(the default never runs that beam). A (domain, split) where either side has no run is `not run`,
and one where some WL model run with statics has no twin without them on every one of its seeds is
`incomplete`; either blocks a change of default. Built from aggregate.coverage's per-seed coverage."""

from __future__ import annotations

from collections import defaultdict

from genplan.report import render
from genplan.report.aggregate import DROP_STATICS, TEST_SPLITS

BEAMS = ("reference", "pooled")
DECIDING_BEAM = "pooled"  # the default configuration's decoder (config.yaml strategies: [beam3-pooled])
COLUMNS = ["benchmark", "domain", "split", "system", "variant", "beam", "seeds", "with_statics", "without_statics",
           "difference", "all_seeds"]
VERDICT_COLUMNS = ["benchmark", "domain", "split", "cells", "with_statics", "without_statics", "difference", "verdict",
                   "reference_beam"]
AT_LEAST, WORSE, NOT_RUN = "without statics at least as good", "without statics worse", "not run"
INCOMPLETE = "incomplete"  # some WL cells with statics have no twin without: no change of default


def rows(cov: dict[tuple, dict]) -> list[dict]:
    """One row per (benchmark, domain, test split, WL system, variant, beam) run both ways; `cov`:
    aggregate.coverage keyed (benchmark, domain, split, system, variant, beam_mode)."""
    out = []
    for (bench, dom, split, system, variant, beam), c in sorted(cov.items()):
        if beam not in BEAMS or split not in TEST_SPLITS or not system.startswith("wl_"):
            continue
        drop = cov.get((bench, dom, split, system, variant, beam + DROP_STATICS))
        if drop is None:
            continue
        seeds = sorted(set(c["per_seed"]) & set(drop["per_seed"]))
        if not seeds:
            continue
        with_s = sum(c["per_seed"][s] for s in seeds) / len(seeds)
        without = sum(drop["per_seed"][s] for s in seeds) / len(seeds)
        out.append({"benchmark": bench, "domain": dom, "split": split, "system": system, "variant": variant,
                    "beam": beam, "seeds": len(seeds), "with_statics": f"{with_s:.4f}",
                    "without_statics": f"{without:.4f}", "difference": f"{without - with_s:+.4f}",
                    "all_seeds": "yes" if set(c["per_seed"]) <= set(drop["per_seed"]) else "no"})
    return out


def verdicts(cells: list[dict], cov: dict[tuple, dict]) -> list[dict]:
    """Per (benchmark, domain, test split) with a WL model: the mean over its cells of `rows` under
    the deciding beam, whether leaving statics out is at least as good there, and the reference
    beam's mean difference beside it (shown, not decided on)."""
    by, ref = defaultdict(list), defaultdict(list)
    for r in cells:
        (by if r["beam"] == DECIDING_BEAM else ref)[(r["benchmark"], r["domain"], r["split"])].append(r)
    expected = defaultdict(lambda: defaultdict(int))  # the WL cells with statics, per beam
    for k in cov:
        if k[3].startswith("wl_") and k[2] in TEST_SPLITS and k[5] in BEAMS:
            expected[k[:3]][k[5]] += 1
    out = []
    for key in sorted(expected, key=lambda k: (k[0], k[1], TEST_SPLITS.index(k[2]))):
        ref_rs, n_ref = ref.get(key, []), expected[key]["reference"]
        ref_text = (f"{sum(float(r['difference']) for r in ref_rs) / len(ref_rs):+.4f} ({len(ref_rs)} of {n_ref} cells)"
                    if ref_rs else NOT_RUN if n_ref else "")
        rs, n = by.get(key, []), expected[key][DECIDING_BEAM]
        if not rs:
            out.append(dict(zip(VERDICT_COLUMNS, (*key, 0, "", "", "", NOT_RUN, ref_text))))
            continue
        with_s = sum(float(r["with_statics"]) for r in rs) / len(rs)
        without = sum(float(r["without_statics"]) for r in rs) / len(rs)
        complete = sum(r["all_seeds"] == "yes" for r in rs)
        verdict = WORSE if without < with_s - 1e-9 else AT_LEAST if complete == n else \
            f"{INCOMPLETE}: {complete} of {n} cells run on every seed"
        out.append(dict(zip(VERDICT_COLUMNS, (*key, len(rs), f"{with_s:.4f}", f"{without:.4f}",
                                              f"{without - with_s:+.4f}", verdict, ref_text))))
    return out


def decision(verdict_rows: list[dict]) -> str:
    """The default, in words: the paper's representation unless leaving statics out is at least as
    good on every (domain, test split)."""
    if verdict_rows and all(v["verdict"] == AT_LEAST for v in verdict_rows):
        return "Without static atoms is at least as good on every domain's test splits: it may become the default."
    against = [f"{v['domain']} {v['split']} ({v['verdict']}{', ' + v['difference'] if v['difference'] else ''})"
               for v in verdict_rows if v["verdict"] != AT_LEAST]
    return ("The default keeps the paper's representation (static atoms embedded at training and inference): "
            "leaving them out is not at least as good on " + ("; ".join(against) or "any split run") + ".")


def statics_md(cells: list[dict], verdict_rows: list[dict]) -> str:
    intro = ("# State-centric: static atoms in the WL graphs, with and without\n\n"
             "`with statics`: the paper's representation (static atoms embedded at training and inference; "
             "decoders `reference`, `pooled`); `without statics`: the same model and settings with static atoms "
             "left out of both (`encoder: {statics: false}`; decoders `reference-dropstatics`, "
             "`pooled-dropstatics`). Coverage is a mean over the seeds both ran (`seeds`; `all seeds`: the "
             "run without statics has every seed the run with them has). A (domain, split) is decided on the mean "
             f"over its WL models under the {DECIDING_BEAM} beam, the default configuration's decoder; the reference "
             "beam's mean difference is shown beside it (`reference beam`), not decided on.\n\n"
             f"**Decision.** {decision(verdict_rows)}\n\n")
    head = ["benchmark", "domain", "split", "cells", "with statics", "without statics", "difference", "verdict",
            "reference beam"]
    body = [[v["benchmark"], v["domain"], v["split"], v["cells"], _num(v["with_statics"]), _num(v["without_statics"]),
             _signed(v["difference"]), v["verdict"], v["reference_beam"] or "–"] for v in verdict_rows]
    cell_head = ["benchmark", "domain", "split", "model", "beam", "seeds", "all seeds", "with statics",
                 "without statics", "difference"]
    cell_body = [[r["benchmark"], r["domain"], r["split"], f"{r['system']} {r['variant']}", r["beam"], r["seeds"],
                  r["all_seeds"], _num(r["with_statics"]), _num(r["without_statics"]), _signed(r["difference"])] for r in cells]
    return (intro + f"## Per domain and test split ({DECIDING_BEAM} beam)\n\n" + render.md(head, body)
            + "\n## Per model and beam\n\n" + render.md(cell_head, cell_body))


def _num(value: str) -> str:
    return render.num(float(value)) if value != "" else "–"


def _signed(value: str) -> str:
    return f"{float(value):+.2f}" if value != "" else "–"
