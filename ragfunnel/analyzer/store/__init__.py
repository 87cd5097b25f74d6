"""The span store: ClickHouse's ``otel_traces`` table, embedded (chdb) or on a server.

    from ragfunnel.analyzer.store import Store, migrate

    with Store.open("chdb://.ragfunnel/store") as store:     # or http(s)://user@host:8123/db;
                                                          # create=True to make a new one
        migrate(store)                                        # the analyzer's own tables

:mod:`.dsn` parses addresses, :mod:`.connection` holds the open :class:`Store`, :mod:`.opening`
lets public functions take a DSN or path for it,
:mod:`.tables` one module per table (its layout, typed row and every statement that reads or
writes it), :mod:`.schema` what a store has and what is current, and :mod:`.migrations` the
revisions that make every object the analyzer owns (docs/store.md and docs/deployment.md
describe them). No SQL statement against a table lives outside this package (but the two SQL
builders it runs: docs/architecture.md).
"""

from ragfunnel.analyzer.store.connection import Store
from ragfunnel.analyzer.store.dsn import DEFAULT_DSN, ENV_STORE, chosen_dsn, parse_dsn, redact_dsn
from ragfunnel.analyzer.store.migrations import Migration, migrate
from ragfunnel.analyzer.store.opening import StoreArg, takes_store
from ragfunnel.analyzer.store.store_error import StoreError
from ragfunnel.analyzer.store.tables.traces import TRACES_COLUMNS

__all__ = [
    "DEFAULT_DSN",
    "ENV_STORE",
    "TRACES_COLUMNS",
    "Migration",
    "Store",
    "StoreArg",
    "StoreError",
    "chosen_dsn",
    "migrate",
    "parse_dsn",
    "redact_dsn",
    "takes_store",
]
