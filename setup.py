"""The compiled part of genplan: `genplan._wlsearch` (greedy best-first searches with a linear WL
heuristic in C++, issue 57): the bindings in src/genplan/_wlsearch.cpp, the heuristic in
_wlsearch_wl.cpp, the searches in _wlsearch_search.cpp (what they share in _wlsearch_core.hpp), the
hybrid search in _wlsearch_hybrid.cpp and its hFF in _wlsearch_ff.cpp. Everything else is declared
in pyproject.toml."""

from pybind11.setup_helpers import Pybind11Extension
from setuptools import setup

SOURCES = ["src/genplan/_wlsearch.cpp", "src/genplan/_wlsearch_wl.cpp", "src/genplan/_wlsearch_search.cpp",
           "src/genplan/_wlsearch_hybrid.cpp", "src/genplan/_wlsearch_ff.cpp"]
HEADERS = ["src/genplan/_wlsearch_wl.hpp", "src/genplan/_wlsearch_search.hpp", "src/genplan/_wlsearch_core.hpp",
           "src/genplan/_wlsearch_ff.hpp"]
setup(ext_modules=[Pybind11Extension("genplan._wlsearch", SOURCES, depends=HEADERS, cxx_std=17,
                                     extra_compile_args=["-O2"])])
