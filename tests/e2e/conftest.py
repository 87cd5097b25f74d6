"""The e2e tests' stack fixture: the real collector and Jaeger (``tests/support/collector.py``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.collector import Stack, running_stack


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    yield from running_stack(tmp_path_factory)
