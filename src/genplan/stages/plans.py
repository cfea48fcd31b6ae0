"""Stage 2: plan every problem of one (benchmark, domain, split) with Fast Downward, check every
plan with VAL, and write the plans and one table of statuses (`plan_split`). Loose problem files
given by hand: genplan.stages.plan_files, with the same records.

Every problem is parsed with genplan.pddl_io before any planner runs: a malformed (or missing,
or unsupported) problem is not planned; it gets a row with status `error` and the parser's reason,
the other problems are planned and every output is written, and then `MalformedProblems` (a
GenplanError naming every such file) is raised, so that the command exits 1.

An interruption (a signal raised as an exception in the main thread, see
genplan.stages.fast_downward) ends every Fast Downward process group, removes the run
directories and the hidden temporary output folder, and leaves no output behind; only the problems
it finished stay in the sidecar `<out_table>.partial/`, which a rerun of the same job resumes
from (genplan.resume)."""

from __future__ import annotations

import json
import logging
import shutil
import signal
from collections import Counter
from concurrent.futures import as_completed
from pathlib import Path

from genplan import atomic, resume, val
from genplan.errors import GenplanError
from genplan.formats import manifest
from genplan.formats.plans_table import COLUMNS, with_hashes
from genplan.formats.tables import csv_text
from genplan.pddl_io import parse_domain, parse_problem, plan_to_text
from genplan.processes import run_pool
from genplan.progress import progress
from genplan.stages.fast_downward import PlanResult, plan_with_fallback, run_fast_downward

log = logging.getLogger("genplan")

# Which plan a problem's trajectory is made of: the first of these that solved it.
MAIN_CONFIGS = ("astar_lmcut", "gbfs_ff", "gbfs_ff_eager")
CONFIG_ORDER = ("astar_lmcut", "gbfs_ff", "gbfs_ff_eager", "lama_first", "lama_anytime", "reference")
LIMITS_NAME = "limits.json"  # in a split's plans folder: each configuration's time and memory limit
NOT_PLANNED = "not planned: "  # the reason's prefix in a malformed problem's rows

# `plan_files`: what each --planner runs, in order; `default` is the pipeline's pair.
PLANNERS = {"astar_lmcut": ("astar_lmcut",), "gbfs_ff": ("gbfs_ff",), "gbfs_ff_eager": ("gbfs_ff_eager",),
            "lama_first": ("lama_first",),
            "lama_anytime": ("lama_anytime",), "default": ("astar_lmcut", "gbfs_ff")}


class MalformedProblems(GenplanError):
    """Raised after the outputs are written: some problems could not be parsed and were not
    planned. `errors` maps each problem name to its parser error; `table` holds every row."""

    def __init__(self, errors: dict[str, GenplanError], table: list[dict], where: str):
        self.errors = errors
        self.table = table
        files = "; ".join(str(e) for e in errors.values())
        super().__init__(f"{len(errors)} problem(s) malformed or unreadable, not planned (their rows in {where} "
                         f"say why): {files}")


# planner section key -> the configuration it runs; `gbfs_ff_eager` runs only where the section has it
SECTIONS = {"optimal": "astar_lmcut", "fallback": "gbfs_ff", "gbfs_ff_eager": "gbfs_ff_eager", "lama": "lama_first"}


def planner_config(cfg: dict) -> dict:
    """The planner section with the schema's defaults filled in (the commands check --params
    against the schema, which does not fill defaults); `gbfs_ff_eager` only where given."""
    from genplan.config_schema import section

    props = section("planner")
    out = dict(cfg)
    for key in SECTIONS:
        if key == "gbfs_ff_eager" and key not in cfg:
            continue
        defaults = {k: v["default"] for k, v in props[key].get("properties", {}).items() if "default" in v}
        out[key] = {"enabled": True, **defaults, **(cfg.get(key) or {})}
    return out


def enabled_configs(cfg: dict) -> list[str]:
    """The configurations a problem of the split may get, in the table's order."""
    names = [(name, key) for key, name in SECTIONS.items() if key in cfg]
    return [name for name, key in names if cfg[key].get("enabled", True)]


# how Fast Downward's limit is enforced, and how the reports count it (genplan.report.ipc_scores)
TIME_LIMIT_RULE = ("enforced by Fast Downward's --overall-time-limit in CPU seconds of the driver's whole run "
                   "(its start, translation, search; genplan.stages.fast_downward.driver_time_limit), killed at "
                   "time_limit + 60 s of wall-clock; the reports count a plan found within time_limit wall-clock "
                   "seconds of the run, loading included, as they count a learned planner's")


def limits(cfg: dict) -> dict:
    """Each enabled configuration's time and memory limit and how the time limit is enforced and
    counted (`limits.json` in the plans folder: what the reports' budgets are read from)."""
    return {name: {"time_limit": cfg[key]["time_limit"], "memory_limit_mb": cfg["memory_limit_mb"],
                   "time_limit_rule": TIME_LIMIT_RULE}
            for key, name in SECTIONS.items() if name in enabled_configs(cfg)}


def _plan_problem(row: dict, domain: Path, cfg: dict) -> list[PlanResult]:
    """A* + LM-cut with the GBFS + FF fallback, LAMA-first, and eager GBFS + FF on every problem
    (each where enabled)."""
    mem = cfg["memory_limit_mb"]
    results = plan_with_fallback(domain, row["path"], cfg["optimal"], cfg["fallback"], mem)
    if cfg["lama"].get("enabled", True):
        results.append(run_fast_downward(domain, row["path"], "lama_first", cfg["lama"]["time_limit"], mem))
    eager = cfg.get("gbfs_ff_eager") or {"enabled": False}
    if eager.get("enabled", True):
        results.append(run_fast_downward(domain, row["path"], "gbfs_ff_eager", eager["time_limit"], mem))
    return results


def parse_problems(rows: list[dict], domain: Path) -> dict[str, GenplanError]:
    """Each problem that genplan.pddl_io cannot parse (missing, malformed, unsupported, of another
    domain), with the error naming its file. A malformed domain raises: nothing can be planned."""
    dom = parse_domain(domain)
    errors = {}
    for row in rows:
        try:
            parse_problem(row["path"], dom)
        except GenplanError as exc:
            errors[row["problem"]] = exc
    return errors


def not_planned_rows(row: dict, configs, error: GenplanError) -> list[dict]:
    return [{"problem": row["problem"], "config": c, "status": "error", "plan_length": "", "time": "",
             "valid": "", "reason": NOT_PLANNED + error.message, "plan_file": ""} for c in configs]


def summary(table: list[dict], n_problems: int) -> str:
    """`3/4 problems have a VAL-valid plan (astar_lmcut 2, gbfs_ff 1, lama_first 3)`: a problem
    counts if any configuration (or a reference plan) has a VAL-valid plan for it."""
    valid = {r["problem"] for r in table if r["valid"] == "yes"}
    per = Counter(r["config"] for r in table if r["valid"] == "yes")
    configs = [c for c in CONFIG_ORDER if any(r["config"] == c for r in table)]
    detail = ", ".join(f"{c} {per[c]}" for c in configs)
    return f"{len(valid)}/{n_problems} problems have a VAL-valid plan" + (f" ({detail})" if detail else "")


def plan_split(benchmark_dir: str | Path, split: str, cfg: dict, out_dir: str | Path, out_table: str | Path, threads: int = 1) -> list[dict]:
    """Plan one split, `threads` problems at once (worker threads, one Fast Downward process group
    each); `cfg` is the configuration's `planner` section (`optimal.enabled: false` skips A* +
    LM-cut: GBFS + FF then runs first; `gbfs_ff_eager` runs eager GBFS + FF on every problem).
    Writes the plans folder (with `limits.json`: each configuration's limits) and then the table; returns the
    table. A malformed problem: its rows say why, every output is written, then
    MalformedProblems (`genplan plan` exits 1; in the workflow the job fails and Snakemake deletes
    both outputs: fix the PDDL and rerun). Interrupted (or any exception): the running planners are ended and neither
    output is left (a plans folder published just before is removed, with the table beside it); the problems
    it finished are kept in `<out_table>.partial/`, and a rerun of the same job plans only the others (genplan.resume)."""
    reference_only = split in cfg.get("reference_splits", ())
    cfg = planner_config(cfg)
    configs = [] if reference_only else enabled_configs(cfg)
    if not configs and not reference_only:
        raise GenplanError("no planner configuration is enabled "
                           "(optimal, fallback, gbfs_ff_eager and lama are all off)")
    benchmark_dir = Path(benchmark_dir)
    domain = benchmark_dir / "domain.pddl"
    rows = manifest.read(benchmark_dir, split)
    malformed = parse_problems(rows, domain)
    todo = [] if reference_only else [r for r in rows if r["problem"] not in malformed]
    sidecar, keys = resume.Sidecar(out_table), _resume_keys(domain, split, cfg, todo)
    done = sidecar.load(keys)  # the problems a killed run of this job finished
    table: list[dict] = []
    publishing = False
    try:
        with atomic.output_dir(out_dir, owner="plan") as tmp_dir:
            for row in [r for r in todo if r["problem"] in done]:
                for name, text in done[row["problem"]]["files"].items():
                    (Path(tmp_dir) / name).write_text(text)
                if _resumed_plans_hold(row, done[row["problem"]], domain, Path(tmp_dir)):
                    table.extend(done[row["problem"]]["rows"])
                else:  # planned again below
                    for name in done.pop(row["problem"])["files"]:
                        (Path(tmp_dir) / name).unlink(missing_ok=True)
            todo = [r for r in todo if r["problem"] not in done]
            with run_pool(threads) as pool:  # each problem recorded (and saved) as soon as it finishes
                jobs = {pool.submit(_plan_problem, r, domain, cfg): r for r in todo}
                for job in progress(as_completed(jobs), total=len(todo), desc=f"planning {split}"):
                    name, results = jobs[job]["problem"], job.result()
                    records = record_runs(jobs[job], results, domain, Path(tmp_dir))
                    if not any(_signalled(r) for r in results):  # a run a signal ended is run again
                        sidecar.save(name, keys[name], _saved(name, records, Path(tmp_dir)))
                    table.extend(records)
            for row in rows:  # reference plans shipped with imported instances
                ref = benchmark_dir / "reference-plans" / split / f"{row['problem']}.plan"
                if row["problem"] in malformed:
                    table.extend(not_planned_rows(row, configs + (["reference"] if ref.is_file() else []),
                                              malformed[row["problem"]]))
                elif ref.is_file():
                    rec = _record_plan_file(row, "reference", ref, domain, Path(tmp_dir))
                    if reference_only and rec["valid"] == "yes":  # the shipped plan is the main plan
                        shutil.copyfile(Path(tmp_dir) / rec["plan_file"], Path(tmp_dir) / f"{row['problem']}.plan")
                    table.append(rec)
                elif reference_only:
                    raise GenplanError(f"split {split!r} is planned by its reference plans alone "
                                       f"(planner.reference_splits), but problem {row['problem']!r} has none",
                                       ref)
            used = {} if reference_only else limits(cfg)
            atomic.write_text(Path(tmp_dir) / LIMITS_NAME, json.dumps(used, indent=1, sort_keys=True) + "\n")
            store_plans(table, rows, configs, benchmark_dir, domain, Path(out_table), Path(tmp_dir))
            publishing = True
        # the table is renamed into place last: it never stands beside a missing plans folder
        order = {c: i for i, c in enumerate(CONFIG_ORDER)}
        index = {r["problem"]: i for i, r in enumerate(rows)}
        table.sort(key=lambda r: (index[r["problem"]], order[r["config"]]))
        table = with_hashes(table, rows)
        atomic.write_text(out_table, csv_text(table, COLUMNS))
        sidecar.remove()
    except BaseException:
        if publishing:  # cut short between the two renames: no folder without its table
            shutil.rmtree(out_dir, ignore_errors=True)
            Path(out_table).unlink(missing_ok=True)
        raise
    log.info("%s: %s", split, summary(table, len(rows)))
    if malformed:
        raise MalformedProblems(malformed, table, str(out_table))
    return table


def stored_plans_name(config: str) -> str:
    """Each configuration's plans in the plans folder, for `genplan validate --evaluation <plans table>`."""
    from genplan.formats.stored_plans import SUFFIX

    return f"{config}{SUFFIX}"


def store_plans(table: list[dict], rows: list[dict], configs: list[str], benchmark_dir: Path, domain: Path,
                out_table: Path, folder: Path) -> None:
    """Every planner configuration's plans (genplan.formats.stored_plans: the plan as action strings, or None where
    the run found none, with the domain's and each problem's SHA-256) into the plans folder, so that the
    plans can be checked again from the committed files alone: the plan files themselves are not kept."""
    from genplan.formats import stored_plans

    paths = {r["problem"]: r["path"] for r in rows}
    for config in configs:
        mine = {r["problem"]: r for r in table if r["config"] == config}
        entries = []
        for name in paths:
            rec = mine.get(name)
            plan_file = folder / rec["plan_file"] if rec and rec.get("plan_file") else None
            plan = None
            if plan_file is not None and plan_file.is_file():
                plan = [line.strip() for line in plan_file.read_text().splitlines()
                        if line.strip() and not line.strip().startswith(";")]
            entries.append((name, Path(paths[name]), plan))
        doc = stored_plans.document(out_table, benchmark_dir, domain, entries)
        try:  # the table at <root>/plans/<benchmark>/<domain>/<split>.csv: the problems relative to <root>
            doc["benchmark_dir"] = Path(benchmark_dir).absolute().relative_to(
                out_table.absolute().parents[3]).as_posix()
        except (ValueError, IndexError):
            pass
        (folder / stored_plans_name(config)).write_bytes(stored_plans.encode(doc))


def _resume_keys(domain: Path, split: str, cfg: dict, rows: list[dict]) -> dict[str, str]:
    """Each problem's key in the sidecar (genplan.resume): the domain's and the problem's SHA-256,
    the split and the planner settings a problem's runs use (limits included)."""
    used = {k: cfg[k] for k in ("memory_limit_mb", *SECTIONS) if k in cfg}
    dom = resume.file_sha256(domain)
    return {r["problem"]: resume.key(stage="plan", split=split, domain=dom, problem=r["problem"],
                                     problem_sha256=resume.file_sha256(r["path"]), planner=used) for r in rows}


def _resumed_plans_hold(row: dict, saved: dict, domain: Path, out: Path) -> bool:
    """Whether VAL, run again, judges every plan file of a problem resumed from the sidecar as its rows
    say (a resumed record must not enter the table without VAL's verdict); logged when not."""
    for rec in saved["rows"]:
        if not rec.get("plan_file"):
            continue
        path = out / rec["plan_file"]
        verdict = val.validate(domain, row["path"], path) if path.is_file() else None
        now = "yes" if verdict is not None and verdict.valid else "no"
        if now != rec.get("valid"):
            log.warning("%s: the sidecar's %s row says valid=%r, VAL now %r (%s): planned again", row["problem"],
                        rec.get("config"), rec.get("valid"), now, "no plan file" if verdict is None else verdict.message)
            return False
    return True


def _signalled(res: PlanResult) -> bool:
    """A run ended by a signal other than its own CPU limit's (SIGXCPU): a job's SIGTERM may reach
    Fast Downward before it reaches this process; its result is not kept for a rerun. The driver
    ended by a signal exits -n; a search process ended by one, the driver passes on as 256 - n
    (Fast Downward's driver/main.py: 247 for SIGKILL, 241 for SIGTERM; 232 is SIGXCPU)."""
    code = res.returncode
    if code is None:
        return False
    sig = -code if code < 0 else 256 - code if code > 128 else None
    return sig is not None and sig != signal.SIGXCPU


def _saved(problem: str, records: list[dict], out: Path) -> dict:
    """A finished problem as the sidecar keeps it: its rows and the plan files `record_runs` wrote."""
    names = {r["plan_file"] for r in records if r["plan_file"]} | {f"{problem}.plan"}
    return {"rows": records, "files": {n: (out / n).read_text() for n in sorted(names) if (out / n).is_file()}}


def record_runs(row: dict, results: list[PlanResult], domain: Path, out: Path, main_configs=MAIN_CONFIGS,
            per_config_files: bool = True) -> list[dict]:
    """Table rows of one problem's runs, every plan checked by VAL. Plans are written to `out`:
    `<problem>.<config>.plan` for each (per_config_files), and `<problem>.plan` for the first
    VAL-valid plan of `main_configs`; without per_config_files a rejected plan is kept as
    `<problem>.<config>.rejected.plan`."""
    records = []
    main_written = False
    for res in results:
        rec = {
            "problem": row["problem"], "config": res.config, "status": res.status,
            "plan_length": "", "time": f"{res.time:.3f}", "valid": "", "reason": res.reason, "plan_file": "",
            "cpu_time": "" if res.cpu_time is None else f"{res.cpu_time:.3f}",
            "peak_memory_mb": "" if res.peak_memory_mb is None else f"{res.peak_memory_mb:.1f}",
            "expansions": "" if res.expansions is None else res.expansions,
        }
        if res.plan is not None:
            text = plan_to_text(res.plan)
            name = f"{row['problem']}.{res.config}.plan"
            (out / name).write_text(text)
            verdict = val.validate(domain, row["path"], out / name)
            main = verdict.valid and res.config in main_configs and not main_written
            if main:
                (out / f"{row['problem']}.plan").write_text(text)
                main_written = True
            if not per_config_files:  # only the chosen plan, and a rejected one to look at
                if verdict.valid:
                    (out / name).unlink()
                    name = f"{row['problem']}.plan" if main else ""
                else:
                    rejected = f"{row['problem']}.{res.config}.rejected.plan"
                    (out / name).rename(out / rejected)
                    name = rejected
            rec.update(plan_length=len(res.plan), plan_file=name, valid="yes" if verdict.valid else "no")
            if not verdict.valid:
                rec.update(status="error", reason=f"VAL rejected the plan: {verdict.message}")
        records.append(rec)
    return records


def _record_plan_file(row: dict, config: str, plan_path: Path, domain: Path, out: Path) -> dict:
    name = f"{row['problem']}.{config}.plan"
    (out / name).write_bytes(plan_path.read_bytes())
    verdict = val.validate(domain, row["path"], out / name)
    return {
        "problem": row["problem"], "config": config,
        "status": "satisficing" if verdict.valid else "error",
        "plan_length": verdict.plan_length if verdict.plan_length is not None else "",
        "time": "", "valid": "yes" if verdict.valid else "no",
        "reason": "" if verdict.valid else f"VAL rejected the plan: {verdict.message}", "plan_file": name,
    }


