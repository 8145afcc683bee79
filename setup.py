"""Build script: the elot package, its grammar, the REPL, and the Cython BToM core.

The extension modules are listed explicitly (see STYLE.md). ``pip install .`` compiles
them; if the compiler is missing the install fails loudly instead of shipping a package
whose core cannot import.
"""

import numpy
from Cython.Build import cythonize
from setuptools import Extension, find_packages, setup

extensions = [
    Extension(
        "btom_ext.core",
        ["btom_ext/core.pyx"],
        include_dirs=[numpy.get_include()],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        extra_compile_args=["-O3"],
    ),
    # value iteration's sweeps are C (btom_ext/value_iteration.h: vectors of columns, AVX2
    # chosen at run time); -ffp-contract=off keeps every multiply and add apart, so the bits
    # are the same whatever -march the build is given
    Extension(
        "btom_ext.planners",
        ["btom_ext/planners.pyx"],
        include_dirs=[numpy.get_include(), "btom_ext"],
        depends=["btom_ext/value_iteration.h"],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        extra_compile_args=["-O3", "-ffp-contract=off"],
    ),
    # The grounded PDDL state space: applicable actions, successors and the breadth-first
    # search over bitset states (elot.domains.pddl), twin of btom_ext/ground_reference.py.
    Extension(
        "btom_ext.ground",
        ["btom_ext/ground.pyx"],
        include_dirs=[numpy.get_include()],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        extra_compile_args=["-O3"],
    ),
    Extension(
        "btom_ext.particles",
        ["btom_ext/particles.pyx"],
        include_dirs=[numpy.get_include()],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        extra_compile_args=["-O3"],
    ),
]

setup(
    name="elot",
    version="0.1.0",
    description="Epistemic language of thought with a Bayesian theory of mind",
    long_description=open("README.md", encoding="utf-8").read(),
    long_description_content_type="text/markdown",
    license="MIT",
    python_requires=">=3.10",
    # The REPL (elot/repl) and the built-in scenarios (elot/scenarios) live inside the
    # package, so the checkout and an install have the same layout (see README, Layout).
    packages=find_packages(include=["elot", "elot.*", "btom_ext"]),
    package_data={
        "elot": ["grammar.lark", "data/*", "translate/data/*"],
        "elot.scenarios": ["*.scn"],
        # the survey's page and experiment templates (jsPsych itself is never shipped: npm installs it)
        "elot.survey": ["template/*"],
        # the language-model baselines' prompt templates (elot baseline --show-template): any
        # domain's scene, and each built-in domain's own
        "elot.domains": ["templates/*"],
        "elot.domains.doors_keys_gems": ["templates/*"],
        "elot.domains.foodtrucks": ["templates/*"],
        "btom_ext": ["*.pxd", "*.pyx", "*.h"],
    },
    ext_modules=cythonize(
        extensions,
        compiler_directives={
            "language_level": 3,
            "embedsignature": True,
            "boundscheck": False,
            "wraparound": False,
            "cdivision": True,
            "initializedcheck": False,
        },
    ),
    install_requires=[
        "lark>=1.1",
        "numpy>=1.24",
        "rich>=13",
        "prompt_toolkit>=3.0",
        "matplotlib>=3.7",
        # elot survey serve: participants' server (ASGI); pure Python (h11), no C build
        "uvicorn>=0.30",
        # PDDL domains and problems (elot.domains.pddl): a maintained parser (MIT, on lark,
        # which elot already uses) with immutable values and a formatter that round-trips, so
        # elot keeps no PDDL grammar of its own for standard PDDL; 0.4 is its first release
        # with numeric fluents and derived predicates.
        "pddl>=0.4,<0.6",
        # BLAS and OpenMP thread pools capped at run time (a batch's worker processes, the
        # planners' products): threadpoolctl knows how to ask OpenBLAS, MKL and BLIS alike,
        # after NumPy is imported, where an environment variable is read only before
        "threadpoolctl>=3.1",
    ],
    extras_require={
        # guidance runs the constrained decoder in the tests with its random Mock model; the
        # llama.cpp models themselves stay in the llm extra (a long native build).
        # pytest-xdist: the README's plain `pytest` runs on every core (-n auto in pyproject.toml).
        # Bounds are the releases the suite has run on: pytest 8.4.2 and 9.2.0, xdist 3.8.0. The
        # suite needs no xdist group (pytest 9.2 with xdist 3.8 ignores them: xdist issue #1386),
        # so the next minor releases are let in to be tried by CI (.ci/run upgrades within them).
        # pytest-randomly shuffles the order on every run, so no test can lean on another.
        "test": ["pytest>=8.4,<9.3", "pytest-xdist>=3.6,<3.9", "pytest-randomly>=3.15,<5.2",
                 "hypothesis>=6.80", "pexpect>=4.8", "guidance==0.3.1",
                 "distributed>=2024.1", "pyarrow>=14,<26",
                 # stimuli.json is validated against its JSON schema in the tests
                 "jsonschema>=4",
                 # drives the system's Chromium through the built survey (never downloads a browser)
                 "playwright>=1.40"],
        # elot batch --dask (a Dask distributed cluster) and Parquet tables.
        "dask": ["dask[distributed]>=2024.1"],
        # pyarrow 26 needs numpy 2; up to 25 it works with numpy 1.26 and 2.x alike.
        "parquet": ["pyarrow>=14,<26"],
        "llm": ["guidance==0.3.1", "llama-cpp-python>=0.3", "transformers>=4.45,<4.58"],
    },
    entry_points={"console_scripts": ["elot = elot.cli:main"]},
    zip_safe=False,
)
