"""The clickhouse-connect clients a :class:`~.connection.Store` runs on: embedded or server.

chdb runs one engine per process, bound to one data path: while a store on path A is open, a
store on path B cannot be (closing every store on A frees the engine, :func:`release_engine`).
Stores on the *same* path may be open together. Opening never lets a password reach a message.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Any

from clickhouse_connect.driver.exceptions import ClickHouseError

from ragfunnel.analyzer.store.dsn import Target
from ragfunnel.analyzer.store.store_error import StoreError

__all__ = ["CLIENT_ERRORS", "open_embedded", "open_server", "release_engine"]

CLIENT_ERRORS = (ClickHouseError, OSError, ValueError)
"""What clickhouse-connect raises: its own errors, plus OS and Arrow errors from the transport."""

# chdb allows one engine path per process; remember which path is in use and by how many stores.
_engine_lock = threading.Lock()
_engine_users: dict[str, int] = {}

EMBEDDED_OUTPUT = {
    "output_format_arrow_compression_method": "none",
    "output_format_arrow_parallel_encoding": 0,
}
"""How the embedded engine hands query results to this process (every query's setting).

Its Arrow output is LZ4-compressed by default, for a network this process never crosses: the
engine compressed and pyarrow decompressed every result in the same address space, about a
tenth of a funnel batch's query (bench/RESULTS.md, "Issue 35, seventeenth session"). Encoding
on the query's own thread, not a pool of its own, leaves the other core to the work beside it.
"""


def release_engine(path: str) -> None:
    """One store on the embedded engine at ``path`` closed: free the engine when it was the last."""
    with _engine_lock:
        left = _engine_users.get(path, 0) - 1
        if left > 0:
            _engine_users[path] = left
        else:
            _engine_users.pop(path, None)


def open_embedded(target: Target, *, create: bool, settings: dict[str, Any]) -> Any:
    """A chdb client on ``target``'s path (made with ``create``); the engine holds one path."""
    import clickhouse_connect

    if not create and not Path(target.path).is_dir():
        raise StoreError(
            f"there is no store at {target.redacted}: run `ragfunnel ingest` first (only "
            "ingest creates a store), or give the store that holds the traces",
            argument="dsn",
        )
    with _engine_lock:
        busy = [path for path, users in _engine_users.items() if users and path != target.path]
        if busy:
            raise StoreError(
                f"cannot open {target.redacted}: the embedded engine (chdb) of this process is "
                f"bound to chdb://{busy[0]} until every store on it is closed — chdb allows one "
                "store path per process (use one path with several databases instead)"
            )
        Path(target.path).mkdir(parents=True, exist_ok=True)
        try:
            client = clickhouse_connect.get_client(
                interface="chdb", path=target.path, settings={**EMBEDDED_OUTPUT, **settings}
            )
        except CLIENT_ERRORS as exc:
            holder = _locked_by_another_process(Path(target.path))
            if holder is not None:
                raise StoreError(
                    f"the store {target.redacted} is in use by another process{holder}: an "
                    "embedded store is opened by one process at a time. Wait until that ingest "
                    "or analysis ends, or give this one another store (--store)."
                ) from None
            raise StoreError(f"cannot open the embedded store {target.redacted}: {exc}") from None
        _engine_users[target.path] = _engine_users.get(target.path, 0) + 1
    return client


def _locked_by_another_process(path: Path) -> str | None:
    """`` (pid N)`` or ``""`` if another process holds the engine's lock on ``path``, else None.

    The engine keeps its ``status`` file locked (``flock``) while it runs on a path.
    """
    import fcntl

    status = path / "status"
    try:
        with status.open("rb") as file:
            try:
                fcntl.flock(file, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                found = re.search(rb"PID:\s*(\d+)", file.read(4096))
                return f" (pid {found.group(1).decode()})" if found else ""
            fcntl.flock(file, fcntl.LOCK_UN)
    except OSError:
        return None
    return None


def open_server(target: Target, *, settings: dict[str, Any]) -> Any:
    """An HTTP(S) client on the ClickHouse server of ``target``."""
    import clickhouse_connect

    try:
        return clickhouse_connect.get_client(
            host=target.host,
            port=target.port,
            username=target.username,
            password=target.password,
            secure=target.secure,
            interface="https" if target.secure else "http",
            settings=settings,
        )
    except CLIENT_ERRORS as exc:
        raise StoreError(f"cannot connect to {target.redacted}: {target.scrub(exc)}") from None
