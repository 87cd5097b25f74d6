"""The ``ragfunnel`` Typer app and its entry point; commands attach themselves to :data:`app`.

Each command module (``cli/ingest.py``, ``cli/analyze.py`` ...) imports :data:`app` from here
and decorates its own function with ``@app.command()``; ``cli/__init__.py`` imports every
command module, so importing ``ragfunnel.analyzer.cli`` gives the complete app. This module
must never import a command module (the arrows point from the commands to the app).
"""

from __future__ import annotations

import typer

__all__ = ["app", "main"]

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


def main() -> None:
    """Entry point of the ``ragfunnel`` console script."""
    app()
