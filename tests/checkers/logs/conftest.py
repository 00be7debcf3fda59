"""Tests marked `slow` run only when asked for (`pytest -m slow`): CI runs plain `pytest -n 2`."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _slow_only_on_request(request: pytest.FixtureRequest) -> None:
    if request.node.get_closest_marker("slow") and "slow" not in (request.config.option.markexpr or ""):
        pytest.skip("slow: run with -m slow")
