"""Store fixtures' helpers: one database per test in a shared embedded store path.

chdb binds one data path per process, so tests share a path and isolate themselves by database.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from ragfunnel.analyzer.store import Store


def database_name(request: pytest.FixtureRequest, prefix: str) -> str:
    """A database name of the test's own: its module's dotted name and its node name.

    Basenames and test names repeat across test packages, databases must not; a long name is cut
    and keeps a hash of the whole so two long names stay apart.
    """
    whole = f"{request.module.__name__.removeprefix('tests.')}__{request.node.name}"
    name = re.sub(r"[^A-Za-z0-9_]", "_", whole)
    if len(name) > 110:
        name = f"{name[:100]}_{hashlib.sha1(whole.encode()).hexdigest()[:9]}"
    return f"{prefix}_{name}"


@contextmanager
def open_test_database(
    store_path: Path, request: pytest.FixtureRequest, prefix: str
) -> Iterator[Store]:
    """Open the test's database in the embedded store at ``store_path``; close it afterwards."""
    dsn = f"chdb://{store_path}"
    with Store.open(dsn, database=database_name(request, prefix), create=True) as opened:
        yield opened
