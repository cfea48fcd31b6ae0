"""Checking a workflow configuration before any job runs: the JSON schema
(`workflow/schemas/config.schema.yaml`, packaged as `genplan/data/config.schema.yaml`, with every
registered family's model entry added: `compose`), what the benchmarks provide (each configured
domain and split must be one of every configured benchmark's: `benchmark_faults`) and the model
families' own checks (genplan.registry). The commands check their JSON parameters against the same schema
(`check_value`): one definition of every setting, for the workflow and by hand.

Every problem is reported at once, one line each, naming the key by its path (`models.wl_lstm_state.train.epoch`),
misspelt keys first: a typo must not surface as a "required property" elsewhere.
"""

from __future__ import annotations

import copy
import functools
import math
import sys
from pathlib import Path

import jsonschema
import yaml

from genplan.errors import GenplanError


@functools.cache
def schema() -> dict:
    """The packaged schema (genplan.config_schema) with every registered family in it (`compose`)."""
    from genplan.config_schema import packaged

    return compose(packaged())


def compose(base: dict) -> dict:
    """The config schema `base` with every registered family (genplan.registry) in it: the `$defs`
    of its `schema.yaml`, its name among `$defs.model`'s families, which then checks an entry of
    the family against `$defs.<family>`, and its planning keys in `$defs.planning`."""
    from genplan.registry import FAMILIES

    out = copy.deepcopy(base)
    defs, model = out["$defs"], out["$defs"]["model"]
    model["properties"]["family"] = {"enum": list(FAMILIES)}
    model["allOf"] = []
    for fam in FAMILIES.values():
        added = fam.schema()
        clash = sorted(set(added) & set(defs))
        if clash:
            raise ValueError(f"family {fam.name}'s schema.yaml redefines $defs {clash}")
        defs.update(copy.deepcopy(added))
        model["allOf"].append({"if": {"properties": {"family": {"const": fam.name}}, "required": ["family"]},
                               "then": {"$ref": f"#/$defs/{fam.name}"}})
        _add_domain_settings(defs[fam.name])
        for key in fam.planning_keys:
            defs["planning"]["properties"][key] = defs[fam.name]["properties"][key]
    return out


def _add_domain_settings(entry: dict) -> None:
    """`domain_settings` in a family's model entry: per domain, any of the entry's keys but the
    scheduling ones (genplan.models.settings.SCHEDULING_KEYS) except `seeds`, each replacing the
    entry's own value on that domain (genplan.registry.entry_for): more seeds where a domain's
    training is cheap (paper-cpu.yaml: SymT on Gripper) without retraining the others."""
    from genplan.models.settings import SCHEDULING_KEYS

    props = {k: v for k, v in entry["properties"].items() if k not in SCHEDULING_KEYS or k == "seeds"}
    entry["properties"]["domain_settings"] = {
        "type": "object",
        "additionalProperties": {"type": "object", "properties": props, "additionalProperties": False}}


def _is_integer(checker, instance) -> bool:
    return isinstance(instance, int) and not isinstance(instance, bool)


# JSON Schema's `integer` admits 5.0 and 1e12 (floats with no fraction); the code that reads them
# (range(), torch, XGBoost) needs an int, so a whole number written as a float is refused by name.
_Validator = jsonschema.validators.extend(
    jsonschema.Draft202012Validator,
    type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine("integer", _is_integer))


def _where(path) -> str:
    return ".".join(str(p) for p in path) or "(top level)"


def _unknown(path, instance, node: dict) -> str:
    allowed = sorted((node.get("properties") or {}).keys())
    extra = sorted(map(str, set(instance) - set(allowed))) if isinstance(instance, dict) else []
    hint = f"; allowed: {allowed}" if allowed else ""
    return f"{_where(path)}: unknown key(s) {extra}{hint}"


def _line(err: jsonschema.ValidationError) -> str:
    if err.validator == "additionalProperties":
        return _unknown(err.absolute_path, err.instance, err.schema)
    return f"{_where(err.absolute_path)}: {err.message}"


# A configuration is small (the largest shipped, paper-cpu.yaml: 959 values, 9 KB of text, 6 levels
# deep); YAML's anchors and aliases can make a few lines expand to billions of values, which every
# walk (the schema's, the finite-number check's) would visit. The expansion is measured first, with
# these caps, and the walks run only below them.
MAX_VALUES = 100_000
MAX_TEXT_BYTES = 4 * 2**20
MAX_DEPTH = 64


def _too_big(value) -> str | None:
    """A line naming the key where `value`'s expansion passes a cap, or None; the walk stops at the
    cap, so its cost is bounded whatever the file's aliases multiply (and it is iterative: no
    recursion limit on a deep file)."""
    values, text = 0, 0
    stack = [(value, ())]
    while stack:
        node, path = stack.pop()
        values += 1
        if isinstance(node, str):
            text += len(node)
        if len(path) > MAX_DEPTH:
            return f"{_where(path[:1])}: nested more than {MAX_DEPTH} levels deep (at {_where(path[:8])}...)"
        if values > MAX_VALUES or text > MAX_TEXT_BYTES:
            what = f"{MAX_VALUES} values" if values > MAX_VALUES else f"{MAX_TEXT_BYTES} characters of text"
            return (f"{_where(path[:1])}: the configuration expands past {what} (at {_where(path[:8])}): nested "
                    "YAML anchors and aliases? (the largest shipped configuration has under 1000 values)")
        if isinstance(node, dict):
            text += sum(len(k) for k in node if isinstance(k, str))
            stack.extend((v, (*path, k)) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend((v, (*path, i)) for i, v in enumerate(node))
    return None


def _leaves(errors):
    """The innermost errors of if/then, allOf and $ref branches (what the user wrote wrong)."""
    for err in errors:
        if err.context:
            yield from _leaves(err.context)
        else:
            yield err


def _violations(node: dict, value) -> list[str]:
    """One line per schema violation of `value` under `node`, misspelt keys first, no repeats; an
`integer` is an int (5.0 is refused: `_Validator`)."""
    unknown = []  # the top level's misspelt keys, named before anything walks the values
    if isinstance(value, dict) and node.get("additionalProperties") is False and "properties" in node:
        if set(value) - set(node["properties"]):
            unknown = [_unknown((), value, node)]
    too_big = _too_big(value)
    if too_big:
        return unknown + [too_big]
    errors = list(_leaves(_Validator(node).iter_errors(value)))
    errors.sort(key=lambda e: (e.validator != "additionalProperties", list(map(str, e.absolute_path))))
    return list(dict.fromkeys(unknown + [_line(e) for e in errors])) + list(_non_finite(value, ()))


def _non_finite(value, path: tuple) -> list[str]:
    """A NaN or infinite number anywhere (YAML's .nan, .inf; JSON's NaN, Infinity): every bound of
    the schema lets NaN through, and an infinite limit crashes where it is used."""
    if isinstance(value, float) and not math.isfinite(value):
        return [f"{_where(path)}: {value} is not a finite number"]
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    return [line for key, v in items for line in _non_finite(v, (*path, key))]


def benchmark_faults(config: dict) -> list[str]:
    """One line per configured benchmark that is neither built in nor one of `benchmark_folders`, per
    configured domain or split that a configured benchmark does not provide (genplan.benchmarks), and for
    `ipc2023` a missing `ipc2023_dir` (the benchmark is read from the user's folder, never downloaded)."""
    from genplan import benchmarks

    lines = benchmarks.faults(config)
    if lines:
        return lines
    known = benchmarks.configured(config)
    for bench in config["benchmarks"]:
        kind = known[bench]
        domains, splits = benchmarks.domains_of(kind), kind.splits
        lines += [f"domains: benchmark {bench!r} has no domain {d!r}; its domains: {list(domains)}"
                  for d in config["domains"] if d not in domains]
        named = {"splits": config["splits"], "statespace.splits": config["statespace"]["splits"],
                 "evaluation.splits": config["evaluation"]["splits"]}
        named.update({f"extra_splits.{d}": v for d, v in (config.get("extra_splits") or {}).items()})
        lines += [f"{key}: benchmark {bench!r} has no split {s!r}; its splits: {list(splits)}"
                  for key, values in named.items() for s in values if s not in splits]
    lines += [f"extra_splits: {d!r} is not one of the configured domains {config['domains']}"
              for d in config.get("extra_splits") or {} if d not in config["domains"]]
    lines += [f"models.{m}.domain_settings: {d!r} is not one of the configured domains {config['domains']}"
              for m, entry in (config.get("models") or {}).items() if isinstance(entry, dict)
              for d in entry.get("domain_settings") or {} if d not in config["domains"]]
    lines += _models_without_validation(config, {name: b.splits for name, b in known.items()})
    lines += _unimported_folders(config, known)
    if "ipc2023" in config["benchmarks"]:
        where = config.get("ipc2023_dir")
        if not where:
            lines.append("ipc2023_dir: the ipc2023 benchmark is read from a folder you name (a copy of the "
                         "IPC 2023 learning track's benchmarks repository); it is not downloaded")
        elif not Path(where).is_dir():
            lines.append(f"ipc2023_dir: no such folder: {where}")
    return lines


def _unimported_folders(config: dict, known: dict) -> list[str]:
    """The first bad file of each domain of a configured folder benchmark (genplan.benchmarks) not yet
    imported under the results root: the import's own check (genplan.stages.folder_import.scan), run
    before any job, so that a malformed problem is named here rather than in a job's log. A domain
    already imported is not read again (every later invocation, and every cluster job, would pay for it)."""
    from genplan.benchmarks import domains_of, folder_names
    from genplan.paths import Layout
    from genplan.stages.folder_import import scan

    lines = []
    for name in folder_names(config):
        if name not in config["benchmarks"]:
            continue
        bench = known[name]
        for domain in config["domains"]:
            if domain not in domains_of(bench) or Path(Layout(config["results_dir"]).problems(name, domain)).is_dir():
                continue
            try:
                scan(domain, bench.path, bench.layout, dict(bench.patterns), bench.checksums)
            except GenplanError as exc:
                lines.append(f"benchmark_folders.{name}: {exc}")
    return lines


def _models_without_validation(config: dict, benchmark_splits: dict) -> list[str]:
    """On a benchmark without a validation split (ipc2023), one line per model entry whose family
    cannot train there (it selects its weights on the validation split or trains on full state
    spaces); a family module says it can with `trains_without_validation(entry)` (the
    learned heuristic and SymT trained from plans)."""
    from genplan.registry import family

    lines = []
    lacking = [b for b in config["benchmarks"] if "validation" not in benchmark_splits[b]]
    for name, entry in (config.get("models") or {}).items() if lacking else ():
        try:
            impl = family(entry.get("family")).impl
        except (ValueError, KeyError, TypeError):
            continue  # an unknown family is check_models' to name
        if not getattr(impl, "trains_without_validation", lambda e: False)(entry):
            lines.append(f"models.{name}: family {entry.get('family')!r} cannot train on benchmark "
                         f"{lacking[0]!r}, which has no validation split to select its weights on (and no "
                         f"expandable state spaces): there only the families that train from plans run "
                         f"(family heuristic or symt, train: {{data: plans}})")
    return lines


def faults(config: dict, schema_path: str | Path) -> list[str]:
    """Every schema violation, benchmark problem and family problem of `config`, misspelt keys first."""
    lines = _violations(compose(yaml.safe_load(Path(schema_path).read_text())), config)
    if not lines:
        from genplan import config_checks

        lines = benchmark_faults(config) or config_checks.faults(config)  # an unknown domain named first
    if not lines and isinstance(config.get("models"), dict):
        from genplan.registry import check_models

        lines = check_models(config["models"])
    return lines


def check(config: dict, schema_path: str | Path) -> None:
    """ValueError listing every problem, if any; else each notice (genplan.config_checks.notices) on
    stderr, one line each."""
    found = faults(config, schema_path)
    if found:
        raise ValueError("invalid configuration:\n  " + "\n  ".join(found))
    from genplan import config_checks

    for line in config_checks.notices(config):
        print(f"genplan: note: {line}", file=sys.stderr)


def check_value(value, where: tuple[str, ...], what: str, required: tuple[str, ...] | None = None) -> None:
    """Check a command's JSON parameter against the config schema's node at `where` (a path of keys
    from the root, e.g. ("properties", "planner")): types, bounds, unknown keys. `required`
    replaces the node's required keys (a command may need fewer than the config). GenplanError
    naming `what` and every problem."""
    root = schema()
    node = root
    for key in where:
        node = node[key]
    node = {**node, "$defs": root["$defs"]}
    if required is not None:
        node["required"] = list(required)
    lines = _violations(node, value)
    if lines:
        raise GenplanError(f"invalid {what}: " + "; ".join(lines))
