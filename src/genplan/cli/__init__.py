"""The `genplan` command line: one subcommand per pipeline stage (Snakemake rules only call these)."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from genplan.cli.types import json_object as _json
from genplan.errors import GenplanError

log = logging.getLogger("genplan")


def cmd_generate(a) -> int:
    from genplan.configuration import check_value
    from genplan.stages.problems import generate_benchmark

    check_value(a.params, ("properties", "generate", "additionalProperties"), "--params (a domain's generate section)")
    rows = generate_benchmark(a.domain, a.params, a.seed, Path(a.out))
    log.info("generated %d %s problems into %s", len(rows), a.domain, a.out)
    return 0


def cmd_import(a) -> int:
    from genplan.stages.importer import import_benchmark

    import_benchmark(a.domain, a.source or None, a.out, verify=not a.no_verify)
    return 0


def cmd_plan(a) -> int:
    from genplan.configuration import check_value
    from genplan.stages.plans import plan_split

    check_value(a.params, ("properties", "planner"), "--params (the planner section)",
                required=("optimal", "fallback", "lama", "memory_limit_mb"))
    plan_split(a.benchmark_dir, a.split, a.params, a.out_dir, a.out_table, threads=a.threads)
    return 0


def cmd_trajectories(a) -> int:
    from genplan.stages.trajectories import trajectories_split

    trajectories_split(a.benchmark_dir, a.split, a.plans_dir, a.plans_table, a.out)
    return 0


def cmd_statespace(a) -> int:
    from genplan.stages.statespace import statespaces_split

    statespaces_split(a.benchmark_dir, a.split, a.max_states, a.out_dir, a.out_table)
    return 0


def cmd_stats(a) -> int:
    from genplan import manifest
    from genplan.stages.stats import split_statistics, write_dataset_statistics

    res = Path(a.results)
    rows = []
    for bench in a.benchmark:
        for dom in a.domain:
            for split in a.split or manifest.SPLITS:
                ss = res / "statespaces" / bench / dom / f"{split}.csv"
                rows.append(split_statistics(
                    bench, dom, split, res / "problems" / bench / dom,
                    res / "plans" / bench / dom / f"{split}.csv", ss if split in a.statespace_split else None))
    write_dataset_statistics(rows, Path(a.out_csv), Path(a.out_md))
    return 0


def cmd_validate(a) -> int:
    from genplan import val

    res = val.validate(a.domain, a.problem, a.plan)
    if res.valid:
        print(f"Plan valid: {res.plan_length} steps ({a.plan})")
        return 0
    where = f" at step {res.failed_step}" if res.failed_step else ""
    print(f"Plan invalid{where}: {res.message} ({a.plan})")
    return 1


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="genplan", description=__doc__)
    p.add_argument("-v", "--verbose", action="store_true")
    sub = p.add_subparsers(dest="command", required=True)

    s = sub.add_parser("generate", help="write a generated benchmark for one domain (all splits)")
    s.add_argument("--domain", required=True)
    s.add_argument("--params", type=_json, required=True, help="the domain's generator configuration (JSON)")
    s.add_argument("--seed", type=int, required=True)
    s.add_argument("--out", required=True)
    s.set_defaults(func=cmd_generate)

    s = sub.add_parser("import", help="import the papers' instances for one domain")
    s.add_argument("--domain", required=True)
    s.add_argument("--source", default=None, help="local folder laid out like the release; omit to download it")
    s.add_argument("--no-verify", action="store_true", help="accept local files that differ from the release")
    s.add_argument("--out", required=True)
    s.set_defaults(func=cmd_import)

    s = sub.add_parser("plan", help="plan one split with Fast Downward; every plan checked by VAL")
    s.add_argument("--benchmark-dir", required=True)
    s.add_argument("--split", required=True)
    s.add_argument("--params", type=_json, required=True, help="the planner configuration (JSON)")
    s.add_argument("--threads", type=int, default=1, help="problems planned at once")
    s.add_argument("--out-dir", required=True)
    s.add_argument("--out-table", required=True)
    s.set_defaults(func=cmd_plan)

    s = sub.add_parser("trajectories", help="VAL state sequences of one split's plans, checked with pymimir")
    s.add_argument("--benchmark-dir", required=True)
    s.add_argument("--split", required=True)
    s.add_argument("--plans-dir", required=True)
    s.add_argument("--plans-table", required=True)
    s.add_argument("--out", required=True)
    s.set_defaults(func=cmd_trajectories)

    s = sub.add_parser("statespace", help="expand the state spaces of one split's problems")
    s.add_argument("--benchmark-dir", required=True)
    s.add_argument("--split", required=True)
    s.add_argument("--max-states", type=int, required=True)
    s.add_argument("--out-dir", required=True)
    s.add_argument("--out-table", required=True)
    s.set_defaults(func=cmd_statespace)

    s = sub.add_parser("stats", help="the dataset statistics table")
    s.add_argument("--results", default="results")
    s.add_argument("--benchmark", action="append", required=True)
    s.add_argument("--domain", action="append", required=True)
    s.add_argument("--split", action="append", default=[], help="splits to report (default: all)")
    s.add_argument("--statespace-split", action="append", default=[])
    s.add_argument("--out-csv", required=True)
    s.add_argument("--out-md", required=True)
    s.set_defaults(func=cmd_stats)

    s = sub.add_parser("validate", help="check a plan with VAL; exit 0 only for a valid plan")
    s.add_argument("domain")
    s.add_argument("problem")
    s.add_argument("plan")
    s.set_defaults(func=cmd_validate)

    from genplan.cli.models import add_parsers as add_model_parsers  # train, solve, evaluate, report, migrate

    add_model_parsers(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO,
                        format="%(asctime)s %(levelname)s %(message)s", stream=sys.stderr)
    try:
        return args.func(args)
    except GenplanError as exc:
        print(f"genplan: error: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:  # a file that cannot be read or written
        print(f"genplan: error: {exc.filename or ''}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    except ValueError as exc:  # unknown names from the registries
        print(f"genplan: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
