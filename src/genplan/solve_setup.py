"""What `genplan solve` and `genplan evaluate` settle before a planner runs, where the registry and
the workflow configuration live: the model of a checkpoint loaded for its domain (`load_model`),
the strategy resolved against its family (`resolve_strategy`; `check_strategy_early` before the
model loads), and the planning settings of a model's entry in a workflow configuration merged with
--settings (`planning_for`). genplan.planners.solve then plans and validates, knowing none of this.
"""

from __future__ import annotations

from pathlib import Path

from genplan.domains import domain_key
from genplan.errors import GenplanError


def load_model(checkpoint: str | Path, domain: str | Path, threads: int = 1):
    """The model of `checkpoint`, any family; GenplanError unless it was trained on `domain`.
    Planning makes small model calls: one torch thread is fastest (measured 18x faster than two on
    a loaded 2-core machine); XGBoost boosters load with one thread too. A family that plans without
    torch (the learned heuristic) loads without importing it (genplan.checkpoint_numpy)."""
    import sys

    from genplan.registry import load_model as _load

    if not Path(checkpoint).is_file():
        raise GenplanError("model checkpoint not found", checkpoint)
    model = _load(checkpoint, expect_domain=domain_key(domain))
    if "torch" in sys.modules:  # before the model's first call
        sys.modules["torch"].set_num_threads(threads)
    return model


def check_strategy_early(strategy: str | None):
    """Before a model loads: a strategy number past its bound is refused (ValueError naming it). The
    parsed strategy (genplan.planners.strategies.Strategy), which the command passes on, so that it is
    parsed once; None for none, and for a name of no form, which waits for `resolve_strategy` to list
    the model's own family's forms."""
    from genplan.planners.strategies import UnknownStrategy, parse

    if strategy is not None:
        try:
            return parse(strategy)
        except UnknownStrategy:
            pass
    return None


def resolve_strategy(model, strategy):
    """`strategy` (a name, or a Strategy parsed already), or without one the model's default (its own,
    else its family's: `solve` and `evaluate` alike), as the Strategy object that travels down to the
    planner; ValueError listing the forms of the model's family for a strategy that family does not offer."""
    from genplan.planners.strategies import Strategy, UnknownStrategy, forms, parse
    from genplan.registry import family

    fam = family(model.family)
    if strategy is None:
        strategy = getattr(model, "default_strategy", None) or fam.default_strategy
    try:
        parsed = strategy if isinstance(strategy, Strategy) else parse(strategy)
    except UnknownStrategy:
        parsed = None
    if parsed is None or parsed.kind not in fam.strategy_kinds:
        name = strategy.name if isinstance(strategy, Strategy) else strategy
        raise ValueError(f"Unknown value strategy={name!r} for a {fam.name} model. "
                         f"Must be of the forms {forms(fam.strategy_kinds)}")
    return parsed


def merged(base: dict, over: dict) -> dict:
    """`base` with `over`'s keys put in, mappings merged key by key (as Snakemake merges configfiles)."""
    out = dict(base)
    for key, value in over.items():
        out[key] = merged(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


def entry_planning_settings(configfiles: list, name: str, family: str, domain: str | None = None) -> dict:
    """The planning settings of model `name` in the workflow configuration `configfiles` (merged in
    order, as `snakemake --configfile A B`), on `domain` where the entry has `domain_settings`: what
    its evaluations planned with. GenplanError naming the file for a missing or unreadable file or a
    model it does not define."""
    import yaml

    from genplan.configuration import check_value
    from genplan.registry import entry_for, planning_settings

    config: dict = {}
    for path in map(Path, configfiles):
        try:
            doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise GenplanError("configuration file not found", path) from None
        except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
            raise GenplanError(f"not a readable YAML configuration ({type(exc).__name__})", path) from None
        if not isinstance(doc, dict):
            raise GenplanError("not a workflow configuration (a YAML mapping)", path)
        config = merged(config, doc)
    entry = (config.get("models") or {}).get(name)
    if not isinstance(entry, dict) or "family" not in entry:
        raise GenplanError(f"the checkpoint's model {name!r} is not among the configuration's models "
                           f"{sorted(config.get('models') or {})}", configfiles[-1])
    if entry["family"] != family:
        raise GenplanError(f"model {name!r} is of family {entry['family']!r} in this configuration, the "
                           f"checkpoint's of {family!r}", configfiles[-1])
    settings = planning_settings(entry_for(entry, domain))  # domain None: the entry's own keys
    check_value(settings, ("$defs", "planning"), f"{configfiles[-1]}: the planning settings of model {name!r}")
    return settings


def planning_for(model, given: dict, configfiles: list | None) -> tuple[dict, str]:
    """The settings `solve` plans `model` with, and where they come from (for a log line): the
    planning settings of the model's entry in `configfiles` (the configuration it was trained and
    evaluated with), each overridden by `given` (--settings); without a configuration, `given` and
    the family's defaults for the rest."""
    from genplan.registry import family

    keys = family(model.family).planning_keys
    if configfiles:
        entry = entry_planning_settings(configfiles, model.name, model.family, getattr(model, "domain", None))
        settings = merged(entry, given)
        missing = [k for k in keys if k not in settings]
        source = f"model {model.name!r} of {', '.join(map(str, configfiles))}"
        source += (", overridden by --settings" if given else "") + (
            f"; the family's defaults for {missing}" if missing else "")
        return settings, source
    missing = [k for k in keys if k not in given]
    if not missing:
        return given, "--settings"
    return given, (f"the {model.family} family's defaults for {missing} (the workflow's evaluations planned with "
                   "their configuration's model entry: give that configuration with --configfile, or --settings)")
