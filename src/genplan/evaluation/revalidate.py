"""`genplan validate --evaluation`: run VAL again on every plan an evaluation stored
(genplan.formats.stored_plans) and compare each verdict with the CSV's row.

A row agrees when VAL's verdict now is the CSV's `val` column word for word (`valid`, or VAL's
reason), and the row's `solved` is what that verdict and the row's `reason` make it (solved = the
planner reached the goal and VAL accepts), with the solved row's `plan_length` the stored plan's
length. A refused row (no plan, empty `val`) agrees when no plan is stored. A row without a stored
entry, or whose problem file is absent or differs from the evaluated one (its SHA-256), cannot be
re-checked: it is `missing`, and like a disagreement makes the command fail.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from genplan import val
from genplan.errors import GenplanError
from genplan.formats import plans_table as plans_format
from genplan.formats import row_set, stored_plans
from genplan.formats.evaluation_csv import read_evaluation
from genplan.paths import ALL_SPLITS, parse_evaluation_path


@dataclass
class Recheck:
    evaluation: Path
    rechecked: int = 0
    agree: int = 0
    disagree: list[str] = field(default_factory=list)  # "<problem>: what differs"
    missing: list[str] = field(default_factory=list)  # "<problem>: why it could not be re-checked"
    n_missing: int = 0  # problems that could not be re-checked (one line covers a whole file's)

    @property
    def ok(self) -> bool:
        return not self.disagree and not self.missing

    def summary(self) -> str:
        return (f"{self.evaluation}: {self.rechecked} rechecked, {self.agree} agree, "
                f"{len(self.disagree)} disagree, {self.n_missing} missing")


def evaluation_files(paths: list[str | Path]) -> list[Path]:
    """The evaluation CSVs among `paths`: a file as given; a folder, every CSV under it laid out as
    an evaluation (<split>.<strategy>.csv in a seed<seed> folder); GenplanError for a folder that
    holds none or a path that does not exist."""
    out = []
    for p in map(Path, paths):
        if p.is_file():
            out.append(p)
        elif p.is_dir():
            found = sorted(f for f in p.rglob("seed*/*.csv") if _is_evaluation(f))
            if not found:
                raise GenplanError("no evaluation CSV (<model>/seed<seed>/<split>.<strategy>.csv) under this folder", p)
            out.extend(found)
        else:
            raise GenplanError("evaluation CSV or folder not found", p)
    return out


def _is_evaluation(path: Path) -> bool:
    try:
        return parse_evaluation_path(path)["split"] in ALL_SPLITS
    except ValueError:
        return False


def recheck(evaluation_csv: str | Path, problems: str | Path | None = None,
            plans: str | Path | None = None) -> Recheck:
    """Re-check one evaluation's stored plans (`plans`: default beside the CSV) against the problem
    files (`problems`: default the stored folder under the evaluation's results root)."""
    evaluation_csv = Path(evaluation_csv)
    if not evaluation_csv.is_file():
        raise GenplanError("evaluation CSV not found", evaluation_csv)
    if _is_plans_table(evaluation_csv):
        return recheck_plans_table(evaluation_csv, problems)
    rows = read_evaluation(evaluation_csv)
    plans_file = Path(plans) if plans is not None else stored_plans.plans_path(evaluation_csv)
    result = Recheck(evaluation_csv)
    if not plans_file.is_file():
        why = f"all {len(rows)} problems: no stored plans file {plans_file} (an evaluation older than the stored plans: rerun it)"
        result.missing, result.n_missing = [why], len(rows)
        return result
    doc = stored_plans.read(plans_file)
    folder = stored_plans.benchmark_dir(doc, evaluation_csv, problems)
    domain = folder / doc["domain"]["file"]
    if not domain.is_file() or stored_plans.sha256(domain) != doc["domain"]["sha256"]:
        why = "absent" if not domain.is_file() else "not the evaluated one (SHA-256 differs)"
        result.missing, result.n_missing = [f"all {len(rows)} problems: domain file {domain} {why}"], len(rows)
        return result
    with tempfile.TemporaryDirectory(prefix="genplan-validate-") as tmp:
        for r in rows:
            _recheck_row(r, doc["problems"].get(r["problem"]), folder, domain, Path(tmp) / "plan", result)
            _recheck_quality(r, result)
    _recheck_best_known(evaluation_csv, rows, result)
    for name in sorted(set(doc["problems"]) - {r["problem"] for r in rows}):  # a row deleted from the CSV
        result.disagree.append(f"{name}: a plan is stored for it but the CSV has no row (a row deleted?)")
    _recheck_row_set(rows, folder, evaluation_csv, result)
    result.n_missing = len(result.missing)
    return result


def _is_plans_table(path: Path) -> bool:
    with open(path, encoding="utf-8", errors="replace") as f:
        header = f.readline().strip().split(",")
    return {"problem", "config", "valid", "plan_file"} <= set(header)


def recheck_plans_table(table_path: Path, problems: str | Path | None = None) -> Recheck:
    """Re-check every planner configuration's stored plans of a plans table (genplan.stages.plans
    .store_plans: `<config>.plans.json.gz` in the split's plans folder) against its rows: VAL's verdict
    now is the row's `valid`, a valid plan's length its `plan_length`, a run without a plan has none."""
    from genplan.stages import plans as planning

    table = plans_format.read_table(table_path)
    result = Recheck(table_path)
    folder_of_plans = table_path.with_suffix("")
    configs = [c for c in dict.fromkeys(r["config"] for r in table) if c != "reference"]
    with tempfile.TemporaryDirectory(prefix="genplan-validate-") as tmp:
        for config in configs:
            rows = [r for r in table if r["config"] == config]
            path = folder_of_plans / planning.stored_plans_name(config)
            if not path.is_file():
                result.missing.append(f"{config}: all {len(rows)} problems: no stored plans {path} (a plans table "
                                      "made before the plans were stored: plan the split again)")
                continue
            doc = stored_plans.read(path)
            root = table_path.absolute().parents[3] if problems is None else None
            folder = Path(problems) if problems is not None else root / doc["benchmark_dir"]
            domain = folder / doc["domain"]["file"]
            if not domain.is_file() or stored_plans.sha256(domain) != doc["domain"]["sha256"]:
                result.missing.append(f"{config}: domain file {domain} absent or not the planned one")
                continue
            for r in rows:
                _recheck_plans_row(config, r, doc["problems"].get(r["problem"]), folder, domain,
                                   Path(tmp) / "plan", result)
    result.n_missing = len(result.missing)
    return result


def _recheck_plans_row(config: str, row: dict, entry: dict | None, folder: Path, domain: Path, plan_file: Path,
                       result: Recheck) -> None:
    name = f"{row['problem']} ({config})"
    if entry is None:
        result.missing.append(f"{name}: no stored entry")
        return
    if entry["plan"] is None:
        result.rechecked += 1
        if row["plan_length"] in ("", None):
            result.agree += 1
        else:
            result.disagree.append(f"{name}: no plan stored, the table has a plan of {row['plan_length']} actions")
        return
    problem = folder / entry["file"]
    if not problem.is_file() or stored_plans.sha256(problem) != entry["sha256"]:
        result.missing.append(f"{name}: problem file {problem} absent or not the planned one")
        return
    plan_file.write_text("".join(f"{a}\n" for a in entry["plan"]))
    verdict = val.validate(domain, problem, plan_file)
    result.rechecked += 1
    differs = []
    if ("yes" if verdict.valid else "no") != row["valid"]:
        differs.append(f"VAL now says {'valid' if verdict.valid else verdict.message!r}, the table valid={row['valid']}")
    if row["plan_length"] not in ("", None) and row["plan_length"] != str(len(entry["plan"])):
        differs.append(f"stored plan has {len(entry['plan'])} actions, the table's plan_length is {row['plan_length']}")
    if differs:
        result.disagree.append(f"{name}: " + "; ".join(differs))
    else:
        result.agree += 1


def _recheck_row_set(rows: list[dict], folder: Path, evaluation_csv: Path, result: Recheck) -> None:
    """The rows against the split's problems (the benchmark folder's manifest, else the results
    layout's: genplan.formats.row_set): a problem of the split without a row, or a row of a problem the split
    does not have, is a disagreement."""
    split = rows[0]["split"]
    problems = row_set.manifest_problems(folder, split)
    if problems is None:
        problems = row_set.split_problems(evaluation_csv, rows[0])
    if problems is None:
        result.missing.append(f"all {len(rows)} problems: no manifest in {folder} to check the rows against "
                              f"split {split!r}")
        return
    for name in row_set.missing_rows(rows, problems):
        result.disagree.append(f"{name}: a problem of split {split!r} without a row (a row deleted?)")
    for name in sorted({r["problem"] for r in rows} - problems):
        result.disagree.append(f"{name}: a row of a problem that split {split!r} does not have")


def _recheck_row(row: dict, entry: dict | None, folder: Path, domain: Path, plan_file: Path, result: Recheck) -> None:
    name = row["problem"]
    if entry is None:
        result.missing.append(f"{name}: no stored plan")
        return
    if entry["plan"] is None:
        result.rechecked += 1
        # refused, or ended by the resource protocol's limits before it returned a plan
        without_plan = row["solved"] == "no" and row["val"] == "" and row["plan_length"] == ""
        if without_plan:
            result.agree += 1
        else:
            result.disagree.append(f"{name}: no plan stored but the CSV says solved={row['solved']} "
                                   f"reason={row['reason']} val={row['val']!r}")
        return
    problem = folder / entry["file"]
    if not problem.is_file():
        result.missing.append(f"{name}: problem file {problem} absent")
        return
    if stored_plans.sha256(problem) != entry["sha256"]:
        result.missing.append(f"{name}: problem file {problem} is not the evaluated one (SHA-256 differs)")
        return
    plan = entry["plan"]
    if not isinstance(plan, list) or not all(isinstance(a, str) and a.strip() and "\n" not in a and "\r" not in a
                                             for a in plan):
        result.rechecked += 1
        result.disagree.append(f"{name}: the stored plan is not a list of one-line action strings")
        return
    plan_file.write_text("".join(f"{a}\n" for a in plan))
    try:
        verdict = val.validate(domain, problem, plan_file)
        now = "valid" if verdict.valid else verdict.message
    except GenplanError as exc:  # the stored plan's own defect is this row's verdict (its file is temporary)
        if exc.path != plan_file:
            raise
        verdict = val.ValResult(False, None, "")
        now = (f"not checked: {exc.message}" if isinstance(exc, val.ValTimeout)
               else f"the stored plan cannot be read as a plan: {exc.message}")
    solved = verdict.valid and row["reason"] == "goal"
    result.rechecked += 1
    differs = []
    if now != row["val"]:
        differs.append(f"VAL now says {now!r}, the CSV {row['val']!r}")
    if ("yes" if solved else "no") != row["solved"]:
        differs.append(f"solved would be {'yes' if solved else 'no'}, the CSV says {row['solved']}")
    if solved and row["plan_length"] != str(len(plan)):
        differs.append(f"stored plan has {len(plan)} actions, the CSV's plan_length is {row['plan_length']}")
    if differs:
        result.disagree.append(f"{name}: " + "; ".join(differs))
    else:
        result.agree += 1


def _recheck_quality(row: dict, result: Recheck) -> None:
    """A solved row's quality is its best_known / plan_length (4 decimals; above 1 where the model
    found a shorter plan than the plans table's); an unsolved row has none."""
    name, best, length, quality = row["problem"], row["best_known"], row["plan_length"], row["quality"]
    if row["solved"] != "yes" or best == "":
        if quality != "":
            result.disagree.append(f"{name}: quality {quality} without a solved plan and a best-known length")
        return
    try:
        want = "1.0000" if int(length) == 0 and int(best) == 0 else f"{int(best) / int(length):.4f}"
    except (ValueError, ZeroDivisionError):
        result.disagree.append(f"{name}: best_known {best!r} and plan_length {length!r} are not plan lengths")
        return
    if quality != want:
        result.disagree.append(f"{name}: quality {quality!r}, but best_known {best} / plan_length {length} is {want}")


def _recheck_best_known(evaluation_csv: Path, rows: list[dict], result: Recheck) -> None:
    """Each row's best_known against the split's plans table under the same results root (the shortest
    VAL-valid plan there), where that table exists (a CSV moved elsewhere is not checked so)."""
    from genplan.formats.plans_table import best_known_lengths, read_table
    from genplan.paths import Layout

    root = stored_plans.results_root(evaluation_csv.absolute())
    if root is None or not rows:
        return
    table = Path(Layout(str(root)).plans_table(rows[0]["benchmark"], rows[0]["domain"], rows[0]["split"]))
    if not table.is_file():
        return
    best = best_known_lengths(read_table(table))
    for r in rows:
        want = str(best.get(r["problem"], ""))
        if r["best_known"] != want:
            result.disagree.append(f"{r['problem']}: best_known {r['best_known']!r}, the plans table {table} says "
                                   f"{want!r}")
