"""Options and error handling shared by every CLI command, and the list of command modules."""

from __future__ import annotations

import importlib
from typing import Annotated

import typer

StoreOption = Annotated[
    str | None,
    typer.Option(
        "--store",
        envvar="RAGFUNNEL_STORE",
        help="Where spans are stored: chdb:///path (embedded, default .ragfunnel/store) "
        "or http(s)://user@host:8123/database for a ClickHouse server.",
        show_default=False,
    ),
]

# Each module defines ``register(app: typer.Typer) -> None``.
COMMAND_MODULES: tuple[str, ...] = (
    "ragfunnel.analyzer._cli_ingest",
    "ragfunnel.analyzer._cli_funnel",
)


def register_all(app: typer.Typer) -> None:
    """Attach every command module's commands to ``app``."""
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(app)
