"""Stage 7 for every family: plan every problem of one split with one model, seed and strategy;
VAL checks every plan; one CSV row per problem, the same columns for every family.

A problem counts as solved only when the planner reached a goal AND VAL accepts the plan.
Quality is best-known length / plan length, the best-known length being the shortest VAL-valid
plan of any planner run in the split's plans table (A*, GBFS, LAMA, reference plans).

Columns (`COLUMNS`): benchmark, domain, split, system and variant (as `published_results.csv`
names them, e.g. `wl_lstm` and `state`), model (the config's name), seed, strategy, problem,
size, num_objects, horizon, solved, reason, val (VAL's verdict), plan_length, best_known,
quality, time, steps, model_calls, and `counters`: a JSON object of the family's own counters
(states_expanded, tokens_generated, embedded, ...; a refused problem's message).

Beside the CSV, `<split>.<strategy>.plans.json.gz` stores every plan the planner returned, VAL-valid
or not, with the SHA-256 of the domain and problem files (genplan.formats.stored_plans); `genplan validate
--evaluation` checks them again (genplan.evaluation.revalidate). Both files are written atomically, the plans
first: a CSV never stands without its plans.

`jobs` > 1 (`genplan evaluate --jobs N`, the rule's `threads`): N problems planned at once in worker
processes (genplan.evaluation.parallel), the same rows in the manifest's order and the same plans. One
problem's row is genplan.evaluation.problem's, which both use.

Each problem's record is saved as it finishes to `<out>.partial/` (genplan.resume): a job killed
(or failed) after k problems, rerun with the same checkpoint, settings and inputs, plans only the
others; the sidecar is removed once both outputs are written.
"""

from __future__ import annotations

import contextlib
import logging
import os
import tempfile
import time
from pathlib import Path

from genplan import atomic, resume
from genplan.errors import GenplanError
from genplan.evaluation.problem import evaluate_problem, process_age
from genplan.formats import manifest, stored_plans, tables
from genplan.formats import plans_table as plans_format
from genplan.formats.evaluation_csv import COLUMNS
from genplan.progress import progress
from genplan.stages import plans as planning

log = logging.getLogger("genplan")


def evaluate_split(checkpoint: str | Path, benchmark_dir: str | Path, split: str, plans_table: str | Path,
                   strategy: str | None, settings: dict, out: str | Path, benchmark: str | None = None,
                   seed: str | None = None, model=None, out_plans: str | Path | None = None,
                   jobs: int = 1, planner=None, count_loading: bool = False, budget=None) -> list[dict]:
    """Evaluate one (model, seed, split, strategy) job and write its CSV and its stored plans
    (`out_plans`, default beside the CSV: genplan.formats.stored_plans.plans_path) atomically. `settings`
    are the model entry's planning settings (transition: `decode`); `model` a model held in memory;
    `planner` one the caller built for `model` and `strategy` (a model of no registered family:
    `genplan plansformer`), else the model's family builds it;
    `strategy` None: the model's family's default (`resolve_strategy`). The plans table is checked
    against the split before the model loads. Each returned record has the CSV's columns and
    `plan`, the planner's plan as action strings (None where refused). `jobs` > 1: that many problems
    planned at once, each worker process loading `checkpoint` (genplan.evaluation.parallel; not with `model`);
    the same records in the manifest's order. The problems a killed run of the same job finished
    (its sidecar `<out>.partial/`, genplan.resume; not with `model`) are not planned again.
    `count_loading` (the `genplan evaluate` command, a process of its own): each row's counters get
    `load_time`, what a planner started for that one problem would pay before reading it: the process's
    age when this function starts (interpreter, imports, the command line) plus the seconds of loading
    the model and making its planner (a worker's own age at that point, with `jobs` > 1); the job's
    checks of the whole split (plans table, every problem parsed, the resume keys) are not counted, each
    problem's own parsing is in its `time`. A budget can then count loading as Fast Downward's wall time
    does (genplan.report.ipc_scores); in a longer-lived process the age would not be loading.
    `budget` (a genplan.limits.Limits): the resource protocol instead: every problem planned by a
    fresh process of its own under those limits, `jobs` at once (genplan.evaluation.isolated), each row's counters
    with the CPU and wall seconds and peak memory of its whole run, loading included."""
    started, importing = process_age() if count_loading else None, time.perf_counter()
    from genplan.domains import domain_key
    from genplan.registry import planner as make_planner
    from genplan.solve_setup import load_model, resolve_strategy  # pymimir, torch: not needed by the report

    imported = time.perf_counter() - importing

    if jobs < 1 or (jobs > 1 and model is not None):
        raise ValueError(f"jobs must be at least 1 and 1 for a model held in memory, not {jobs}")
    if budget is not None and model is not None:
        raise ValueError("the resource protocol plans from a checkpoint, not a model held in memory")
    if planner is not None and (model is None or strategy is None):
        raise ValueError("a planner built by the caller needs its model and strategy")
    benchmark_dir = Path(benchmark_dir)
    domain = benchmark_dir / "domain.pddl"
    if not domain.is_file():
        raise GenplanError("domain.pddl missing: not a benchmark folder made by genplan", domain)
    rows = manifest.read(benchmark_dir, split)
    if not rows:
        raise GenplanError(f"no problems of split {split!r} in the manifest", benchmark_dir / "manifest.csv")
    best = plans_format.best_known_lengths(read_plans_table(plans_table, rows, split))
    # an unreadable problem file (emptied, cut short, not UTF-8) was a `refused` row, counted as the
    # model's failure; a well-formed problem of another domain stays the planner's to refuse
    # (tests/test_evaluate_parallel.py's gx)
    malformed = {name: exc for name, exc in planning.parse_problems(rows, domain).items()
                 if not exc.message.startswith("problem is for domain")}
    if malformed:
        raise GenplanError(f"{len(malformed)} problem(s) of split {split!r} malformed or unreadable, nothing "
                           "evaluated (fix or regenerate them): " + "; ".join(map(str, malformed.values())))
    resumable = model is None  # a model held in memory: the checkpoint's hash need not describe it
    loading = time.perf_counter()
    model = model if model is not None else load_model(checkpoint, domain)
    from genplan.planners.strategies import Strategy, parse

    if planner is None:
        strategy = resolve_strategy(model, strategy)  # the Strategy object from here down
        planner = make_planner(model, strategy, settings)
    elif not isinstance(strategy, Strategy):
        strategy = parse(strategy)
    loaded = time.perf_counter() - loading  # the model and its planner
    load_time = started + imported + loaded if started is not None and jobs == 1 else None
    common = {
        # resolved: a relative --benchmark-dir `bench` has the parent '.', an empty benchmark column
        "benchmark": benchmark or benchmark_dir.resolve().parent.name, "domain": domain_key(domain), "split": split,
        "system": model.system, "variant": model.variant, "model": model.name,
        "seed": seed if seed is not None else model.seed, "strategy": strategy.name,
    }
    completes = strategy.kind == "prefix"  # plan completion: the split's plans are the references
    desc = f"{model.name} {split} {strategy.name}"
    tasks = [(row, best.get(row["problem"]), _reference_plan(plans_table, row["problem"]) if completes else None)
             for row in rows]
    sidecar = resume.Sidecar(out) if resumable else None  # finished problems, saved as they come
    # a record made under other limits (or none) is not one of this job's
    keyed = settings if budget is None else {**settings, "protocol": budget.as_dict()}
    keys = _resume_keys(checkpoint, domain, split, strategy.name, keyed, tasks) if resumable else {}
    found = recheck_resumed(sidecar.load(keys), {t[0]["problem"]: t[0] for t in tasks}, domain) if resumable else {}
    todo = [i for i, t in enumerate(tasks) if t[0]["problem"] not in found]

    def finished(i: int, rec: dict) -> None:
        found[tasks[i][0]["problem"]] = rec
        if resumable:
            sidecar.save(tasks[i][0]["problem"], keys[tasks[i][0]["problem"]], rec)

    if budget is not None:  # a process a problem, under the resource protocol (genplan.evaluation.isolated)
        from genplan.evaluation import isolated

        mine = [tasks[i] for i in todo]
        results = isolated.evaluate_rows(checkpoint, domain, strategy.name, settings, mine, budget, jobs)  # a JSON spec
        with contextlib.closing(results):
            for j, rec in progress(results, total=len(mine), desc=f"{desc} (protocol: {budget.describe()})"):
                finished(todo[j], rec)
    elif jobs > 1:  # worker processes, each loading the checkpoint (genplan.evaluation.parallel)
        _in_workers(checkpoint, domain, strategy, settings, tasks, todo, jobs, desc, finished, count_loading)
    else:
        for i in progress(todo, total=len(todo), desc=desc):
            finished(i, evaluate_problem(planner, domain, *tasks[i], load_time=load_time))
    records = [{**common, **found[row["problem"]]} for row in rows]
    write_outputs(out, out_plans if out_plans is not None else stored_plans.plans_path(out), records,
                  benchmark_dir, domain, {r["problem"]: r["path"] for r in rows})
    if resumable:
        sidecar.remove()
    solved = sum(r["solved"] == "yes" for r in records)
    log.info("%s %s (%s): %d/%d solved", model.name, split, strategy.name, solved, len(records))
    return records


def _in_workers(checkpoint, domain: Path, strategy, settings: dict, tasks: list[tuple], todo: list[int],
                jobs: int, desc: str, finished, count_loading: bool = False) -> None:
    """The tasks of `tasks` indexed by `todo` planned `jobs` at once in worker processes;
    `finished(index, record)` as each comes back."""
    from genplan.evaluation.parallel import evaluate_rows

    mine = [tasks[i] for i in todo]
    with contextlib.closing(evaluate_rows(checkpoint, domain, strategy, settings, mine, jobs, count_loading)) as results:
        for j, rec in progress(results, total=len(mine), desc=f"{desc} ({min(jobs, len(mine))} workers)"):
            finished(todo[j], rec)


def recheck_resumed(found: dict, rows: dict, domain: Path) -> dict:
    """The sidecar's records whose stored plan VAL still judges as the record says (its `val`, and a
    solved row's plan_length); any other is logged and its problem planned again (a resumed record must
    not enter the CSV without VAL's verdict on its plan)."""
    from genplan import val
    from genplan.pddl_io import plan_to_text, str_to_atom

    kept = {}
    with tempfile.TemporaryDirectory(prefix=f"genplan-resume-{os.getpid()}-") as tmp:
        for name, rec in found.items():
            if rec.get("plan") is None:  # refused: no plan to check
                kept[name] = rec
                continue
            path = Path(tmp) / "plan"
            path.write_text(plan_to_text([str_to_atom(a) for a in rec["plan"]]))
            verdict = val.validate(domain, rows[name]["path"], path)
            now = "valid" if verdict.valid else verdict.message
            length_ok = rec.get("solved") != "yes" or str(rec.get("plan_length")) == str(len(rec["plan"]))
            if now == rec.get("val") and length_ok:
                kept[name] = rec
            else:
                log.warning("%s: the record resumed from the sidecar says val=%r, plan_length=%r; VAL now says %r "
                            "of its %d-action plan: planned again", name, rec.get("val"), rec.get("plan_length"),
                            now, len(rec["plan"]))
    return kept


def _resume_keys(checkpoint, domain: Path, split: str, strategy: str, settings: dict,
                 tasks: list[tuple]) -> dict[str, str]:
    """Each problem's key in the sidecar (genplan.resume): the checkpoint's, the domain's and the
    problem's SHA-256, the split, the strategy, the settings, and the task's manifest row, best-known
    length and reference plan (all of evaluate_problem's inputs)."""
    job = {"stage": "evaluate", "checkpoint": resume.file_sha256(checkpoint), "domain": resume.file_sha256(domain),
           "split": split, "strategy": strategy, "settings": settings}
    return {row["problem"]: resume.key(**job, problem_sha256=resume.file_sha256(row["path"]), best=best,
                                       reference=reference, row={k: v for k, v in row.items() if k != "path"})
            for row, best, reference in tasks}


def write_outputs(out: str | Path, out_plans: str | Path, records: list[dict], benchmark_dir: Path,
                  domain: Path, problem_files: dict) -> None:
    """The CSV and the stored plans, each through a temporary sibling: both renamed into place only
    once both are written, the plans first."""
    doc = stored_plans.document(out, benchmark_dir, domain,
                                [(r["problem"], problem_files[r["problem"]], r["plan"]) for r in records])
    with atomic.output_file(out) as csv_tmp, atomic.output_file(out_plans) as plans_tmp:  # inner first
        plans_tmp.write_bytes(stored_plans.encode(doc))
        csv_tmp.write_text(tables.csv_text(records, COLUMNS))


def read_plans_table(path: str | Path, rows: list[dict], split: str) -> list[dict]:
    """The split's plans table; GenplanError naming it if it is missing, not a plans table, names
    a problem that is not one of the split's manifest `rows` (another domain's or split's table: its
    best-known lengths would leave the quality column silently blank), or was planned from other
    content under the same names (problems regenerated with another seed: wrong best-known lengths
    and qualities)."""
    if not Path(path).is_file():
        raise GenplanError("plans table not found", path)
    table = plans_format.read_table(path)
    if table and not {"problem", "valid", "plan_length"} <= set(table[0]):
        raise GenplanError("not a plans table (columns problem, valid, plan_length expected)", path)
    plans_format.check_split_problems(table, {r["problem"] for r in rows}, split, path)
    plans_format.check_problem_hashes(table, rows, path)
    return table


def _reference_plan(plans_table: str | Path, problem: str) -> list | None:
    """The split's plan of a problem (`<plans>/<split>/<problem>.plan`, A* + LM-cut's where it
    finished), or None."""
    from genplan.pddl_io import read_plan

    path = Path(plans_table).with_suffix("") / f"{problem}.plan"
    return read_plan(path) if path.is_file() else None


