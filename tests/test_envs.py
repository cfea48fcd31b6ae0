"""The conda environments (envs/*.yaml) can build and run the package: conda cannot be reached from
the development machines, so what `snakemake --sdm conda` would install is checked against what the
package declares. Every env file must list every dependency of pyproject.toml at a version its
specifier allows, every build requirement (pyproject's build-system and the third-party modules
setup.py imports), a C++ compiler from conda-forge (the post-deploy script builds genplan._wlsearch
with --no-build-isolation, so nothing is fetched at build time), and a Python that
requires-python allows."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name

REPO = Path(__file__).resolve().parents[1]
ENV_FILES = sorted((REPO / "envs").glob("*.yaml"))
COMPILERS = {"cxx-compiler", "compilers", "gxx", "gxx_linux-64", "clangxx"}  # conda-forge's C++ compilers
# a module setup.py imports -> the distribution that provides it
MODULE_DIST = {"pybind11": "pybind11", "setuptools": "setuptools"}


def _pyproject() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text())


def setup_imports() -> set[str]:
    """The top-level third-party modules setup.py imports (the standard library left out)."""
    tree = ast.parse((REPO / "setup.py").read_text())
    mods = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            mods |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            mods.add(node.module.split(".")[0])
    return {m for m in mods if m not in sys.stdlib_module_names and m != "__future__"}


def requirements() -> list[tuple[str, Requirement]]:
    """(where, requirement) of everything the package needs to be built and imported."""
    py = _pyproject()
    out = [("pyproject.toml [project] dependencies", Requirement(r)) for r in py["project"]["dependencies"]]
    out += [("pyproject.toml [build-system] requires", Requirement(r)) for r in py["build-system"]["requires"]]
    for mod in sorted(setup_imports()):
        assert mod in MODULE_DIST, f"setup.py imports {mod}: name its distribution in MODULE_DIST"
        out.append(("setup.py imports", Requirement(MODULE_DIST[mod])))
    return out


_CONDA = re.compile(r"^([A-Za-z0-9_.-]+)\s*(?:(==|=|>=|<=|>|<)\s*([^\s,]+))?$")


def env_packages(path: Path) -> dict[str, str | None]:
    """{canonical name: version spec or None} of an env file's conda and pip dependencies; a conda
    `name=1.2` is the version 1.2 (conda's prefix match: 1.2.*)."""
    data = yaml.safe_load(path.read_text())
    out: dict[str, str | None] = {}
    for dep in data["dependencies"]:
        if isinstance(dep, dict):
            for pip_dep in dep.get("pip", []):
                req = Requirement(pip_dep)
                out[canonicalize_name(req.name)] = str(req.specifier) or None
            continue
        m = _CONDA.match(str(dep).strip())
        assert m, f"{path.name}: cannot read the dependency {dep!r}"
        name, op, version = m.groups()
        out[canonicalize_name(name)] = None if op is None else (f"=={version}.*" if op == "=" else f"{op}{version}")
    return out


def _pinned_version(spec: str | None) -> str | None:
    """The version an exact pin names (`==1.2`, `==1.2.*`), else None."""
    m = re.fullmatch(r"==([^*,]+?)(\.\*)?", spec or "")
    return m.group(1) if m else None


def test_the_lists_read_what_the_package_declares():
    names = {canonicalize_name(r.name) for _, r in requirements()}
    assert {"pybind11", "setuptools", "torch", "snakemake"} <= names, names
    assert len(ENV_FILES) >= 3, ENV_FILES


@pytest.mark.parametrize("env", ENV_FILES, ids=lambda p: p.name)
def test_env_file_lists_every_requirement(env):
    pkgs = env_packages(env)
    problems = []
    for where, req in requirements():
        name = canonicalize_name(req.name)
        if name not in pkgs:
            problems.append(f"{req} ({where}) is missing")
            continue
        version = _pinned_version(pkgs[name])
        if req.specifier and version is not None and not req.specifier.contains(version, prereleases=True):
            problems.append(f"{name} {pkgs[name]} does not satisfy {req} ({where})")
        if req.specifier and version is None and pkgs[name] is None:
            problems.append(f"{name} is unpinned where {where} asks {req.specifier}")
    if not COMPILERS & pkgs.keys():
        problems.append(f"no C++ compiler (one of {sorted(COMPILERS)}) to build genplan._wlsearch")
    python = _pinned_version(pkgs.get("python"))
    wanted = SpecifierSet(_pyproject()["project"]["requires-python"])
    if python is None or not wanted.contains(python):
        problems.append(f"python {pkgs.get('python')} is not a version requires-python {wanted} allows")
    assert not problems, f"envs/{env.name}:\n" + "\n".join(problems)


def test_every_env_pins_the_same_versions():
    """One package, one version across the environments: a rule's results do not depend on which env ran it."""
    seen: dict[str, dict[str, str | None]] = {}
    for env in ENV_FILES:
        for name, spec in env_packages(env).items():
            seen.setdefault(name, {})[env.name] = spec
    differing = {n: s for n, s in seen.items() if len(set(s.values())) > 1}
    assert not differing, differing


def test_a_missing_requirement_is_found(tmp_path):
    """The check can fail: an env file without pybind11 and the compiler is reported."""
    text = (REPO / "envs" / "planning.yaml").read_text()
    broken = tmp_path / "broken.yaml"
    broken.write_text("\n".join(line for line in text.splitlines() if "pybind11" not in line and "cxx-compiler" not in line))
    with pytest.raises(AssertionError, match="pybind11.*missing(?s:.*)no C\\+\\+ compiler"):
        test_env_file_lists_every_requirement(broken)
