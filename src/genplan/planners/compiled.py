"""Compiled greedy best-first searches with a learned linear WL heuristic:
the grounded task (genplan.planners.grounding) and the WL model are handed to genplan._wlsearch
once per problem, and the whole search (successors, duplicates, open list, ILG + WL + dot product
per state) runs in C++ in one call. Each is its genplan.planners.best_first search with
`HeuristicModel.bind`'s h, step for step (same order of successors, ties, goal test at generation,
counters), which stays the reference; tests/test_compiled_search.py holds them together:

- `gbfs` (strategy `compiled-gbfs`): best_first.gbfs, eager GBFS;
- `novelty_gbfs` (`compiled-novelty-gbfs`): best_first.novelty_gbfs, eager GBFS ordered by
  (novelty given the rounded h, h), its counter `novel` too;
- `lazy_gbfs` (`compiled-lazy-gbfs`): best_first.lazy_gbfs, lazy GBFS (Fast Downward's lazy_greedy);
- `hybrid_gbfs` (`compiled-hybrid-ff-gbfs`): genplan.planners.hybrid.hybrid_gbfs, eager GBFS
  alternating an open list on the learned h with one on hFF (Fast Downward's
  eager_greedy([h, ff()])), its counter `ff_init` too; hFF in _wlsearch_ff.cpp, held to
  genplan.planners.relaxed (tests/test_hybrid_search.py). A hybrid, not the learned h alone.

Their limits are SearchLimits': expansions and wall time before every expansion (the eager
searches also every 16 states of a batch, so a wide expansion stops within a fraction of a second
of the time limit), the process's resident memory every 1024 expansions (reason `memory_limit`).

The WL model is read from wlplan's own save text (the encoder's `to_dict()["generator"]`, wlplan
2.1.0's Features::save: `colour_hash` per iteration as "c1.c2..." -> colour, `iterations` after
pruning, the domain's predicates in wlplan's order, its constant objects); the problem's ILG
(objects: the domain's constants, then the problem's other objects sorted; positive goal atoms;
the static atoms when the encoder embeds them) is built as genplan.features.wlplan_edge's
ProblemConverter builds it for wlplan. Linear learners only: an XGBoost model is refused."""

from __future__ import annotations

import json
import time

from genplan.errors import GenplanError
from genplan.planners.search_parts import SearchLimits, SearchResult
from genplan.planners.grounding import GroundTask, ground


def wl_model(model, problem, task: GroundTask):
    """The model's WL features and weights bound to `problem` (a genplan.planners.base.Problem), as
    a genplan._wlsearch.WLModel over `task`'s fluent atom ids."""
    from genplan import _wlsearch

    if getattr(model, "linear", None) is None:
        raise GenplanError(f"the compiled search takes linear heuristics only, not learner {model.learner!r} "
                           "(use the strategy gbfs)", problem.problem_file)
    encoder = model.encoder
    saved = json.loads(encoder.to_dict()["generator"])
    if saved.get("feature_name") != "wl" or saved.get("graph_representation") != "ilg":
        raise GenplanError(f"the compiled search computes wl features on ilg graphs, not "
                           f"{saved.get('feature_name')} on {saved.get('graph_representation')}", problem.problem_file)
    layers = [[([int(c) for c in key.split(".")], int(v)) for key, v in layer.items() if key]
              for layer in saved["colour_hash"]]
    predicates = {name: i for i, (name, _arity) in enumerate(saved["domain"]["predicates"])}
    constants = list(saved["domain"]["constant_objects"])
    spec = problem.task
    objects = constants + sorted(o for o in spec.objects if o not in set(constants))
    node = {o: i for i, o in enumerate(objects)}

    def atom(a: tuple) -> tuple[int, list[int]]:
        try:
            return predicates[a[0]], [node[o] for o in a[1:]]
        except KeyError:
            raise GenplanError(f"atom {a} does not fit the WL model's domain", problem.problem_file) from None

    statics = sorted(spec.statics) if encoder.statics else []
    w, b = model.linear
    return _wlsearch.WLModel(int(saved["iterations"]), bool(saved["multiset_hash"]), layers, [float(v) for v in w],
                             float(b), len(objects), [atom(g) for g in sorted(spec.goal)], [atom(s) for s in statics],
                             [atom(a) for a in task.atoms])


def native_task(task: GroundTask):
    from genplan import _wlsearch

    return _wlsearch.Task(len(task.atoms), task.pre, task.neg, task.add, task.delete, task.init, task.goal_pos,
                          task.goal_neg)


class CompiledSearch:
    """One problem prepared for the compiled search: its grounded task and the bound WL model."""

    def __init__(self, model, problem, deadline: float | None = None):
        start = time.perf_counter()
        self.problem = problem
        self.task = ground(problem.mimir, problem.domain_file, deadline)  # GroundingTimeout past `deadline`
        self.native = native_task(self.task)
        self.wl = wl_model(model, problem, self.task)
        self.prepare_time = time.perf_counter() - start

    def h(self, state) -> float:
        """The compiled h of a pymimir state of `problem.mimir`."""
        return self.wl.h(self.task.state_ids(self.problem.mimir, state))

    def gbfs(self, limits: SearchLimits, timers: dict | None = None) -> SearchResult:
        """Eager GBFS in C++ (`timers`, when a dict: CPU seconds per part, as best_first's `_Clock`)."""
        return self.search("gbfs", limits, timers)

    def novelty_gbfs(self, limits: SearchLimits, timers: dict | None = None) -> SearchResult:
        """best_first.novelty_gbfs in C++: counters `novel` (generated states that were novel)."""
        return self.search("novelty_gbfs", limits, timers)

    def lazy_gbfs(self, limits: SearchLimits, timers: dict | None = None) -> SearchResult:
        """best_first.lazy_gbfs in C++."""
        return self.search("lazy_gbfs", limits, timers)

    def hybrid_gbfs(self, limits: SearchLimits, timers: dict | None = None) -> SearchResult:
        """genplan.planners.hybrid.hybrid_gbfs in C++: counters `ff_init` (None: a relaxed dead end)."""
        return self.search("hybrid_gbfs", limits, timers)

    def ff(self, state) -> float:
        """The compiled hFF of a pymimir state of `problem.mimir` (math.inf: a relaxed dead end)."""
        from genplan import _wlsearch

        return _wlsearch.ff(self.native, self.task.state_ids(self.problem.mimir, state))

    def search(self, name: str, limits: SearchLimits, timers: dict | None = None) -> SearchResult:
        """The native search `name` (one of `SEARCHES`) from the initial state, in one call."""
        from genplan import _wlsearch

        if name not in SEARCHES:
            raise ValueError(f"unknown compiled search {name!r}; known: {list(SEARCHES)}")
        inf = float("inf")
        out = getattr(_wlsearch, name)(self.native, self.wl, float(min(limits.max_expansions, 2.0 ** 62)),
                                       float(limits.time_limit) if limits.time_limit < inf else 1e300,
                                       timers is not None, float(limits.memory_limit_mb or 0.0))
        if timers is not None:
            for k, v in out["timers"].items():
                timers[k] = timers.get(k, 0.0) + v
        res = SearchResult([self.task.names[i] for i in out["plan"]], out["reason"], expanded=out["expanded"],
                           generated=out["generated"], evaluated=out["evaluated"],
                           heuristic_calls=out["heuristic_calls"], h_init=out["h_init"] if out["evaluated"] else None,
                           time=out["time"])
        if "novel" in out:
            res.counters["novel"] = out["novel"]
        if "ff_init" in out:
            res.counters["ff_init"] = out["ff_init"] if out["ff_init"] < inf else None
        res.counters["prepare_time"] = self.prepare_time
        return res


# genplan._wlsearch's searches, CompiledSearch's methods (the strategy kinds that run them:
# genplan.planners.search.COMPILED)
SEARCHES = ("gbfs", "novelty_gbfs", "lazy_gbfs", "hybrid_gbfs")


def compiled_gbfs(model, problem, limits: SearchLimits, timers: dict | None = None) -> SearchResult:
    """Eager GBFS of `problem` with `model`'s linear WL heuristic, in one native call."""
    return CompiledSearch(model, problem).gbfs(limits, timers)
