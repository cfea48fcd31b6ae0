"""The results layout and the split names, in one place (which benchmark has which splits:
genplan.benchmarks).

Every stage's output path is built here, for the workflow (`workflow/rules/common.smk`), the
command line and the reports alike. A configuration writes under its own results root
(`results_dir` in the config: `results` for the committed paper-cpu run, `runs/<name>` for the
others), so that no run overwrites another's files:

    <root>/problems/<benchmark>/<domain>/                 manifest.csv, domain.pddl, <split>/*.pddl
                                                          (ipc2023: and upper_bounds.csv)
    <root>/best-known/<benchmark>/<domain>/upper_bounds.csv  a committed copy of the import's
    <root>/plans/<benchmark>/<domain>/<split>.csv          and <split>/ (plan files)
    <root>/plans/<benchmark>/<domain>/<split>.anytime.csv  and <split>.anytime/ (anytime LAMA)
    <root>/trajectories/<benchmark>/<domain>/<split>.json.gz
    <root>/statespaces/<benchmark>/<domain>/<split>.csv    and <split>/*.npz
    <root>/models/<benchmark>/<domain>/<model>/seed<seed>/  model.ckpt, training.csv, summary.json
    <root>/evaluation/<benchmark>/<domain>/<model>/seed<seed>/<split>.<strategy>.csv
        and <split>.<strategy>.plans.json.gz (every plan found: genplan.formats.stored_plans)
    <root>/tables/, <root>/figures/, <root>/jobstats/ (Snakemake's per-job time and memory), <root>/logs/
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

SPLITS = ("train", "validation", "interpolation", "extrapolation")  # the papers' (generated and paper)
TEST_SPLITS = ("interpolation", "extrapolation")
EVAL_SPLITS = ("validation", "interpolation", "extrapolation")  # validation selects; reported apart
# The IPC 2023 learning track: its training problems, and its three test levels
IPC2023_SPLITS = ("train", "easy", "medium", "hard")
IPC2023_TEST_SPLITS = ("easy", "medium", "hard")
# the split names a user's folder benchmark may declare (genplan.benchmarks): train, an optional
# validation split, and test levels
FOLDER_SPLITS = ("train", "validation", "test", "easy", "medium", "hard")
ALL_SPLITS = tuple(dict.fromkeys(SPLITS + IPC2023_SPLITS + FOLDER_SPLITS))  # every benchmark's (genplan.benchmarks)
ANYTIME_SUFFIX = ".anytime"  # <split>.anytime.csv beside <split>.csv: anytime LAMA's table

_EVAL = re.compile(r"(?P<split>[a-z]+)\.(?P<strategy>[A-Za-z0-9.\-]+)\.csv")


@dataclass(frozen=True)
class Layout:
    """Paths under one results root. Arguments may be Snakemake wildcards such as "{domain}"."""

    root: str = "results"

    def _p(self, *parts) -> str:
        return "/".join([self.root.rstrip("/"), *map(str, parts)])

    def problems(self, benchmark, domain) -> str:
        return self._p("problems", benchmark, domain)

    def upper_bounds(self, benchmark, domain) -> str:
        """The best known costs of the test problems (ipc2023: split,problem,best_known_cost): the
        import's, inside the problems folder (the import rule's output), or where no import is there the
        committed copy (`committed_bounds`), so that reports regenerate on a clone without the benchmark."""
        imported = f"{self.problems(benchmark, domain)}/upper_bounds.csv"
        committed = self.committed_bounds(benchmark, domain)
        return committed if not Path(imported).is_file() and Path(committed).is_file() else imported

    def committed_bounds(self, benchmark, domain) -> str:
        """The committed copy of the import's upper_bounds.csv. Never inside the problems folder: a
        folder holding it would look to Snakemake like a finished import, and planning would start on a
        folder without problems."""
        return self._p("best-known", benchmark, domain, "upper_bounds.csv")

    def plans_table(self, benchmark, domain, split) -> str:
        return self._p("plans", benchmark, domain, f"{split}.csv")

    def plans_dir(self, benchmark, domain, split) -> str:
        return self._p("plans", benchmark, domain, split)

    def anytime_table(self, benchmark, domain, split) -> str:
        return self._p("plans", benchmark, domain, f"{split}{ANYTIME_SUFFIX}.csv")

    def anytime_dir(self, benchmark, domain, split) -> str:
        return self._p("plans", benchmark, domain, f"{split}{ANYTIME_SUFFIX}")

    def trajectories(self, benchmark, domain, split) -> str:
        return self._p("trajectories", benchmark, domain, f"{split}.json.gz")

    def statespace_table(self, benchmark, domain, split) -> str:
        return self._p("statespaces", benchmark, domain, f"{split}.csv")

    def statespace_dir(self, benchmark, domain, split) -> str:
        return self._p("statespaces", benchmark, domain, split)

    def model_dir(self, benchmark, domain, model, seed) -> str:
        return self._p("models", benchmark, domain, model, f"seed{seed}")

    def checkpoint(self, benchmark, domain, model, seed) -> str:
        return f"{self.model_dir(benchmark, domain, model, seed)}/model.ckpt"

    def training_log(self, benchmark, domain, model, seed) -> str:
        return f"{self.model_dir(benchmark, domain, model, seed)}/training.csv"

    def training_summary(self, benchmark, domain, model, seed) -> str:
        return f"{self.model_dir(benchmark, domain, model, seed)}/summary.json"

    def evaluation(self, benchmark, domain, model, seed, split, strategy) -> str:
        return self._p("evaluation", benchmark, domain, model, f"seed{seed}", f"{split}.{strategy}.csv")

    def evaluation_plans(self, benchmark, domain, model, seed, split, strategy) -> str:
        """The plans an evaluation found, beside its CSV (genplan.formats.stored_plans)."""
        return self._p("evaluation", benchmark, domain, model, f"seed{seed}", f"{split}.{strategy}.plans.json.gz")

    def table(self, name, ext) -> str:
        return self._p("tables", f"{name}.{ext}")

    def figure(self, name, ext) -> str:
        return self._p("figures", f"{name}.{ext}")

    def log(self, stage, *parts) -> str:
        return self._p("logs", stage, *parts[:-1], f"{parts[-1]}.log")

    def jobstats(self, stage, *parts) -> str:
        """A job's time and memory, as Snakemake's `benchmark:` directive measures them."""
        return self._p("jobstats", stage, *parts[:-1], f"{parts[-1]}.tsv")

    def evaluation_files(self) -> list[Path]:
        """Every evaluation CSV under the root, sorted."""
        return sorted(Path(self.root, "evaluation").glob("*/*/*/seed*/*.csv"))


def problems_of_trajectories(path: str | Path) -> Path | None:
    """The benchmark folder of a trajectories file laid out as `Layout.trajectories`
    (<root>/trajectories/<benchmark>/<domain>/<split>.json.gz -> <root>/problems/<benchmark>/<domain>),
    or None for a file laid out otherwise."""
    parts = Path(path).parts
    if len(parts) < 5 or parts[-4] != "trajectories":
        return None
    return Path(*parts[:-4], "problems", parts[-3], parts[-2])


def parse_evaluation_path(path: str | Path) -> dict:
    """benchmark, domain, model, seed, split, strategy of an evaluation CSV's path; ValueError if
    the path is not laid out as `Layout.evaluation`."""
    p = Path(path)
    m = _EVAL.fullmatch(p.name)
    if m is None or not p.parent.name.startswith("seed") or len(p.parts) < 5:
        raise ValueError(f"not an evaluation CSV path (<benchmark>/<domain>/<model>/seed<seed>/<split>.<strategy>.csv): {path}")
    return {"benchmark": p.parents[3].name, "domain": p.parents[2].name, "model": p.parents[1].name,
            "seed": p.parent.name.removeprefix("seed"), "split": m["split"], "strategy": m["strategy"]}
