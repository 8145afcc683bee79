"""Shared test fixtures: where the LaBToM reference data is, Hypothesis profiles, and what
CI adds to the report."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

REPO = Path(__file__).resolve().parent.parent

# Property tests, by the profile $HYPOTHESIS_PROFILE names: ``ci`` (what CI runs, where
# $CI is set) is thorough; ``dev`` (the default elsewhere) tries few examples, for the
# everyday loop. A test asking for its own number gets it under ``ci`` and at most the
# ``dev`` profile's under ``dev`` (helpers.examples).
settings.register_profile(
    "ci", max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "dev", max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


def pytest_configure(config):
    """In CI (``$CI`` set) the report ends with the 25 slowest tests, so that a test growing
    slow is seen; ``.ci/run`` runs the README's plain ``pytest``, so it is set here."""
    if os.environ.get("CI") and not config.getoption("durations", None):
        config.option.durations = 25


def labtom_path() -> Path | None:
    """The reference dataset: $ELOT_LABTOM_DATA, else ../shared/labtom beside the repo."""
    env = os.environ.get("ELOT_LABTOM_DATA")
    candidates = [Path(env)] if env else []
    candidates.append(REPO.parent / "shared" / "labtom")
    for path in candidates:
        if (path / "domain.pddl").is_file():
            return path
    return None


@pytest.fixture(scope="session")
def labtom() -> Path:
    """Path of the LaBToM dataset; tests using it are skipped when it is absent."""
    path = labtom_path()
    if path is None:
        pytest.skip("LaBToM dataset not found (set ELOT_LABTOM_DATA or put it at ../shared/labtom)")
    return path


def baker2017_path() -> Path | None:
    """The food-truck experiment: $ELOT_BAKER2017_DATA, else ../shared/baker2017 beside the repo."""
    env = os.environ.get("ELOT_BAKER2017_DATA")
    for path in ([Path(env)] if env else []) + [REPO.parent / "shared" / "baker2017"]:
        if (path / "scenarios.json").is_file():
            return path
    return None


@pytest.fixture(scope="session")
def baker2017() -> Path:
    """Path of the food-truck experiment's data; tests using it are skipped when it is absent."""
    path = baker2017_path()
    if path is None:
        pytest.skip("the food-truck data are not at ../shared/baker2017 (or $ELOT_BAKER2017_DATA)")
    return path


def alanqary2021_path() -> Path | None:
    """Alanqary et al. (2021)'s data: $ELOT_ALANQARY2021_DATA, else ../shared/alanqary2021."""
    env = os.environ.get("ELOT_ALANQARY2021_DATA")
    for path in ([Path(env)] if env else []) + [REPO.parent / "shared" / "alanqary2021"]:
        if (path / "doors-keys-gems" / "domain.pddl").is_file() and (path / "block-words" / "domain.pddl").is_file():
            return path
    return None


@pytest.fixture(scope="session")
def alanqary2021() -> Path:
    """Path of Alanqary et al.'s two PDDL studies; tests using it are skipped when it is absent."""
    path = alanqary2021_path()
    if path is None:
        pytest.skip("the Alanqary et al. 2021 data are not at ../shared/alanqary2021 (or $ELOT_ALANQARY2021_DATA)")
    return path
