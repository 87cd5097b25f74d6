"""Fixtures of the demo's tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.chat_server import ChatServer, serving


@pytest.fixture
def chat_server() -> Iterator[ChatServer]:
    with serving() as server:
        yield server
