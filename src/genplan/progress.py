"""Progress on long loops: a tqdm bar on a terminal, plain log lines in a job's log file."""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Iterable, Iterator

from tqdm import tqdm

log = logging.getLogger("genplan")


def progress(items: Iterable, total: int | None = None, desc: str = "") -> Iterator:
    if sys.stderr.isatty():
        yield from tqdm(items, total=total, desc=desc, dynamic_ncols=True)
        return
    start = time.perf_counter()
    step = max(1, (total or 0) // 10)
    n = 0
    for item in items:
        yield item
        n += 1
        if total and (n % step == 0 or n == total):
            log.info("%s: %d/%d (%.1f s)", desc, n, total, time.perf_counter() - start)
