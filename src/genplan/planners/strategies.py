"""Named, parameterised planning strategies: the `{strategy}` wildcard and `genplan solve --strategy`.

A strategy name reads as its parameters, so that a results path says how its plans were made.
`TABLE` below is the one list of strategy kinds: each row holds a kind's name pattern, its
parameters, the form the help text writes, example names, and the planner that runs it. The
families' registry entries (`genplan.registry`) name kinds of this table (a kind not in it is
refused when a family registers), genplan.planners.search takes from it the kinds it runs, and
`genplan solve --help` is written from it (`describe`). A new kind is one row here, one branch in
the planner that runs it, and its name in a family's entry.

Every number has an upper bound (`MAXIMA`: a strategy past it would plan for hours, or hang):
beam width and multibeam beams at most 100, top-p samples at most 1,000, unmasking steps at most
1,000 in at most 64 blocks with a Gumbel temperature of at most 100. A name past a bound is refused
by name (`parse`), so at a config's check and on the command line alike.

The two switches that the old beam-mode strings packed into one suffix are kept apart here: the
beam (`pooled` | `reference`) and whether inference embeds static atoms (`statics`), each its own
parameter.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

# diffusion: T steps, optionally B semi-autoregressive blocks and a Gumbel temperature tau
_UNMASK = r"unmask-T(?P<steps>[1-9][0-9]*)(-B(?P<blocks>[1-9][0-9]*))?(-tau(?P<tau>[0-9]+(\.[0-9]+)?))?"


def _unmask_params(m) -> dict:
    return {"steps": int(m["steps"]), "blocks": int(m["blocks"] or 1), "tau": float(m["tau"] or 0.0)}


def _none(m) -> dict:
    return {}


@dataclass(frozen=True)
class Kind:
    """One strategy kind: the names it takes and what they mean."""

    name: str
    pattern: str  # a name of this kind, whole (re.fullmatch)
    params: Callable  # the match -> the strategy's parameters
    form: str  # how the help text writes its names
    examples: tuple[str, ...]  # names of this kind, in the order the forms are listed
    planner: str  # the planner that runs it: beam | autoregressive | diffusion | search
    meaning: str  # one line: what planning with it does

    @property
    def regex(self) -> re.Pattern:
        return re.compile(self.pattern)


TABLE: tuple[Kind, ...] = (
    Kind("beam", r"beam(?P<width>[1-9][0-9]*)-(?P<beam>pooled|reference)(?P<nostatics>-nostatics)?",
         lambda m: {"width": int(m["width"]), "beam": m["beam"], "statics": m["nostatics"] is None},
         "beamN-pooled (our beam), beamN-reference (the state-centric reference's beam, its idling beam included), "
         "either with -nostatics (WL inference states without static atoms, the reference's statics at training only)",
         ("beam3-pooled", "beam3-reference", "beam3-pooled-nostatics"), "beam",
         "width N successor beam, the nearest predicted successor's action"),
    Kind("greedy", r"greedy", _none, "greedy", ("greedy",), "autoregressive",
         "the most probable token at each step"),
    Kind("greedy-applicable", r"greedy-applicable", _none, "greedy-applicable", ("greedy-applicable",),
         "autoregressive", "greedy among applicable actions' tokens"),
    Kind("greedy-reground", r"greedy-reground", _none, "greedy-reground", ("greedy-reground",), "autoregressive",
         "each applicable action from the current state re-encoded"),
    Kind("multibeam", r"multibeam(?P<beams>[1-9][0-9]*)(?P<anyvalid>-anyvalid)?",
         lambda m: {"beams": int(m["beams"]), "anyvalid": m["anyvalid"] is not None},
         "multibeamN[-anyvalid]", ("multibeam10", "multibeam10-anyvalid"), "autoregressive",
         "N beams, the most probable plan (-anyvalid: the most probable that reaches the goal)"),
    Kind("topp", r"topp(?P<p>0\.[0-9]*[1-9][0-9]*|1(\.0+)?)x(?P<samples>[1-9][0-9]*)",
         lambda m: {"p": float(m["p"]), "samples": int(m["samples"])}, "toppPxK", ("topp0.9x10",),
         "autoregressive", "nucleus sampling with p = P, K samples, the first valid"),
    Kind("prefix", r"prefix(?P<percent>[1-9][0-9]?)-greedy", lambda m: {"percent": int(m["percent"])},
         "prefixP-greedy", ("prefix40-greedy",), "autoregressive",
         "the first P % of a reference plan given, the rest greedy"),
    Kind("heuristic-greedy", r"heuristic-greedy", _none, "heuristic-greedy", ("heuristic-greedy",), "search",
         "the successor of lowest learned h, no revisits (SymT's greedy heuristic guidance)"),
    Kind("unmask", _UNMASK, _unmask_params, "unmask-TN[-BK][-tauX] (N steps, K blocks, Gumbel temperature X)",
         ("unmask-T20", "unmask-T20-B4-tau0.5"), "diffusion", "confidence-based unmasking in N steps"),
    Kind("unmask-applicable", _UNMASK + "-applicable", _unmask_params, "unmask-TN-applicable",
         ("unmask-T20-applicable",), "diffusion", "as unmask, the first open position only applicable actions"),
    Kind("gbfs", r"gbfs", _none, "gbfs", ("gbfs",), "search",
         "eager greedy best-first search on the learned h (limits in the `search` settings)"),
    Kind("lazy-gbfs", r"lazy-gbfs", _none, "lazy-gbfs", ("lazy-gbfs",), "search",
         "lazy greedy best-first search: h computed at expansion, one state a call; gbfs's limits"),
    Kind("novelty-gbfs", r"novelty-gbfs", _none, "novelty-gbfs", ("novelty-gbfs",), "search",
         "eager GBFS ordered by (novelty given h, h): best-first width search's w_h; gbfs's limits"),
    Kind("descent", r"descent", _none, "descent", ("descent",), "search",
         "greedy descent: the successor of lowest h, no revisits"),
    Kind("compiled-gbfs", r"compiled-gbfs", _none, "compiled-gbfs", ("compiled-gbfs",), "search",
         "gbfs in C++ (genplan._wlsearch), one native call a problem; linear WL heuristics only; gbfs's limits"),
    Kind("compiled-novelty-gbfs", r"compiled-novelty-gbfs", _none, "compiled-novelty-gbfs",
         ("compiled-novelty-gbfs",), "search",
         "novelty-gbfs in C++ (genplan._wlsearch), one native call a problem; linear WL heuristics only; "
         "gbfs's limits"),
    Kind("compiled-lazy-gbfs", r"compiled-lazy-gbfs", _none, "compiled-lazy-gbfs", ("compiled-lazy-gbfs",), "search",
         "lazy-gbfs in C++ (genplan._wlsearch), one native call a problem; linear WL heuristics only; gbfs's limits"),
    Kind("hybrid-ff-gbfs", r"hybrid-ff-gbfs", _none, "hybrid-ff-gbfs", ("hybrid-ff-gbfs",), "search",
         "a hybrid, not the learned h alone: eager GBFS alternating open lists on the learned h and on hFF "
         "(Fast Downward's eager_greedy([h, ff()])); gbfs's limits"),
    Kind("compiled-hybrid-ff-gbfs", r"compiled-hybrid-ff-gbfs", _none, "compiled-hybrid-ff-gbfs",
         ("compiled-hybrid-ff-gbfs",), "search",
         "hybrid-ff-gbfs in C++ (genplan._wlsearch), one native call a problem; linear WL heuristics only; "
         "gbfs's limits"),
)
_BY_NAME = {k.name: k for k in TABLE}
_PATTERNS = {k.name: (k.regex, k.params) for k in TABLE}
KINDS = tuple(_BY_NAME)

# The largest value of each numeric parameter (see the module's docstring).
MAXIMA = {"width": 100, "beams": 100, "samples": 1000, "steps": 1000, "blocks": 64, "tau": 100.0}
EXAMPLES = tuple(name for k in TABLE for name in k.examples)


def kind(name: str) -> Kind:
    """The table's row of a kind (ValueError naming the kinds for another)."""
    if name not in _BY_NAME:
        raise ValueError(f"Unknown value kind={name!r}. Must be from {list(KINDS)}")
    return _BY_NAME[name]


def run_by(planner: str) -> tuple[str, ...]:
    """The kinds that one planner runs (the table's `planner` column)."""
    return tuple(k.name for k in TABLE if k.planner == planner)


def describe(offers: dict[str, tuple[str, ...]]) -> str:
    """The strategy forms each family offers, as the help text lists them: `offers` maps a family
    to its kinds (its registry entry's `strategy_kinds`)."""
    return ". ".join(f"{family}: " + ", ".join(kind(k).form for k in kinds) for family, kinds in offers.items())


@dataclass(frozen=True)
class Strategy:
    name: str
    kind: str
    params: dict = field(default_factory=dict, hash=False, compare=False)

    def __getitem__(self, key):
        return self.params[key]


class UnknownStrategy(ValueError):
    """A name of none of the strategy forms (a ValueError: the command line's exit 2)."""


def parse(name: str) -> Strategy:
    """The strategy a name describes; UnknownStrategy naming the forms for a name of none of them,
    ValueError naming the parameter for a number past its bound (`MAXIMA`)."""
    for kind, (pattern, params) in _PATTERNS.items():
        m = pattern.fullmatch(name)
        if m:
            strategy = Strategy(name, kind, params(m))
            _check_bounds(strategy)
            return strategy
    raise UnknownStrategy(f"Unknown value strategy={name!r}. Must be of the forms {list(EXAMPLES)}")


def _check_bounds(strategy: Strategy) -> None:
    for key, top in MAXIMA.items():
        if key in strategy.params and strategy[key] > top:
            raise ValueError(f"strategy {strategy.name!r}: {key} {strategy[key]} is greater than the maximum of "
                             f"{top:g} (genplan.planners.strategies.MAXIMA)")


def kinds_of(names) -> list[tuple[str, str]]:
    """(name, kind) of each name that parses; the others left out (the registry names them)."""
    out = []
    for name in names:
        try:
            out.append((name, parse(name).kind))
        except ValueError:
            continue
    return out


def forms(kinds) -> list[str]:
    """The example names (`EXAMPLES`) of the given kinds: a family's own strategy forms."""
    return [name for name in EXAMPLES if parse(name).kind in kinds]


def beam_mode(strategy: Strategy) -> str:
    """A beam strategy's decoder as the state-centric report names it: `pooled`, `reference`,
    `pooled-nostatics`, `reference-nostatics`."""
    return strategy["beam"] + ("" if strategy["statics"] else "-nostatics")
