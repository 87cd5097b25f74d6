from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ragfunnel.analyzer.judges import Chunk
from ragfunnel.analyzer.store import Store
from tests.support.store import open_test_database


@pytest.fixture(scope="session")
def store_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("judges-store")


@pytest.fixture
def store(store_path: Path, request: pytest.FixtureRequest) -> Iterator[Store]:
    """An embedded store with a database of its own (chdb: one path per process)."""
    with open_test_database(store_path, request, "j") as opened:
        yield opened


@pytest.fixture
def hotel_taxi() -> list[Chunk]:
    """The worked example's prompt: access rights, hotel allowance 120 EUR, taxi from 22:00."""
    return [
        Chunk(
            "access-rights", "Zugriffsrechte für das Reiseportal beantragt man im IT-Ticketsystem."
        ),
        Chunk("hotel-allowance", "Die Hotelpauschale beträgt 120 EUR pro Nacht."),
        Chunk("taxi", "Ein Taxi ist ab 22:00 Uhr erlaubt; vorher gilt der ÖPNV."),
    ]
