"""The heuristic family's training data from plans (`train: {data: plans}`): no state space is
expanded. The states along each training problem's plan (the trajectories stage's VAL-checked
plans: the shipped reference plans or our planners') with their plan length to go as target, and
for the ranking learner their siblings (`genplan.datasets.plan_neighbourhood`), as WL-GOOSE
trains on the IPC 2023 learning track, whose training problems are too large to expand.

Features: the WL colours are collected on the training states only (plan states; with `rank`
their siblings too), each state converted from pymimir exactly as at inference
(`model.MimirStates`). `ridge` and `svr` regress the plan length to go of the plan states (states
with equal features merged into one weighted row, `learners.dedupe`); `rank` orders the pairs of
`PlanNeighbourhood.pairs`. The feature rows are kept sparse (scipy CSR) from wlplan's output on:
the WL colours of object-rich domains number 10^5 (Rovers 153,097), each state holding few."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy import sparse

from genplan.errors import GenplanError
from genplan.models.heuristic import learners
from genplan.progress import progress

log = logging.getLogger("genplan")
TARGET = "plan_length_to_go"
EMBED_CHUNK = 64  # states embedded per wlplan call: `embed` returns dense Python floats (Rovers: 153,097 a state)


@dataclass
class PlanData:
    X: sparse.csr_matrix  # distinct feature rows of the plan states (the regression rows)
    y: np.ndarray  # their weighted mean plan length to go
    weight: np.ndarray
    goal_rows: np.ndarray  # rows of X holding a plan's last state
    X_rank: sparse.csr_matrix | None  # rank: distinct rows of plan states and siblings
    better: np.ndarray | None  # rank: pairs, rows of X_rank
    worse: np.ndarray | None
    counts: dict  # what the summary reports


def _inputs(files: dict) -> tuple[Path, list[Path]]:
    train = [Path(f) for f in files.get("train", [])]
    trajs = [f for f in train if str(f).endswith(".json.gz")]
    folders = [f for f in train if f.is_dir()]
    if len(trajs) != 1 or len(trajs) + len(folders) != len(train):
        raise GenplanError("the heuristic family with `data: plans` trains on one trajectories file (trajectories/"
                           "<benchmark>/<domain>/train.json.gz) and, where it is not laid out so, the benchmark "
                           f"folder of its problems; got {files.get('train')}")
    return trajs[0], folders


def read(domain: str, files: dict, enc_opts: dict):
    """(trajectories document, its path, problem files by name, the fresh encoder, the domain's
    PDDL name); GenplanError for another domain's data or a problem without a file."""
    from genplan.datasets.plan_neighbourhood import problem_files
    from genplan.domains import domain_key
    from genplan.features.wl import WLEncoder
    from genplan.formats.trajectories import domain_file, load

    traj, folders = _inputs(files)
    doc = load(traj)
    if not doc["problems"]:
        raise GenplanError("no training problem has a plan: nothing to learn from", traj)
    with domain_file(doc, traj) as dom_path:
        if domain_key(dom_path) != domain:
            raise GenplanError(f"--domain {domain!r} is not the domain of the training data ({domain_key(dom_path)!r})",
                               traj)
        encoder = WLEncoder(dom_path, **enc_opts)
    return doc, traj, problem_files(doc, traj, folders), encoder


def plan_data(name: str, doc: dict, traj: Path, problems: dict, encoder, learner: str,
              opts: learners.HeuristicTraining, seed: int):
    """(the encoder with the training states' colours, PlanData)."""
    from wlplan.data import DomainDataset, ProblemDataset

    from genplan.datasets.plan_neighbourhood import neighbourhood, plan_actions
    from genplan.formats.trajectories import domain_file
    from genplan.models.heuristic.model import MimirStates
    from genplan.planners.base import Problem

    rank = learner == "rank"
    rng = np.random.default_rng(seed)
    hoods, datasets = [], []
    with domain_file(doc, traj) as dom_path:
        for rec in progress(doc["problems"], total=len(doc["problems"]), desc=f"{name} plans"):
            problem = Problem(dom_path, problems[rec["problem"]])
            hood = neighbourhood(problem.mimir, plan_actions(rec), siblings=rank, max_siblings=opts.max_siblings,
                                 rng=rng)
            convert = MimirStates(encoder, problem)
            hoods.append(hood)
            datasets.append(ProblemDataset(convert.converter.problem, [convert(s) for s in hood.states]))
    encoder, fg = encoder.collected(DomainDataset(encoder.domain, datasets), doc["domain_file"])
    dim = fg.get_n_features()
    Xs = [_embed(fg, encoder.domain, d, dim)
          for d in progress(datasets, total=len(datasets), desc=f"{name} features")]
    # regression rows: the plan states
    plan_X = sparse.vstack([X[:h.plan_length + 1] for X, h in zip(Xs, hoods)], format="csr")
    to_go = np.concatenate([h.to_go for h in hoods])
    w = np.concatenate([learners.state_weights(h.to_go, opts.weighting) for h in hoods])
    X, y, weight, inverse = learners.dedupe(plan_X, to_go, w)
    weight *= plan_X.shape[0] / weight.sum()  # alpha means the same under every weighting
    goal_rows = np.unique(inverse[to_go == 0])
    counts = {"train_problems": len(hoods), "plan_states": int(plan_X.shape[0]),
              "sibling_states": int(sum(h.siblings for h in hoods)),
              "train_states": int(sum(len(h.states) for h in hoods))}
    X_rank = better = worse = None
    if rank:
        offsets = np.cumsum([0] + [len(h.states) for h in hoods])
        pairs = [h.pairs() for h in hoods]
        X_rank, _, _, rows = learners.dedupe(sparse.vstack(Xs, format="csr"), np.zeros(int(offsets[-1])))
        better = np.concatenate([rows[o + b] for o, (b, _) in zip(offsets, pairs)])
        worse = np.concatenate([rows[o + wr] for o, (_, wr) in zip(offsets, pairs)])
        counts["pairs"] = int(len(better))
    log.info("%s: %d plans, %d plan states, %d siblings, %d distinct rows, %d WL features", name, len(hoods),
             counts["plan_states"], counts["sibling_states"], (X if X_rank is None else X_rank).shape[0], dim)
    return encoder, PlanData(X, y, weight, goal_rows, X_rank, better, worse, counts)


def _embed(fg, domain, data, dim: int):
    """The WL features of one problem's states as a CSR matrix, embedded EMBED_CHUNK states at a
    time: wlplan returns every feature of a state as a Python float, so that the whole set dense
    would hold states x features of them (Rovers from 99 plans: 4,722 x 153,097; the job reached
    17 GB resident before)."""
    from wlplan.data import DomainDataset, ProblemDataset

    states = data.states
    parts = [learners.to_csr(np.asarray(fg.embed(DomainDataset(domain, [ProblemDataset(data.problem,
                                                                                         states[i:i + EMBED_CHUNK])])),
                                        dtype=np.float64).reshape(-1, dim))
             for i in range(0, len(states), EMBED_CHUNK)]
    return sparse.vstack(parts, format="csr") if parts else sparse.csr_matrix((0, dim))
