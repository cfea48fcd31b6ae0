"""Named, parameterised planning strategies: the `{strategy}` wildcard and `genplan solve --strategy`.

A strategy name reads as its parameters, so that a results path says how its plans were made:

| name                        | kind     | parameters                                   | families   |
|-----------------------------|----------|----------------------------------------------|------------|
| `beam3-pooled`              | beam     | width 3, our pooled beam, statics embedded   | transition |
| `beam3-reference`           | beam     | width 3, the reference's beam (defect 1)     | transition |
| `beam3-pooled-nostatics`    | beam     | as above, inference states without statics   | transition |
| `greedy`                    | greedy   | the most probable token at each step         | plangpt    |
| `greedy-applicable`         | greedy-applicable | greedy among applicable actions' tokens | plangpt |
| `greedy-reground`           | greedy-reground | each applicable action from the current state re-encoded | plangpt |
| `multibeam10`               | multibeam| 10 beams, the most probable plan             | plangpt    |
| `multibeam10-anyvalid`      | multibeam| 10 beams, the most probable plan that reaches the goal | plangpt |
| `topp0.9x10`                | topp     | nucleus p = 0.9, 10 samples, the first valid | plangpt    |
| `prefix40-greedy`           | prefix   | the first 40 % of a reference plan given, the rest greedy | plangpt |
| `heuristic-greedy`          | heuristic-greedy | the successor of lowest learned h, no revisits (SymT's greedy heuristic guidance) | symt |
| `unmask-T20`                | unmask   | T = 20 unmasking steps (confidence-based)    | diffusion  |
| `unmask-T20-B4-tau0.5`      | unmask   | T = 20, 4 semi-autoregressive blocks, Gumbel tau 0.5 | diffusion |
| `unmask-T20-applicable`     | unmask-applicable | as unmask, the first open position only applicable actions | diffusion |
| `gbfs`                      | gbfs     | eager greedy best-first search on the learned h | heuristic, symt (SymT^E) |
| `lazy-gbfs`                 | lazy-gbfs | lazy greedy best-first search: h computed at expansion, one state a call | heuristic |
| `novelty-gbfs`              | novelty-gbfs | eager GBFS ordered by (novelty given h, h): best-first width search's w_h | heuristic |
| `descent`                   | descent  | greedy descent: the successor of lowest h, no revisits | heuristic |
| `compiled-gbfs`             | compiled-gbfs | `gbfs` in C++ (genplan._wlsearch): one native call a problem; linear WL heuristics only | heuristic |

Every number has an upper bound (`MAXIMA`: a strategy past it would plan for hours, or hang):
beam width and multibeam beams at most 100, top-p samples at most 1,000, unmasking steps at most
1,000 in at most 64 blocks with a Gumbel temperature of at most 100. A name past a bound is refused
by name (`parse`), so at a config's check and on the command line alike.

The two switches that the old beam-mode strings packed into one suffix are kept apart here: the
beam (`pooled` | `reference`) and whether inference embeds static atoms (`statics`), each its own
parameter. Families declare which kinds they offer (`genplan.registry`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# diffusion: T steps, optionally B semi-autoregressive blocks and a Gumbel temperature tau
_UNMASK = r"unmask-T(?P<steps>[1-9][0-9]*)(-B(?P<blocks>[1-9][0-9]*))?(-tau(?P<tau>[0-9]+(\.[0-9]+)?))?"


def _unmask_params(m) -> dict:
    return {"steps": int(m["steps"]), "blocks": int(m["blocks"] or 1), "tau": float(m["tau"] or 0.0)}


_KINDS: dict[str, tuple[re.Pattern, callable]] = {
    "beam": (re.compile(r"beam(?P<width>[1-9][0-9]*)-(?P<beam>pooled|reference)(?P<nostatics>-nostatics)?"),
             lambda m: {"width": int(m["width"]), "beam": m["beam"], "statics": m["nostatics"] is None}),
    "greedy": (re.compile(r"greedy"), lambda m: {}),
    "greedy-applicable": (re.compile(r"greedy-applicable"), lambda m: {}),
    "greedy-reground": (re.compile(r"greedy-reground"), lambda m: {}),
    "multibeam": (re.compile(r"multibeam(?P<beams>[1-9][0-9]*)(?P<anyvalid>-anyvalid)?"),
                  lambda m: {"beams": int(m["beams"]), "anyvalid": m["anyvalid"] is not None}),
    "topp": (re.compile(r"topp(?P<p>0\.[0-9]*[1-9][0-9]*|1(\.0+)?)x(?P<samples>[1-9][0-9]*)"),
             lambda m: {"p": float(m["p"]), "samples": int(m["samples"])}),
    "unmask": (re.compile(_UNMASK), _unmask_params),
    "unmask-applicable": (re.compile(_UNMASK + "-applicable"), _unmask_params),
    "prefix": (re.compile(r"prefix(?P<percent>[1-9][0-9]?)-greedy"), lambda m: {"percent": int(m["percent"])}),
    "heuristic-greedy": (re.compile(r"heuristic-greedy"), lambda m: {}),  # genplan.planners.search (SymT^E)
    "gbfs": (re.compile(r"gbfs"), lambda m: {}),  # genplan.planners.search; limits in the `search` settings
    "lazy-gbfs": (re.compile(r"lazy-gbfs"), lambda m: {}),  # genplan.planners.search.lazy_gbfs; the same limits
    "novelty-gbfs": (re.compile(r"novelty-gbfs"), lambda m: {}),  # genplan.planners.best_first.novelty_gbfs
    "descent": (re.compile(r"descent"), lambda m: {}),
    "compiled-gbfs": (re.compile(r"compiled-gbfs"), lambda m: {}),  # genplan.planners.compiled; gbfs's limits
}
KINDS = tuple(_KINDS)

# The largest value of each numeric parameter (see the module's docstring).
MAXIMA = {"width": 100, "beams": 100, "samples": 1000, "steps": 1000, "blocks": 64, "tau": 100.0}
EXAMPLES = ("beam3-pooled", "beam3-reference", "beam3-pooled-nostatics", "greedy", "greedy-applicable",
            "greedy-reground", "multibeam10", "multibeam10-anyvalid", "topp0.9x10", "prefix40-greedy", "heuristic-greedy",
            "unmask-T20",
            "unmask-T20-B4-tau0.5", "unmask-T20-applicable", "gbfs", "lazy-gbfs", "novelty-gbfs", "descent",
            "compiled-gbfs")


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
    for kind, (pattern, params) in _KINDS.items():
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
