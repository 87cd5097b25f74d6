"""Fixtures of the funnel tests: a trace builder per test (the store fixture is the analyzer's)."""

from __future__ import annotations

import pytest

from tests.support.traces import TraceBuilder


@pytest.fixture
def b() -> TraceBuilder:
    return TraceBuilder()
