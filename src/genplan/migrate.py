"""`genplan migrate evaluations`: convert evaluation CSVs of the transition-only layout (genplan
before the model-family registry) to the one evaluation schema of every family.

Old: `<split>.<beam_mode>.csv` with columns benchmark, domain, split, model, encoding, learner,
mode, seed, beam_mode, beam, problem, ..., time, steps, expansions, embedded.
New: `<split>.beam<beam>-<beam_mode>.csv` with `genplan.evaluation.COLUMNS`: system =
encoding_learner, variant = mode, strategy = beam<beam>-<beam_mode>; `expansions` and `embedded`
go into the counters JSON (as `states_expanded` and `embedded`); a refused problem's reason
`refused: <message>` becomes reason `refused` and the message a counter; model_calls, which the
old decoder did not record, stays empty. Every other value is kept as written.
"""

from __future__ import annotations

import csv
import logging
from pathlib import Path

from genplan import tables
from genplan.errors import GenplanError
from genplan.evaluation import COLUMNS, counters_json
from genplan.planners.strategies import from_beam_mode

log = logging.getLogger("genplan")
OLD_COLUMNS = {"encoding", "learner", "mode", "beam_mode", "beam", "expansions", "embedded"}


def migrate_row(r: dict) -> dict:
    new = {k: r[k] for k in COLUMNS if k in r}
    new.update(system=f"{r['encoding']}_{r['learner']}", variant=r["mode"], model_calls="",
               strategy=from_beam_mode(r["beam_mode"], int(r["beam"])))
    if r["reason"].startswith("refused: "):
        new["reason"] = "refused"
        counters = {"message": r["reason"].removeprefix("refused: "), "states_expanded": int(r["expansions"])}
    else:
        counters = {"embedded": int(r["embedded"]), "states_expanded": int(r["expansions"])}
    new["counters"] = counters_json(counters)
    return new


def migrate_file(path: Path) -> Path | None:
    """Write the new file beside the old one, then remove the old one; None if already new."""
    with open(path, newline="") as fh:
        reader = csv.DictReader(fh)
        header, rows = reader.fieldnames or [], list(reader)
    if set(COLUMNS) <= set(header):
        return None
    if not OLD_COLUMNS <= set(header):
        raise GenplanError("neither an old nor a new evaluation CSV (columns differ)", path)
    if not rows:
        raise GenplanError("an old evaluation CSV without rows: its strategy cannot be named; rerun it", path)
    split, beam_mode = path.name.removesuffix(".csv").split(".", 1)
    strategies = {from_beam_mode(r["beam_mode"], int(r["beam"])) for r in rows}
    if len(strategies) != 1 or beam_mode != rows[0]["beam_mode"] or split != rows[0]["split"]:
        raise GenplanError(f"file name and rows disagree (split/beam mode {split}/{beam_mode}, rows {sorted(strategies)})", path)
    target = path.with_name(f"{split}.{strategies.pop()}.csv")
    if target.exists():
        raise GenplanError(f"both the old file and its migrated twin {target.name} exist; remove one", path)
    tables.write_csv(target, [migrate_row(r) for r in rows], COLUMNS)
    path.unlink()
    return target


def migrate_evaluations(root: str | Path) -> list[Path]:
    """Migrate every evaluation CSV under `<root>/evaluation`; returns the files written."""
    written = []
    for path in sorted(Path(root, "evaluation").glob("*/*/*/seed*/*.csv")):
        target = migrate_file(path)
        if target is not None:
            written.append(target)
    log.info("migrated %d evaluation CSVs under %s", len(written), root)
    return written
