"""The one mapping from library errors (and notices) to what the command line shows.

Every command runs its library calls inside :func:`reported`. An :class:`AnalyzerError` (bad
input, an unreachable store, a missing file) becomes ``ragfunnel COMMAND: message``, followed
by the flag that sets the argument the error names. Anything else is a bug and keeps its
traceback: this module must never catch a bare ``ValueError`` or ``Exception``. A library
notice (how an analysis ran) is shown by :func:`show_notices`, in the CLI's terms.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import NoReturn

import typer

from ragfunnel.analyzer.errors import AnalyzerError

__all__ = ["FLAGS", "describe", "fail", "notice_wording", "reported", "show_notices"]

FLAGS: Mapping[str, str] = {
    "dsn": "--store or RAGFUNNEL_STORE",
    "database": "--store",
    "cases": "--cases",
    "index_manifest": "--index-manifest",
    "k": "--k",
    "run": "--run",
}
"""Library argument → the flag that sets it, for every command; a command may add its own."""


def fail(command: str, message: str) -> NoReturn:
    """Print ``ragfunnel COMMAND: message`` on stderr and exit 1."""
    typer.echo(f"ragfunnel {command}: {message}", err=True)
    raise typer.Exit(1)


def describe(exc: Exception, flags: Mapping[str, str] | None = None) -> str:
    """``exc``'s message, with the flag of the argument it names (if any) in parentheses."""
    message = str(exc)
    argument = getattr(exc, "argument", "")
    flag = {**FLAGS, **(flags or {})}.get(argument) if argument else None
    return f"{message} ({flag})" if flag else message


@contextmanager
def reported(command: str, *, flags: Mapping[str, str] | None = None) -> Iterator[None]:
    """Turn an analyzer error raised inside into :func:`fail`; ``flags`` adds argument names."""
    try:
        yield
    except AnalyzerError as exc:
        fail(command, describe(exc, flags))


def notice_wording() -> Mapping[str, str]:
    """Library notices → the command line's wording of them (read when a notice is shown)."""
    from ragfunnel.analyzer.funnel.stage_source import READ_TIME_NOTICE

    return {
        READ_TIME_NOTICE: "otel_traces was parsed at read time, as the store has no current "
        "stage table: `ragfunnel store migrate` creates it, once, and makes every later "
        "analysis faster (it needs CREATE rights: docs/deployment.md)",
    }


def show_notices(command: str, notices: tuple[str, ...]) -> None:
    """Print each notice once, on stderr, as ``ragfunnel COMMAND: note: ...``."""
    wording = notice_wording() if notices else {}
    for notice in dict.fromkeys(notices):
        typer.echo(f"ragfunnel {command}: note: {wording.get(notice, notice)}", err=True)
