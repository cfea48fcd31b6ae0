"""The README's layout of src/genplan is true to the tree, so that a newcomer's map is never stale: every module and folder
of the package, and every module of cli/, planners/, stages/, training/, models/, formats/, evaluation/ and the C++ files
of cpp/, is named there."""

from __future__ import annotations

import re

from conftest import REPO

PACKAGE = REPO / "src" / "genplan"
NAMED_INSIDE = ("cli", "planners", "stages", "training", "models", "formats", "evaluation", "cpp")  # folders whose modules the layout names


def _layout() -> str:
    text = (REPO / "README.md").read_text()
    return text[text.index("src/genplan/\n"):text.index("\ntests/ ")]


def _named(name: str, layout: str) -> bool:
    return re.search(rf"(?<![\w.]){re.escape(name)}(?![\w])", layout) is not None


def test_the_readme_layout_names_every_module():
    layout = _layout()
    wanted = [p.name for p in PACKAGE.iterdir() if p.suffix in (".py", ".cpp") and p.name != "__init__.py"]
    wanted += [p.name + "/" for p in PACKAGE.iterdir() if p.is_dir() and not p.name.startswith(("_", "."))
               and not p.name.endswith(".egg-info")]
    for folder in NAMED_INSIDE:
        wanted += [p.stem for p in (PACKAGE / folder).iterdir()
                   if (p.suffix in (".py", ".cpp", ".hpp") and p.name != "__init__.py")
                   or (p.is_dir() and p.name != "__pycache__")]
    missing = sorted(n for n in wanted if not _named(n, layout) and not _named(n.removesuffix(".py"), layout))
    assert not missing, f"README's layout of src/genplan omits {missing}"


def test_the_readme_is_a_manual_that_opens_on_the_two_commands():
    """A newcomer reads it in minutes: at most 350 lines, its first commands the two that run everything
    and test everything, and its recipes each naming the test that proves it."""
    text = (REPO / "README.md").read_text()
    assert len(text.splitlines()) <= 350
    first = text.split("```bash\n", 1)[1].split("```", 1)[0]
    assert first == "./genplan-env snakemake --cores 2 all\n./genplan-env python -m pytest\n"
    recipes = text[text.index("## Recipes"):text.index("\n## ", text.index("## Recipes") + 1)]
    for proof in ("tests/test_folder_benchmark.py", "tests/test_generated_domain.py", "tests/test_sixth_family.py",
                  "tests/test_strategy_recipe.py"):
        assert proof in recipes and (REPO / proof).is_file(), proof
