"""The ``ragfunnel`` command line: a thin layer over the analyzer's library functions.

Commands parse arguments, call the library, and turn library errors into one clear message with
a non-zero exit. Each command group lives in its own ``_cli_*`` module and registers itself here.
"""

from __future__ import annotations

import typer

from ragfunnel.analyzer import _cli_common

app = typer.Typer(
    name="ragfunnel",
    help="Find where each wrong RAG answer was born: ingest traces, rebuild funnels, report.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _root() -> None:
    """Find where each wrong RAG answer was born: ingest traces, rebuild funnels, report."""
    # A callback keeps ``ragfunnel COMMAND`` a group even while only one command is registered.


_cli_common.register_all(app)


def main() -> None:
    """Entry point of the ``ragfunnel`` console script."""
    app()
