"""The compiled part of genplan: `genplan._wlsearch`, greedy best-first searches with a linear WL
heuristic in C++, in src/genplan/cpp/: the bindings (bindings.cpp), the heuristic (wl.cpp), the eager,
novelty and lazy searches (search.cpp, with what the searches share in search_parts.hpp), the hybrid
search (hybrid.cpp) and its hFF (ff.cpp); the types they share in core.hpp. Everything else is declared
in pyproject.toml."""

from pybind11.setup_helpers import Pybind11Extension
from setuptools import setup

CPP = "src/genplan/cpp"
SOURCES = [f"{CPP}/{name}.cpp" for name in ("bindings", "wl", "search", "hybrid", "ff")]
HEADERS = [f"{CPP}/{name}.hpp" for name in ("core", "wl", "search", "search_parts", "ff")]
setup(ext_modules=[Pybind11Extension("genplan._wlsearch", SOURCES, depends=HEADERS, cxx_std=17,
                                     extra_compile_args=["-O2"])])
