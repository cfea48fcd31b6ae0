"""Write a generated benchmark: seeded problems per split and size, none of them twice.

Layout of the output directory (written atomically):

    domain.pddl                 copy of the shipped domain file
    <split>/<problem>.pddl      for split in train, validation, interpolation, extrapolation
    manifest.csv                problem,split,file,size,num_objects,seed,canonical
"""

from __future__ import annotations

import hashlib
import logging
import random
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

from genplan import manifest
from genplan.atomic import output_dir
from genplan.manifest import SPLITS
from genplan.domains import domain_file
from genplan.stages.generators import Problem, generate_size, generator_params, parse_sizes
from genplan.pddl_io import parse_domain, problem_to_pddl

log = logging.getLogger(__name__)

# Test splits first, so that a problem shared with train is never lost to a test split.
GENERATION_ORDER = tuple(reversed(SPLITS))
ATTEMPTS_PER_PROBLEM = 50  # draws per wanted problem before a size is given up as exhausted


def problem_seed(seed: int, domain: str, split: str, size: int, index: int) -> int:
    """The seed of draw `index` for (domain, split, size): a stable hash, unlike hash()."""
    digest = hashlib.sha256(f"{seed}/{domain}/{split}/{size}/{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def canonical_digest(problem: Problem) -> str:
    """A short hex digest of the problem's canonical form."""
    return hashlib.sha1(repr(problem.canonical).encode()).hexdigest()[:12]


def _split_sizes(config: dict[str, Any]) -> dict[str, tuple[list[int], int]]:
    """split -> (sizes, problems per size), for the splits that have sizes."""
    sizes = config.get("sizes", {})
    per_size = config.get("per_size", {})
    unknown = sorted((set(sizes) | set(per_size)) - set(SPLITS))
    if unknown:
        raise ValueError(f"unknown splits {unknown}; splits are {list(SPLITS)}")
    plan = {}
    for split, spec in sizes.items():
        count = per_size.get(split)
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise ValueError(f"per_size of split {split!r} must be an integer >= 0, not {count!r}")
        plan[split] = (parse_sizes(spec), count)
    return plan


def _draw(domain: str, split: str, size: int, wanted: int, seed: int, params: dict, seen: set):
    """Up to `wanted` new problems (with their seeds) of one size; `seen` is updated."""
    found: list[tuple[Problem, int]] = []
    for index in range(ATTEMPTS_PER_PROBLEM * wanted):
        if len(found) == wanted:
            break
        draw_seed = problem_seed(seed, domain, split, size, index)
        problem = generate_size(domain, size, random.Random(draw_seed), params)
        if problem is None:
            log.info("%s: no problem of size %d exists; skipping it", domain, size)
            return []
        if problem.canonical not in seen:
            seen.add(problem.canonical)
            found.append((problem, draw_seed))
    if len(found) < wanted:
        log.info("%s %s size %d: only %d of %d problems", domain, split, size, len(found), wanted)
    return found


def _row_order(row: dict) -> tuple:
    return SPLITS.index(row["split"]), row["size"], row["problem"]


def generate_benchmark(domain: str, config: dict[str, Any], seed: int, out_dir: Path) -> list[dict]:
    """Generate `domain`'s benchmark from its configuration section into `out_dir`.

    config: {"sizes": {split: sizes spec}, "per_size": {split: count}, generator parameters...}.
    Returns the manifest rows, sorted by split, size and problem name.
    """
    params = generator_params(domain, config)
    plan = _split_sizes(config)
    shipped = domain_file(domain)
    domain_name = parse_domain(shipped).name
    seen: set = set()
    stems: Counter[str] = Counter()
    chosen = []  # (row, problem)
    for split in GENERATION_ORDER:
        sizes, wanted = plan.get(split, ([], 0))
        for size in sizes:
            for problem, draw_seed in _draw(domain, split, size, wanted, seed, params, seen):
                name = f"{problem.stem}-i{stems[problem.stem]}" if problem.indexed else problem.stem
                stems[problem.stem] += 1
                row = {
                    "problem": name,
                    "split": split,
                    "file": f"{split}/{name}.pddl",
                    "size": size,
                    "num_objects": len(problem.objects),
                    "seed": draw_seed,
                    "canonical": canonical_digest(problem),
                }
                chosen.append((row, problem))
    chosen.sort(key=lambda item: _row_order(item[0]))
    with output_dir(out_dir) as tmp:
        shutil.copyfile(shipped, tmp / "domain.pddl")
        for split in SPLITS:
            (tmp / split).mkdir()
        for row, problem in chosen:
            text = problem_to_pddl(
                row["problem"], domain_name, problem.objects, problem.init, problem.goal
            )
            (tmp / row["file"]).write_text(text)
        (tmp / "manifest.csv").write_text(manifest.to_csv([row for row, _ in chosen]))
    return [row for row, _ in chosen]
