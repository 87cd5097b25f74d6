"""Fixtures for analyzer tests: one embedded store path per session, a database per test.

chdb binds one data path per process, so the analyzer tests share a path and isolate themselves by
database; each store is closed at the end of its test, which frees the engine for other paths.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ragfunnel.analyzer.store import Store
from tests.support.store import open_test_database


@pytest.fixture(scope="session")
def store_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("store")


@pytest.fixture
def store(store_path: Path, request: pytest.FixtureRequest) -> Iterator[Store]:
    with open_test_database(store_path, request, "t") as opened:
        yield opened


@pytest.fixture(params=["native", "python"])
def converter(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run a test with each converter: the native one (ragfunnel-native), then pure Python."""
    from ragfunnel.analyzer.ingest import native as _native

    if request.param == "python":
        monkeypatch.setenv(_native.NATIVE_ENV, "0")
    else:
        monkeypatch.delenv(_native.NATIVE_ENV, raising=False)
        assert _native.available(), "ragfunnel-native is not installed (pip install ./native)"
    return str(request.param)
