"""The state-space files (`<split>/<problem>.npz`, format 2, and the split's summary table): their
arrays, their reader and the summary's columns. Made by genplan.stages.statespace."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from genplan.errors import GenplanError

FORMAT = "genplan-statespace/2"


OLD_FORMATS = ("genplan-statespace/1",)


SUMMARY_COLUMNS = ("problem", "states", "transitions", "goal_states", "dead_ends", "max_h_star", "h_star_init", "seconds")


KEYS = ("atoms", "actions", "state_ptr", "state_atoms", "h_star", "is_goal", "initial", "src", "dst",
        "action", "objects", "statics", "goal", "meta")


def load(path: str | Path) -> dict[str, np.ndarray]:
    """The arrays of a `genplan-statespace/2` file; GenplanError naming the file otherwise."""
    path = Path(path)
    try:
        with np.load(path, allow_pickle=False) as data:
            space = {k: data[k] for k in data.files}
        meta = json.loads(str(space["meta"]))
    except Exception as exc:
        raise GenplanError(f"not a state-space file: {exc}", path) from None
    fmt = meta.get("format")
    if fmt in OLD_FORMATS:
        raise GenplanError(
            f"state-space format {fmt!r} is out of date (it lacks the objects, static atoms and goal "
            f"that {FORMAT} stores): rerun the statespace rule, e.g. `snakemake --cores 1 "
            f"{path.parent.with_suffix('.csv')} --forcerun statespace_split`; state spaces are not committed", path)
    if fmt != FORMAT:
        raise GenplanError(f"unknown state-space format {fmt!r} (expected {FORMAT!r})", path)
    missing = [k for k in KEYS if k not in space]
    if missing:
        raise GenplanError(f"state-space file lacks {', '.join(missing)}", path)
    return space
