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
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from genplan.atomic import output_dir
from genplan.domains import domain_file
from genplan.formats import manifest
from genplan.formats.manifest import SPLITS
from genplan.pddl_io import parse_domain, problem_to_pddl
from genplan.stages.generators import (
    MAX_PROBLEMS_PER_SPLIT,
    GeneratorError,
    Problem,
    count,
    generate_size,
    generator_params,
    max_size,
    parse_sizes,
)

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


def _split_sizes(domain: str, config: dict[str, Any]) -> dict[str, tuple[list[int], int]]:
    """split -> (sizes, problems per size), for the splits that have sizes; every bound checked
    here, before any problem is drawn."""
    sizes = config.get("sizes", {})
    per_size = config.get("per_size", {})
    if not isinstance(sizes, dict) or not isinstance(per_size, dict):
        raise GeneratorError(f"sizes and per_size must map splits to values, not {sizes!r} and {per_size!r}")
    unknown = sorted((set(sizes) | set(per_size)) - set(SPLITS))
    if unknown:
        raise GeneratorError(f"unknown splits {unknown}; splits are {list(SPLITS)}")
    plan = {}
    for split, spec in sizes.items():
        wanted = per_size.get(split)
        if isinstance(wanted, bool) or not isinstance(wanted, int) or wanted < 0:
            raise GeneratorError(f"per_size.{split}: {wanted!r} is not an integer >= 0")
        if wanted > MAX_PROBLEMS_PER_SPLIT:
            raise GeneratorError(f"per_size.{split}: {wanted} is greater than the maximum of {MAX_PROBLEMS_PER_SPLIT} "
                                 "(problems per split)")
        try:
            values = parse_sizes(spec, *max_size(domain))
        except GeneratorError as exc:
            raise GeneratorError(f"sizes.{split} of {domain}: {exc.message}") from None
        if len(values) * wanted > MAX_PROBLEMS_PER_SPLIT:
            raise GeneratorError(f"sizes.{split} x per_size.{split}: {len(values)} sizes x {wanted} = "
                                 f"{len(values) * wanted} problems, more than the maximum of {MAX_PROBLEMS_PER_SPLIT} per split")
        plan[split] = (values, wanted)
    return plan


def _key(problem: Problem) -> bytes:
    """What `seen` keeps of a problem: a digest of its canonical form (some forms are whole problems)."""
    return hashlib.sha256(repr(problem.canonical).encode()).digest()


def _draw(domain: str, split: str, size: int, wanted: int, seed: int, params: dict, seen: set):
    """Yield up to `wanted` new problems (with their seeds) of one size; `seen` (the canonical
    forms of this size taken so far) is updated. Drawing stops early once every problem of the size
    is taken."""
    found = 0
    exist = count(domain, size, params)
    if exist == 0 and wanted:
        log.info("%s: no problem of size %d exists; skipping it", domain, size)
        return
    for index in range(ATTEMPTS_PER_PROBLEM * wanted):
        if found == wanted or (exist is not None and len(seen) >= exist):
            break
        draw_seed = problem_seed(seed, domain, split, size, index)
        problem = generate_size(domain, size, random.Random(draw_seed), params)
        if problem is None:
            log.info("%s: no problem of size %d exists; skipping it", domain, size)
            return
        key = _key(problem)
        if key not in seen:
            seen.add(key)
            found += 1
            yield problem, draw_seed
    if found < wanted:
        log.info("%s %s size %d: only %d of %d problems", domain, split, size, found, wanted)


def _row_order(row: dict) -> tuple:
    return SPLITS.index(row["split"]), row["size"], row["problem"]


def generate_benchmark(domain: str, config: dict[str, Any], seed: int, out_dir: Path) -> list[dict]:
    """Generate `domain`'s benchmark from its configuration section into `out_dir`.

    config: {"sizes": {split: sizes spec}, "per_size": {split: count}, generator parameters...}.
    Returns the manifest rows, sorted by split, size and problem name.
    """
    params = generator_params(domain, config)
    plan = _split_sizes(domain, config)
    shipped = domain_file(domain)
    domain_name = parse_domain(shipped).name
    seen: dict[int, set] = defaultdict(set)  # size -> canonical forms taken
    stems: Counter[str] = Counter()
    rows = []
    with output_dir(out_dir, owner="generate") as tmp:  # every problem is written as it is drawn: memory stays small
        shutil.copyfile(shipped, tmp / "domain.pddl")
        for split in SPLITS:
            (tmp / split).mkdir()
        for split in GENERATION_ORDER:
            sizes, wanted = plan.get(split, ([], 0))
            for size in sizes:
                for problem, draw_seed in _draw(domain, split, size, wanted, seed, params, seen[size]):
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
                    text = problem_to_pddl(name, domain_name, problem.objects, problem.init, problem.goal,
                                           problem.types)
                    (tmp / row["file"]).write_text(text)
                    rows.append(row)
        rows.sort(key=_row_order)
        (tmp / "manifest.csv").write_text(manifest.to_csv(rows))
    return rows
