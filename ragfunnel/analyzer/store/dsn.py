"""Store addresses (DSNs): parsing, redaction, and the identifiers that may appear in SQL.

A store is addressed by one DSN:

- ``chdb:///abs/path`` or ``chdb://relative/path`` (relative to the working directory): the
  embedded ClickHouse engine, in this process. A bare filesystem path means the same.
- ``http(s)://user:password@host:8123/database``: a ClickHouse server or cluster. The user and
  password may instead come from ``CLICKHOUSE_USER`` / ``CLICKHOUSE_PASSWORD``.

This module must never let a password reach a message, and never let an identifier that is
not a plain name reach SQL text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

import ragfunnel.environment_variables as env
from ragfunnel.analyzer.store.store_error import StoreError

__all__ = [
    "DEFAULT_DSN",
    "ENV_STORE",
    "Target",
    "check_identifier",
    "chosen_dsn",
    "parse_dsn",
    "quote",
    "redact_dsn",
]

DEFAULT_DSN = "chdb://.ragfunnel/store"
"""The embedded store under the working directory; ``RAGFUNNEL_STORE`` overrides it."""

ENV_STORE = env.STORE
ENV_USER = "CLICKHOUSE_USER"
ENV_PASSWORD = "CLICKHOUSE_PASSWORD"  # noqa: S105 - the variable's name, not a password


def chosen_dsn(dsn: str | None) -> str:
    """The store a command uses: ``--store``, else ``RAGFUNNEL_STORE``, else the embedded default."""
    return dsn or env.read(ENV_STORE) or DEFAULT_DSN


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]{0,127}")
_HTTP_PORTS = {"http": 8123, "https": 8443}


@dataclass(frozen=True)
class Target:
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
        """The DSN without its password, for messages."""
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


def parse_dsn(dsn: str) -> Target:
    """Parse a DSN; a bare path means an embedded store.

    Raises:
        StoreError: an unknown scheme, no host or path, or an unparsable URL.
    """
    if "://" not in dsn:
        return _embedded_target(dsn)
    scheme, _, rest = dsn.partition("://")
    scheme = scheme.lower()
    if scheme == "chdb":
        if not rest:
            raise StoreError(
                "the chdb DSN names no path: use chdb:///abs/path or chdb://relative/path",
                argument="dsn",
            )
        return _embedded_target(rest)
    if scheme in _HTTP_PORTS:
        try:
            parts = urlsplit(dsn)
            port = parts.port or _HTTP_PORTS[scheme]
        except ValueError as exc:
            raise StoreError(
                f"cannot parse the store DSN {redact_dsn(dsn)}: {exc}", argument="dsn"
            ) from None
        if not parts.hostname:
            raise StoreError(f"the store DSN {redact_dsn(dsn)} names no host", argument="dsn")
        database = unquote(parts.path.strip("/").split("/")[0]) if parts.path else ""
        return Target(
            embedded=False,
            host=parts.hostname,
            port=port,
            secure=scheme == "https",
            username=unquote(parts.username) if parts.username else env.read(ENV_USER, "default"),
            password=unquote(parts.password) if parts.password else env.read(ENV_PASSWORD, ""),
            database=database,
        )
    raise StoreError(
        f"unknown store scheme {scheme!r} in {redact_dsn(dsn)}: use chdb:///path, "
        "http://host:8123/database or https://host:8443/database",
        argument="dsn",
    )


def _embedded_target(path: str) -> Target:
    return Target(embedded=True, path=str(Path(path).expanduser().absolute()))


def redact_dsn(dsn: str) -> str:
    """``dsn`` with any password replaced by ``***``, for messages."""
    scheme, sep, rest = dsn.partition("://")
    if not sep:
        return dsn
    # The user information ends at the last '@': a password may hold an unencoded '/' or '@'.
    userinfo, at, after = rest.rpartition("@")
    if not at or ":" not in userinfo:
        return dsn
    return f"{scheme}://{userinfo.split(':', 1)[0]}:***@{after}"


def check_identifier(kind: str, name: str) -> str:
    """``name`` if it may be a ``kind`` (database, table) name in SQL, else StoreError."""
    if not _IDENTIFIER.fullmatch(name):
        raise StoreError(
            f"{kind} name {name!r} is not allowed: use letters, digits, '_' or '-' (at most 128)",
            argument=kind,
        )
    return name


def quote(*names: str) -> str:
    """Backquoted, dot-joined identifiers (already checked), e.g. ```otel`.`otel_traces```."""
    return ".".join(f"`{name}`" for name in names)
