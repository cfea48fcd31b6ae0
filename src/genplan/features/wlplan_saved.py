"""A saved wlplan feature generator (the text of `Features.save`, stored in a heuristic checkpoint's
vocabulary) checked before wlplan reads it. wlplan's loader (src/feature_generator/features.cpp,
`Features::Features(filename)` in the wlplan repository) trusts the file: it indexes its colour
layers by `iterations` and by each colour's stored layer without bounds checks, and the embedding
adds to `x[colour]` for every colour it finds, so a checkpoint whose saved generator is
inconsistent (found by fuzzing the model reader: `iterations` raised from 0 to 5) segfaults the
planner instead of being refused. The invariants below are those the saved file holds when
wlplan writes it; anything else is a ValueError naming the field."""

from __future__ import annotations

import json
import math
import re

MAX_ITERATIONS = 64  # wlplan allocates a colour layer per iteration; WL-GOOSE uses 1-6
_COLOUR_KEY = re.compile(r"(-?\d{1,10}(\.-?\d{1,10})*)?")  # wlplan's '.'-joined integers


def _int(value, what: str, low: int = 0, high: int = 2**31 - 1) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise ValueError(f"saved WL generator: {what} {value!r} is not an integer from {low} to {high}")
    return value


def _named_arities(value, what: str) -> None:
    if not isinstance(value, list) or not all(
            isinstance(p, list) and len(p) == 2 and isinstance(p[0], str) for p in value):
        raise ValueError(f"saved WL generator: domain {what} are not [name, arity] pairs")
    for name, arity in value:
        _int(arity, f"arity of {what[:-1]} {name!r}", high=64)


def check(text: str) -> dict:
    """The saved generator's JSON, after checking it is one wlplan can load safely; ValueError else."""
    try:
        saved = json.loads(text)
    except RecursionError:
        raise ValueError("saved WL generator: JSON nested too deeply") from None
    if not isinstance(saved, dict):
        raise ValueError("saved WL generator is not a JSON object")
    for key, kind in (("package_version", str), ("feature_name", str), ("graph_representation", str),
                      ("pruning", str), ("multiset_hash", bool), ("colour_hash", list), ("colour_to_layer", list),
                      ("weights", list), ("domain", dict)):
        if not isinstance(saved.get(key), kind):
            raise ValueError(f"saved WL generator: {key} missing or not a {kind.__name__}")
    if saved["feature_name"] != "wl" or saved["graph_representation"] != "ilg":
        raise ValueError(f"saved WL generator of features {saved['feature_name']!r} on graphs "
                         f"{saved['graph_representation']!r}, not genplan's 'wl' on 'ilg'")
    iterations = _int(saved.get("iterations"), "iterations", high=MAX_ITERATIONS)
    layers = saved["colour_hash"]
    if len(layers) != iterations + 1 or not all(isinstance(layer, dict) for layer in layers):
        raise ValueError(f"saved WL generator: {len(layers)} colour layers for {iterations} iterations "
                         f"(wlplan reads {iterations + 1})")
    n_features = sum(len(layer) for layer in layers)
    for i, layer in enumerate(layers):
        for key, colour in layer.items():
            if not _COLOUR_KEY.fullmatch(key):
                raise ValueError(f"saved WL generator: colour key {key[:40]!r} of layer {i} is not '.'-joined integers")
            _int(colour, f"colour of layer {i}", high=n_features - 1)
    for pair in saved["colour_to_layer"]:
        if not (isinstance(pair, list) and len(pair) == 2):
            raise ValueError("saved WL generator: colour_to_layer is not [colour, layer] pairs")
        _int(pair[0], "colour in colour_to_layer", high=max(n_features - 1, 0))
        _int(pair[1], "layer in colour_to_layer", high=iterations)
    weights = saved["weights"]
    if weights and (len(weights) != n_features or not all(
            isinstance(w, (int, float)) and not isinstance(w, bool) and math.isfinite(w) for w in weights)):
        raise ValueError(f"saved WL generator: {len(weights)} weights for {n_features} features, or not all "
                         "finite numbers")
    domain = saved["domain"]
    if not isinstance(domain.get("name"), str):
        raise ValueError("saved WL generator: domain name missing")
    for what in ("predicates", "functions", "schemata"):
        _named_arities(domain.get(what), what)
    constants = domain.get("constant_objects")
    if not isinstance(constants, list) or not all(isinstance(c, str) for c in constants):
        raise ValueError("saved WL generator: domain constant_objects are not names")
    return saved
