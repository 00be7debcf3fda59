"""Shared test fixtures: the optional ../shared folder and Hypothesis profiles."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Verbosity, settings
from hypothesis.database import DirectoryBasedExampleDatabase

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("TCMCHECK_SHARED", REPO.parent / "shared"))

# Profiles, chosen by TCMCHECK_HYPOTHESIS_PROFILE (docs/stateful.md): `ci` is the default run;
# `fuzz` many examples with an example database kept between runs (where failures are replayed
# first), at TCMCHECK_HYPOTHESIS_DB or .hypothesis/examples; `debug` prints every example and
# step; `dev` and `thorough` as before.
settings.register_profile(
    "ci", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "fuzz", max_examples=2000, deadline=None, stateful_step_count=30,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    database=DirectoryBasedExampleDatabase(
        os.environ.get("TCMCHECK_HYPOTHESIS_DB", str(REPO / ".hypothesis" / "examples"))),
)
settings.register_profile(
    "debug", max_examples=10, deadline=None, verbosity=Verbosity.verbose, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", max_examples=30, deadline=None)
settings.register_profile(
    "thorough", max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
PROFILES = ("ci", "fuzz", "debug", "dev", "thorough")
PROFILE = os.environ.get("TCMCHECK_HYPOTHESIS_PROFILE", "ci")
if PROFILE not in PROFILES:
    raise pytest.UsageError(f"TCMCHECK_HYPOTHESIS_PROFILE={PROFILE!r}: unknown profile "
                            f"(one of {', '.join(PROFILES)})")
settings.load_profile(PROFILE)

def shared_path(*parts: str) -> Path:
    """A path under ../shared, or skip the test: a user's clone does not have that folder."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"needs {path} (the project's shared/ folder beside the checkout); not present")
    return path


@pytest.fixture
def shared() -> Path:
    if not SHARED.exists():
        pytest.skip(f"needs {SHARED} (the project's shared/ folder beside the checkout); not present")
    return SHARED
