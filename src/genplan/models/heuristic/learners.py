"""The learners of the heuristic family: h(s) = f(phi(s)) fitted to h* on WL feature rows.

- ``ridge``: linear least squares with an L2 penalty, in closed form,
  w = (X^T W X + alpha I)^-1 X^T W y, with an unpenalised intercept (the features are centred
  first). W weighs each distinct feature row by the number of states it stands for: states with
  equal WL features are merged into one row whose target is the mean of their h* (the least-squares
  solution is unchanged; WL-GOOSE prunes equivalent states the same way, "equivalent-weighted").
  WL-GOOSE ("Return to Tradition", Chen, Trevizan, Thiebaux, ICAPS 2024) fits linear models of h*
  (support vector regression with a dot-product kernel, Gaussian process regression); ridge is the
  closed-form member of that family.
- ``rank``: a linear ranking model in the spirit of WL-GOOSE's later ranking SVM: for every state s
  with h*(s) > 0 and every transition s -> s', the optimal successors s'_opt (h* one less) should
  score below s itself and below every non-optimal successor, by a margin of 1; the squared hinge
  loss over these pairs plus alpha |w|^2 is minimised with L-BFGS (scipy). Only the order of the
  values matters to a greedy search; the scale is not h*'s.
- ``svr``: linear support-vector regression on the same weighted rows and target as ridge, with
  the squared epsilon-insensitive loss of LinearSVR (scikit-learn's ``squared_epsilon_insensitive``:
  max(0, |y - (w.x + b)| - epsilon)^2 per row): residuals within epsilon cost nothing, so the fit
  spends its weights on the states it gets wrong by more than epsilon instead of on the last half
  step of every state. It minimises sum_i weight_i max(0, |w.x_i + b - y_i| - epsilon)^2 + alpha |w|^2,
  the bias unpenalised (LinearSVR penalises it through intercept_scaling; we do not), with L-BFGS
  (scipy) started from the ridge solution; epsilon 0 is ridge exactly. WL-GOOSE ("Return to
  Tradition", ICAPS 2024) fits SVR with a dot-product (linear) kernel, whose primal is this
  model; they use the epsilon-insensitive loss, its square keeps the objective differentiable for
  L-BFGS. Default epsilon 0.5: the targets are integer steps to go, and a residual under half a
  step leaves the rounded estimate right.
- ``xgb``: gradient-boosted trees (XGBoost, squared error) on the same weighted rows, the
  nonlinear learner to compare with.

Gaussian-process regression (GPR with a dot-product kernel, WL-GOOSE's other linear learner) is
not a learner of its own, because its posterior mean is ridge. The kernel
k(x, x') = sigma0^2 + x.x' is the covariance of f(x) = w.x + b under the prior w ~ N(0, I),
b ~ N(0, sigma0^2); with Gaussian noise sigma_n^2 (sigma_n^2 / weight_i for a row standing for
weight_i states) the posterior mean k_*^T (K + sigma_n^2 W^-1)^-1 y is f with the posterior mode of
(w, b), i.e. the minimiser of
    sum_i weight_i (w.x_i + b - y_i)^2 + sigma_n^2 |w|^2 + (sigma_n^2 / sigma0^2) b^2,
which is ``ridge`` with alpha = sigma_n^2 and the bias penalised by sigma_n^2 / sigma0^2; our ridge
(unpenalised bias) is the limit sigma0 -> infinity. The remaining differences are (1) that
shrinkage of the bias, negligible once sigma0^2 >> sigma_n^2 and immaterial to the order of a
problem's states apart from what the weights absorb of it; (2) scikit-learn's GPR fits sigma0 and
sigma_n by maximising the marginal likelihood, i.e. it picks ridge's alpha by the evidence instead
of taking it as a setting -- a choice of alpha, which a ridge entry with another alpha reproduces;
(3) the posterior variance, which no search here uses. None of these is a model of its own.

Every function is deterministic for a given seed."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

import numpy as np
from scipy import sparse

log = logging.getLogger("genplan")
LEARNERS = ("ridge", "rank", "svr", "xgb")
WEIGHTINGS = ("state", "problem", "layer")
DATA = ("statespace", "plans")
DEDUPE_BY_DIGEST_ABOVE = 1 << 28  # bytes of X above which `dedupe` compares 128-bit digests of the rows
DUAL_ABOVE = 8192  # ridge: WL features above which (and more than rows) the dual form is solved  # training states: full state spaces (h*) | plans and siblings (from_plans)


@dataclass
class HeuristicTraining:
    """The `train` settings of a heuristic model entry."""

    alpha: float = 0.01  # ridge / rank / svr: L2 penalty (0.01: Gripper extrapolation 80.0 mean length against 82.0 with 1.0)
    max_states: int | None = None  # at most this many training states, drawn uniformly (seeded)
    n_estimators: int = 200  # xgb
    max_depth: int = 6  # xgb
    learning_rate: float = 0.1  # xgb
    rank_iterations: int = 500  # rank: L-BFGS iterations
    epsilon: float = 0.5  # svr: residuals within epsilon cost nothing (half a step of the integer targets)
    svr_iterations: int = 1000  # svr: L-BFGS iterations (from the ridge solution)
    weighting: str = "layer"  # state | problem | layer (see `state_weights`; layer measured best)
    data: str = "statespace"  # statespace: every state, h* | plans: plan states, plan length to go (from_plans)
    max_siblings: int | None = None  # plans, rank: sibling states kept per problem at most (drawn uniformly, seeded)

    def __post_init__(self):
        if self.weighting not in WEIGHTINGS:
            raise ValueError(f"Unknown value weighting={self.weighting!r}. Must be from {list(WEIGHTINGS)}")
        if self.data not in DATA:
            raise ValueError(f"Unknown value data={self.data!r}. Must be from {list(DATA)}")
        if self.alpha < 0 or self.epsilon < 0 or self.svr_iterations < 1 or (self.max_states is not None and self.max_states < 1) or \
                (self.max_siblings is not None and self.max_siblings < 0):
            raise ValueError(f"invalid heuristic training settings: {self}")
        if self.data == "plans" and self.max_states is not None:
            raise ValueError("max_states draws states of a state space: with data: plans every plan state is "
                             "taken (max_siblings bounds the ranking's siblings)")


def state_weights(h_star: np.ndarray, weighting: str) -> np.ndarray:
    """The weight of each training state of one problem: `state` 1 each (large state spaces
    dominate), `problem` 1/n (every problem weighs 1), `layer` 1/|{s: h*(s) = h}| (every goal
    distance of every problem weighs 1, so that states near the goal, few in a state space but
    the ones a greedy search must rank right last, count as much as the far majority)."""
    if weighting == "state" or not len(h_star):
        return np.ones(len(h_star))
    if weighting == "problem":
        return np.full(len(h_star), 1.0 / len(h_star))
    _, inverse, counts = np.unique(h_star, return_inverse=True, return_counts=True)
    return 1.0 / counts[inverse.reshape(-1)]


def dedupe(X, y: np.ndarray, weight: np.ndarray | None = None) -> tuple:
    """Distinct rows of X, the weighted mean target of each, the total weight each stands for (the
    number of states without `weight`), and the distinct row of each original row. X is a dense
    array or a scipy CSR matrix (the rows of a CSR matrix are compared by their nonzeros)."""
    weight = np.ones(X.shape[0]) if weight is None else np.asarray(weight, dtype=np.float64)
    if not X.shape[0]:
        return X, np.zeros(0), np.zeros(0), np.zeros(0, dtype=np.int64)
    if sparse.issparse(X):
        rows = _sparse_row_digests(X)
    elif X.nbytes > DEDUPE_BY_DIGEST_ABOVE:  # wide rows: sorting them as bytes would copy X (Transport: 1.1 GiB)
        import hashlib

        rows = np.array([hashlib.blake2b(r.tobytes(), digest_size=16).digest() for r in X], dtype="V16")
    else:
        X = np.ascontiguousarray(X)
        rows = X.view(np.dtype((np.void, X.dtype.itemsize * X.shape[1]))).reshape(-1)
    _, first, inverse = np.unique(rows, return_index=True, return_inverse=True)
    inverse = inverse.reshape(-1)
    total = np.bincount(inverse, weights=weight, minlength=len(first))
    yu = np.bincount(inverse, weights=weight * y, minlength=len(first)) / total
    return X[first], yu, total, inverse


def _sparse_row_digests(X) -> np.ndarray:
    """A 128-bit digest of each row of a CSR matrix: its column indices and values (sorted, no
    stored zeros), so that equal rows have equal digests."""
    import hashlib

    X = sparse.csr_matrix(X, copy=True)  # the caller's matrix is left as it is
    X.eliminate_zeros()
    X.sort_indices()
    ind, dat, ptr = X.indices, X.data, X.indptr
    return np.array([hashlib.blake2b(ind[a:b].tobytes() + b"|" + dat[a:b].tobytes(), digest_size=16).digest()
                     for a, b in zip(ptr[:-1], ptr[1:])], dtype="V16")


def to_csr(rows) -> "sparse.csr_matrix":
    """A CSR matrix (float64) of dense rows (an array or wlplan's list of lists)."""
    return sparse.csr_matrix(np.asarray(rows, dtype=np.float64))


def fit_ridge(X, y: np.ndarray, weight: np.ndarray, alpha: float) -> tuple[np.ndarray, float]:
    """(w, b) minimising sum_i weight_i (w.x_i + b - y_i)^2 + alpha |w|^2 (closed form). X is dense
    or a scipy CSR matrix; a CSR matrix is never centred (nor made dense): the centring enters the
    normal equations (or the dual's kernel) as the correction terms below."""
    if sparse.issparse(X):
        return _fit_ridge_sparse(sparse.csr_matrix(X), y, weight, alpha)
    total = weight.sum()
    mean_x = weight @ X / total
    mean_y = float(weight @ y / total)
    Xc = X - mean_x
    if X.shape[1] > DUAL_ABOVE and len(X) < X.shape[1] and alpha > 0:
        # the dual (n x n) form of the same solution, w = Z^T (Z Z^T + alpha I)^-1 t with Z = W^1/2 Xc,
        # t = W^1/2 (y - mean): wide WL features (Miconic from 99 plans: 28,501) would need a dim x dim matrix
        root = np.sqrt(weight)
        Z = Xc * root[:, None]
        K = Z @ Z.T
        K[np.diag_indices_from(K)] += alpha
        w = Z.T @ np.linalg.solve(K, root * (y - mean_y))
        return w, mean_y - float(mean_x @ w)
    A = (Xc * weight[:, None]).T @ Xc
    A[np.diag_indices_from(A)] += alpha
    return _primal(A, (Xc * weight[:, None]).T @ (y - mean_y), mean_x, mean_y)


def _fit_ridge_sparse(X, y: np.ndarray, weight: np.ndarray, alpha: float) -> tuple[np.ndarray, float]:
    """`fit_ridge` of a CSR matrix, with m the weighted mean row and T the total weight:
    primal  (X^T W X - T m m^T + alpha I) w = X^T W (y - mean_y);
    dual    K = R (X X^T - p 1^T - 1 p^T + (m.m) 1 1^T) R with R = W^1/2, p = X m, and
            w = X^T (R a) - m (1.(R a)) for (K + alpha I) a = R (y - mean_y)."""
    total = weight.sum()
    mean_x = np.asarray(X.T @ weight).reshape(-1) / total
    mean_y = float(weight @ y / total)
    t = y - mean_y
    n, dim = X.shape
    if dim > DUAL_ABOVE and n < dim and alpha > 0:
        root = np.sqrt(weight)
        p = np.asarray(X @ mean_x).reshape(-1)
        K = (X @ X.T).toarray()
        K -= p[:, None]
        K -= p[None, :]
        K += float(mean_x @ mean_x)
        K *= root[:, None]
        K *= root[None, :]
        K[np.diag_indices_from(K)] += alpha
        ra = root * np.linalg.solve(K, root * t)
        w = np.asarray(X.T @ ra).reshape(-1) - mean_x * float(ra.sum())
        return w, mean_y - float(mean_x @ w)
    A = (X.T @ X.multiply(weight[:, None]).tocsr()).toarray()
    A -= total * np.outer(mean_x, mean_x)
    A[np.diag_indices_from(A)] += alpha
    return _primal(A, np.asarray(X.T @ (weight * t)).reshape(-1), mean_x, mean_y)


def _primal(A: np.ndarray, rhs: np.ndarray, mean_x: np.ndarray, mean_y: float) -> tuple[np.ndarray, float]:
    """(w, b) of the centred normal equations A w = rhs, the intercept from the means."""
    try:
        w = np.linalg.solve(A, rhs)
    except np.linalg.LinAlgError:  # alpha = 0 and collinear features: the least-norm solution
        w = np.linalg.lstsq(A, rhs, rcond=None)[0]
    return w, mean_y - float(mean_x @ w)


def fit_svr(X, y: np.ndarray, weight: np.ndarray, alpha: float, epsilon: float,
            iterations: int) -> tuple[np.ndarray, float, dict]:
    """(w, b, stats) minimising sum_i weight_i max(0, |w.x_i + b - y_i| - epsilon)^2 + alpha |w|^2
    (LinearSVR's squared epsilon-insensitive loss, the bias unpenalised) with L-BFGS from the ridge
    solution (`fit_ridge`, its optimum at epsilon 0). X is dense or a scipy CSR matrix, used as it
    is (never centred nor made dense). The objective is divided by the total weight, which leaves
    its minimiser as it is and L-BFGS's tolerances meaning the same at every training-set size."""
    from scipy.optimize import minimize

    if sparse.issparse(X):
        X = sparse.csr_matrix(X)
    w0, b0 = fit_ridge(X, y, weight, alpha)
    total = float(weight.sum())
    scale = weight / total
    a = alpha / total

    def loss(theta):
        w, b = theta[:-1], theta[-1]
        r = np.asarray(X @ w).reshape(-1) + b - y
        excess = np.sign(r) * np.maximum(0.0, np.abs(r) - epsilon)  # d/dr of max(0, |r| - eps)^2 / 2
        g = 2.0 * scale * excess
        value = float(scale @ excess**2) + a * float(w @ w)
        return value, np.append(np.asarray(X.T @ g).reshape(-1) + 2.0 * a * w, g.sum())

    res = minimize(loss, np.append(w0, b0), jac=True, method="L-BFGS-B", options={"maxiter": iterations})
    w, b = res.x[:-1], float(res.x[-1])
    r = np.asarray(X @ w).reshape(-1) + b - y
    # within_epsilon: the share of the training weight whose residual is within epsilon
    return w, b, {"iterations": int(res.nit), "loss": float(res.fun) * total,
                  "within_epsilon": float(scale @ (np.abs(r) <= epsilon))}


def rank_pairs(h_star: np.ndarray, src: np.ndarray, dst: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(better, worse) state pairs of one state space: for each transition s -> s' from a state
    with h*(s) > 0: (s', s) when s' is an optimal successor, and (o, s') for every optimal
    successor o of s when s' is not optimal (h*(s') >= h*(s)). Dead ends are never paired."""
    alive = (h_star[src] > 0) & (h_star[dst] >= 0)
    src, dst = src[alive], dst[alive]
    opt = h_star[dst] == h_star[src] - 1
    better, worse = [dst[opt]], [src[opt]]
    # optimal successors by parent, joined to the parent's non-optimal successors
    o_src, o_dst = src[opt], dst[opt]
    n_src, n_dst = src[~opt], dst[~opt]
    order = np.argsort(o_src, kind="stable")
    o_src, o_dst = o_src[order], o_dst[order]
    lo = np.searchsorted(o_src, n_src, side="left")
    hi = np.searchsorted(o_src, n_src, side="right")
    reps = hi - lo
    if reps.sum():
        idx = np.repeat(lo, reps) + (np.arange(reps.sum()) - np.repeat(np.cumsum(reps) - reps, reps))
        better.append(o_dst[idx])
        worse.append(np.repeat(n_dst, reps))
    return np.concatenate(better), np.concatenate(worse)


def fit_rank(X, better: np.ndarray, worse: np.ndarray, alpha: float,
             iterations: int) -> tuple[np.ndarray, float, dict]:
    """w minimising sum over pairs max(0, 1 - (w.x_worse - w.x_better))^2 + alpha |w|^2 (L-BFGS);
    pairs index rows of X (duplicate pairs count as often as they occur)."""
    from scipy.optimize import minimize

    pairs = np.unique(np.stack([better, worse], axis=1), axis=0, return_counts=True)
    (pb, pw), count = pairs[0].T, pairs[1].astype(np.float64)
    keep = pb != pw  # a pair of equal feature rows cannot be ordered
    pb, pw, count = pb[keep], pw[keep], count[keep]
    D = X[pw] - X[pb]  # [pairs, dim]: w.D should be at least 1

    def loss(w):
        slack = np.maximum(0.0, 1.0 - np.asarray(D @ w).reshape(-1))
        value = float(count @ slack**2) + alpha * float(w @ w)
        grad = -2.0 * np.asarray(D.T @ (count * slack)).reshape(-1) + 2.0 * alpha * w
        return value, grad

    res = minimize(loss, np.zeros(X.shape[1]), jac=True, method="L-BFGS-B", options={"maxiter": iterations})
    w = res.x
    violated = float(count @ (np.asarray(D @ w).reshape(-1) <= 0)) / max(float(count.sum()), 1.0)
    return w, 0.0, {"pairs": int(count.sum()), "distinct_pairs": len(pb), "iterations": int(res.nit),
                    "loss": float(res.fun), "pairs_misordered": violated}


def fit_xgb(X: np.ndarray, y: np.ndarray, weight: np.ndarray, opts: HeuristicTraining, seed: int, threads: int,
            device: str):
    """A squared-error booster of `n_estimators` rounds and its per-round training RMSE."""
    import xgboost as xgb

    params = {"max_depth": opts.max_depth, "eta": opts.learning_rate, "tree_method": "hist", "device": device,
              "seed": seed, "nthread": threads, "objective": "reg:squarederror", "eval_metric": "rmse"}
    dtrain = xgb.DMatrix(X, label=y, weight=weight)
    evals: dict = {}
    start = time.perf_counter()
    booster = xgb.train(params, dtrain, num_boost_round=opts.n_estimators, evals=[(dtrain, "train")],
                        evals_result=evals, verbose_eval=False)
    booster.set_param({"device": "cpu", "nthread": 1})
    log.info("XGBoost heuristic: %d rounds in %.1f s", opts.n_estimators, time.perf_counter() - start)
    return booster, evals["train"]["rmse"]
