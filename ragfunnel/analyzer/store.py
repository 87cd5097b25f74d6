"""The span store: ClickHouse's ``otel_traces`` table, embedded (chdb) or on a server.

One client library (clickhouse-connect), one SQL dialect and one schema — the OpenTelemetry
Collector clickhouseexporter's ``otel_traces`` (v0.165) — whether spans come from a laptop's
trace files or a production collector. A store is addressed by one DSN:

- ``chdb:///abs/path`` or ``chdb://relative/path`` (relative to the working directory): the
  embedded ClickHouse engine, in this process. A bare filesystem path means the same.
- ``http(s)://user:password@host:8123/database``: a ClickHouse server or cluster. The user and
  password may instead come from ``CLICKHOUSE_USER`` / ``CLICKHOUSE_PASSWORD``.

chdb runs one engine per process, bound to one data path: while a store on path A is open, a
store on path B cannot be (closing every store on A frees the engine). Stores on the *same*
path may be open together, and several databases live side by side under one path, so tests
that need isolated stores either close each store before opening the next or share one path
with a database each.

This module must never put a user value into SQL text (values go as bound parameters;
identifiers are validated and quoted) and never let a password reach a message.
"""

from __future__ import annotations

import math
import os
import re
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import unquote, urlsplit

from clickhouse_connect.driver.exceptions import ClickHouseError

if TYPE_CHECKING:
    import polars
    import pyarrow

__all__ = [
    "DEFAULT_DSN",
    "ENV_STORE",
    "TRACES_COLUMNS",
    "Store",
    "StoreError",
    "redact_dsn",
]

DEFAULT_DSN = "chdb://.ragfunnel/store"
"""The embedded store under the working directory; ``RAGFUNNEL_STORE`` overrides it."""

ENV_STORE = "RAGFUNNEL_STORE"
ENV_USER = "CLICKHOUSE_USER"
ENV_PASSWORD = "CLICKHOUSE_PASSWORD"  # noqa: S105 - the variable's name, not a password

TRACES_COLUMNS: dict[str, str] = {
    "Timestamp": "DateTime64(9)",
    "TraceId": "String",
    "SpanId": "String",
    "ParentSpanId": "String",
    "TraceState": "String",
    "SpanName": "LowCardinality(String)",
    "SpanKind": "LowCardinality(String)",
    "ServiceName": "LowCardinality(String)",
    "ResourceAttributes": "Map(LowCardinality(String), String)",
    "ScopeName": "String",
    "ScopeVersion": "String",
    "SpanAttributes": "Map(LowCardinality(String), String)",
    "Duration": "UInt64",
    "StatusCode": "LowCardinality(String)",
    "StatusMessage": "String",
    "Events.Timestamp": "Array(DateTime64(9))",
    "Events.Name": "Array(LowCardinality(String))",
    "Events.Attributes": "Array(Map(LowCardinality(String), String))",
    "Links.TraceId": "Array(String)",
    "Links.SpanId": "Array(String)",
    "Links.TraceState": "Array(String)",
    "Links.Attributes": "Array(Map(LowCardinality(String), String))",
}
"""The columns of ``otel_traces`` as ``system.columns`` reports them (Nested ones flattened)."""

# The clickhouseexporter's DDL (v0.165, internal/sqltemplates/traces_table.sql), restated for
# ragfunnel; like the exporter's, without a TTL unless one is configured. The exporter also makes
# an `otel_traces_trace_id_ts` lookup table fed by a materialized view, for Grafana's trace
# search; ragfunnel does not need it, and the view would cost every insert a GROUP BY, so an
# embedded store goes without it (a collector-made table keeps its view, and ingest feeds it).
_TRACES_DDL = """
CREATE TABLE IF NOT EXISTS {table} (
    Timestamp DateTime64(9) CODEC(Delta, ZSTD(3)),
    TraceId String CODEC(ZSTD(3)),
    SpanId String CODEC(ZSTD(3)),
    ParentSpanId String CODEC(ZSTD(3)),
    TraceState String CODEC(ZSTD(3)),
    SpanName LowCardinality(String) CODEC(ZSTD(3)),
    SpanKind LowCardinality(String) CODEC(ZSTD(3)),
    ServiceName LowCardinality(String) CODEC(ZSTD(3)),
    ResourceAttributes Map(LowCardinality(String), String) CODEC(ZSTD(3)),
    ScopeName String CODEC(ZSTD(3)),
    ScopeVersion String CODEC(ZSTD(3)),
    SpanAttributes Map(LowCardinality(String), String) CODEC(ZSTD(3)),
    Duration UInt64 CODEC(ZSTD(3)),
    StatusCode LowCardinality(String) CODEC(ZSTD(3)),
    StatusMessage String CODEC(ZSTD(3)),
    Events Nested (
        Timestamp DateTime64(9),
        Name LowCardinality(String),
        Attributes Map(LowCardinality(String), String)
    ) CODEC(ZSTD(3)),
    Links Nested (
        TraceId String,
        SpanId String,
        TraceState String,
        Attributes Map(LowCardinality(String), String)
    ) CODEC(ZSTD(3)),
    INDEX idx_trace_id TraceId TYPE bloom_filter(0.001) GRANULARITY 1,
    INDEX idx_res_attr_key mapKeys(ResourceAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_res_attr_value mapValues(ResourceAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_span_attr_key mapKeys(SpanAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_span_attr_value mapValues(SpanAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_duration Duration TYPE minmax GRANULARITY 1
) ENGINE = MergeTree()
PARTITION BY toDate(Timestamp)
ORDER BY (ServiceName, SpanName, toDateTime(Timestamp))
SETTINGS index_granularity = 8192, ttl_only_drop_parts = 1
"""

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]{0,127}")
_SPACES = re.compile(r"\s+")
_HTTP_PORTS = {"http": 8123, "https": 8443}

_ROWS_PER_FILE = 10_000
"""An embedded insert uses one file (and thread) per this many rows, up to one per core."""

_TMP = tempfile.gettempdir()
_TMP_IS_GLOB = bool(re.search(r"[*?{}\[\]]", _TMP))  # file() would read it as a glob: not used

# What clickhouse-connect raises: its own errors, plus OS and Arrow errors from the transport.
_CLIENT_ERRORS = (ClickHouseError, OSError, ValueError)

# chdb allows one engine path per process; remember which path is in use and by how many stores.
_engine_lock = threading.Lock()
_engine_users: dict[str, int] = {}


class StoreError(Exception):
    """The store cannot be opened or used; the message says why and never holds a password."""


@dataclass(frozen=True)
class _Target:
    """A parsed DSN."""

    embedded: bool
    path: str = ""
    host: str = ""
    port: int = 0
    secure: bool = False
    username: str = ""
    password: str = ""
    database: str = ""

    def scrub(self, exc: BaseException) -> str:
        """``exc``'s message, with the password (if any) replaced by ``***``."""
        message = str(exc).strip() or type(exc).__name__
        return message.replace(self.password, "***") if self.password else message

    @property
    def redacted(self) -> str:
        if self.embedded:
            return f"chdb://{self.path}"
        scheme = "https" if self.secure else "http"
        user = (
            f"{self.username}:***@"
            if self.password
            else (f"{self.username}@" if self.username else "")
        )
        database = f"/{self.database}" if self.database else ""
        return f"{scheme}://{user}{self.host}:{self.port}{database}"


def _parse_dsn(dsn: str) -> _Target:
    if "://" not in dsn:
        return _embedded_target(dsn)
    scheme, _, rest = dsn.partition("://")
    scheme = scheme.lower()
    if scheme == "chdb":
        if not rest:
            raise StoreError(
                "the chdb DSN names no path: use chdb:///abs/path or chdb://relative/path"
            )
        return _embedded_target(rest)
    if scheme in _HTTP_PORTS:
        try:
            parts = urlsplit(dsn)
            port = parts.port or _HTTP_PORTS[scheme]
        except ValueError as exc:
            raise StoreError(f"cannot parse the store DSN {redact_dsn(dsn)}: {exc}") from None
        if not parts.hostname:
            raise StoreError(f"the store DSN {redact_dsn(dsn)} names no host")
        database = unquote(parts.path.strip("/").split("/")[0]) if parts.path else ""
        return _Target(
            embedded=False,
            host=parts.hostname,
            port=port,
            secure=scheme == "https",
            username=unquote(parts.username)
            if parts.username
            else os.environ.get(ENV_USER, "default"),
            password=unquote(parts.password)
            if parts.password
            else os.environ.get(ENV_PASSWORD, ""),
            database=database,
        )
    raise StoreError(
        f"unknown store scheme {scheme!r} in {redact_dsn(dsn)}: use chdb:///path, "
        "http://host:8123/database or https://host:8443/database"
    )


def _embedded_target(path: str) -> _Target:
    return _Target(embedded=True, path=str(Path(path).expanduser().absolute()))


def redact_dsn(dsn: str) -> str:
    """``dsn`` with any password replaced by ``***``, for messages."""
    scheme, sep, rest = dsn.partition("://")
    if not sep:
        return dsn
    authority, slash, tail = rest.partition("/")
    userinfo, at, hostport = authority.rpartition("@")
    if at and ":" in userinfo:
        userinfo = userinfo.split(":", 1)[0] + ":***"
    return f"{scheme}://{userinfo}{at}{hostport}{slash}{tail}"


def _check_identifier(kind: str, name: str) -> str:
    if not _IDENTIFIER.fullmatch(name):
        raise StoreError(
            f"{kind} name {name!r} is not allowed: use letters, digits, '_' or '-' (at most 128)"
        )
    return name


def _quote(*names: str) -> str:
    return ".".join(f"`{name}`" for name in names)


class Store:
    """An open ``otel_traces`` store; create one with :meth:`Store.open`.

    Attributes:
        dsn_redacted: the DSN without its password, for messages.
        client: the clickhouse-connect client (embedded ``ChdbClient`` or HTTP client).
        database: the database holding the traces table.
        table: the traces table's name.
        traces_table: the quoted qualified table name, e.g. ```otel`.`otel_traces```.
    """

    dsn_redacted: str
    client: Any
    database: str
    table: str
    traces_table: str

    def __init__(self, target: _Target, client: Any, database: str, table: str) -> None:
        self._target = target
        self._closed = False
        self.client = client
        self.dsn_redacted = target.redacted
        self.database = database
        self.table = table
        self.traces_table = _quote(database, table)

    @classmethod
    def open(
        cls,
        dsn: str | None = None,
        *,
        database: str = "otel",
        table: str = "otel_traces",
        create: bool = True,
    ) -> Store:
        """Open the store at ``dsn`` (else ``$RAGFUNNEL_STORE``, else :data:`DEFAULT_DSN`).

        With ``create`` the database and the exporter's tables are created when missing; an
        existing table is checked column by column and never recreated. A database named in an
        HTTP DSN's path takes precedence over ``database``.

        Raises:
            StoreError: bad DSN, unreachable server, failed login, or a table whose columns
                differ from the exporter's ``otel_traces``.
        """
        target = _parse_dsn(dsn or os.environ.get(ENV_STORE) or DEFAULT_DSN)
        database = _check_identifier("database", target.database or database)
        table = _check_identifier("table", table)
        client = _open_embedded(target, create=create) if target.embedded else _open_server(target)
        store = cls(target, client, database, table)
        try:
            store._prepare(create=create)
        except BaseException:
            store.close()
            raise
        return store

    def __enter__(self) -> Store:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Store({self.dsn_redacted!r}, table={self.traces_table})"

    def close(self) -> None:
        """Close the client; for an embedded store, release the engine when no store uses it."""
        if self._closed:
            return
        self._closed = True
        try:
            self.client.close()
        finally:
            if self._target.embedded:
                with _engine_lock:
                    left = _engine_users.get(self._target.path, 0) - 1
                    if left > 0:
                        _engine_users[self._target.path] = left
                    else:
                        _engine_users.pop(self._target.path, None)

    def query_arrow(self, sql: str, parameters: dict[str, Any] | None = None) -> pyarrow.Table:
        """Run ``sql``; values are bound from ``parameters`` and written ``{name:Type}`` in the SQL."""
        try:
            return self.client.query_arrow(sql, parameters=parameters, use_strings=True)
        except _CLIENT_ERRORS as exc:
            raise self._error("query failed", exc) from None

    def query_df(self, sql: str, parameters: dict[str, Any] | None = None) -> polars.DataFrame:
        """Run ``sql`` and return a polars DataFrame (strings as ``pl.String``)."""
        import polars

        return cast("polars.DataFrame", polars.from_arrow(self.query_arrow(sql, parameters)))

    def command(self, sql: str, parameters: dict[str, Any] | None = None) -> object:
        """Run a statement that returns at most a single value."""
        try:
            return self.client.command(sql, parameters=parameters)
        except _CLIENT_ERRORS as exc:
            raise self._error("command failed", exc) from None

    def insert_arrow(self, table: str, data: pyarrow.Table, *, temporary: bool = False) -> None:
        """Insert ``data`` into ``table``, a table of :attr:`database`, in one Arrow block.

        With ``temporary``, ``table`` is a temporary table of this session (it belongs to no
        database).
        """
        _check_identifier("table", table)
        where = _quote(table) if temporary else _quote(self.database, table)
        try:
            if temporary:
                self.client.insert_arrow(table, data)
            else:
                self.client.insert_arrow(table, data, database=self.database)
        except _CLIENT_ERRORS as exc:
            raise self._error(f"insert into {where} failed", exc) from None

    def insert_traces(self, data: pyarrow.Table) -> None:
        """Insert ``otel_traces`` rows (columns named as the table's, Nested ones flattened).

        A server receives one Arrow block. The embedded engine receives the rows as Arrow
        files, one per core, read by one ``INSERT ... SELECT ... FROM file()``: it then sorts
        and compresses a part per file in parallel (ZSTD(3) compression is most of an insert's
        cost), where one block would be written by one thread, and runs the materialized views
        on the table alongside the table's own write.
        """
        if not self._target.embedded or _TMP_IS_GLOB:
            self.insert_arrow(self.table, data)
            return
        try:
            self._insert_files(data)
        except _CLIENT_ERRORS as exc:
            raise self._error(f"insert into {self.traces_table} failed", exc) from None

    def _insert_files(self, data: pyarrow.Table) -> None:
        import pyarrow as pa

        files = max(1, min(os.cpu_count() or 1, data.num_rows // _ROWS_PER_FILE))
        step = math.ceil(data.num_rows / files)
        columns = data.schema.names
        with tempfile.TemporaryDirectory(prefix="ragfunnel-insert-", dir=_TMP) as folder:
            for number in range(files):
                with pa.ipc.new_file(f"{folder}/{number}.arrow", data.schema) as writer:
                    writer.write_table(data.slice(number * step, step))
            names = ", ".join(_quote(name) for name in columns)
            self.client.command(
                f"INSERT INTO {self.traces_table} ({names}) SELECT {names} "
                "FROM file({files:String}, 'Arrow', {structure:String}) "
                f"SETTINGS max_insert_threads = {files}, max_threads = {files}, "
                # Keep the files' blocks apart, one part each, instead of squashing them; feed
                # the views hanging off the table (the funnel's) alongside, not after, the table.
                "min_insert_block_size_rows = 0, min_insert_block_size_bytes = 0, "
                "parallel_view_processing = 1",
                parameters={
                    "files": f"{folder}/{{0..{files - 1}}}.arrow",
                    "structure": ", ".join(
                        f"{_quote(name)} {TRACES_COLUMNS[name]}" for name in columns
                    ),
                },
            )

    def _error(self, what: str, exc: BaseException) -> StoreError:
        return StoreError(f"{what} on {self.dsn_redacted}: {self._target.scrub(exc)}")

    def _prepare(self, *, create: bool) -> None:
        found = self._columns(self.table)
        if not found:
            if not create:
                raise StoreError(
                    f"there is no table {self.traces_table} in {self.dsn_redacted}: "
                    "ingest traces first (ragfunnel ingest), or point --store at the right place"
                )
            self._create_schema()
            found = self._columns(self.table)
        self._check_columns(found)

    def _columns(self, table: str) -> dict[str, str]:
        result = self.query_arrow(
            "SELECT name, type FROM system.columns WHERE database = {db:String} AND table = {t:String}",
            {"db": self.database, "t": table},
        )
        names = result.column("name").to_pylist()
        types = result.column("type").to_pylist()
        return dict(zip(names, types, strict=True))

    def _check_columns(self, found: dict[str, str]) -> None:
        problems = []
        for name, expected in TRACES_COLUMNS.items():
            actual = found.get(name)
            if actual is None:
                problems.append(f"{name} is missing")
            elif _SPACES.sub("", actual) != _SPACES.sub("", expected):
                problems.append(f"{name} is {actual}, expected {expected}")
        if problems:
            raise StoreError(
                f"table {self.traces_table} in {self.dsn_redacted} does not have the "
                f"clickhouseexporter otel_traces schema (v0.165): {'; '.join(problems)}. "
                "ragfunnel never alters an existing table: use another table or database."
            )

    def _create_schema(self) -> None:
        self.command(f"CREATE DATABASE IF NOT EXISTS {_quote(self.database)}")
        self.command(_TRACES_DDL.format(table=self.traces_table))


def _open_embedded(target: _Target, *, create: bool) -> Any:
    import clickhouse_connect

    if not create and not Path(target.path).is_dir():
        raise StoreError(f"there is no store at {target.redacted}")
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
            client = clickhouse_connect.get_client(interface="chdb", path=target.path)
        except _CLIENT_ERRORS as exc:
            raise StoreError(f"cannot open the embedded store {target.redacted}: {exc}") from None
        _engine_users[target.path] = _engine_users.get(target.path, 0) + 1
    return client


def _open_server(target: _Target) -> Any:
    import clickhouse_connect

    try:
        return clickhouse_connect.get_client(
            host=target.host,
            port=target.port,
            username=target.username,
            password=target.password,
            secure=target.secure,
            interface="https" if target.secure else "http",
        )
    except _CLIENT_ERRORS as exc:
        raise StoreError(f"cannot connect to {target.redacted}: {target.scrub(exc)}") from None
