"""The compiled part of genplan: `genplan._wlsearch` (eager GBFS with a linear WL heuristic in C++,
src/genplan/_wlsearch.cpp, issue 57). Everything else is declared in pyproject.toml."""

from pybind11.setup_helpers import Pybind11Extension
from setuptools import setup

setup(ext_modules=[Pybind11Extension("genplan._wlsearch", ["src/genplan/_wlsearch.cpp"], cxx_std=17,
                                     extra_compile_args=["-O2"])])
