"""The workflow configuration's JSON schema as packaged (`genplan/data/config.schema.yaml`, a copy
of `workflow/schemas/config.schema.yaml`), without the model families' entries, which
genplan.configuration.schema adds from the registry. The stages read their own sections' defaults
here (the planner section's: genplan.stages.plans, genplan.stages.anytime) without loading the
registry."""

from __future__ import annotations

import functools
from importlib import resources

import yaml


@functools.cache
def packaged() -> dict:
    """The packaged schema (cached: callers copy before they change it)."""
    return yaml.safe_load(resources.files("genplan").joinpath("data", "config.schema.yaml").read_text())


def section(*keys: str) -> dict:
    """The `properties` of the section at `keys` (e.g. `section("planner")`: the planner section's keys)."""
    node = packaged()
    for key in keys:
        node = node["properties"][key]
    return node.get("properties", {})
