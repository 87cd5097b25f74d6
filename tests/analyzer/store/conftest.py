"""Fixtures of the store's tests: an embedded store of the test's own, at a path of its own."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ragfunnel.analyzer.store import Store


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "store"


@pytest.fixture
def opened(path: Path) -> Iterator[Store]:
    with Store.open(f"chdb://{path}", create=True) as store:
        yield store
