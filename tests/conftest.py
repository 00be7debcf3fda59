"""Shared test fixtures: the optional ../shared folder and Hypothesis profiles."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("TCMCHECK_SHARED", REPO.parent / "shared"))

settings.register_profile(
    "ci", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", max_examples=30, deadline=None)
settings.register_profile(
    "thorough", max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("TCMCHECK_HYPOTHESIS_PROFILE", "ci"))


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
