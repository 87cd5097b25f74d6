"""The one mapping from library errors (and notices) to what the command line shows.

Every command runs its library calls inside :func:`reported`. An :class:`AnalyzerError` (bad
input, an unreachable store, a missing file) becomes ``ragfunnel COMMAND: message``, followed
by the flag that sets the argument the error names, and exit status 1; an
:class:`InvalidArgument` (a value no call could take, a run the store does not hold) is a usage
error, status 2, like a flag the parser rejects. The statuses are :data:`EXIT_CODES`
(docs/cli.md). Anything else is a bug and keeps its
traceback: this module must never catch a bare ``ValueError`` or ``Exception``. A library
notice (how an analysis ran) is shown by :func:`show_notices`, in the CLI's terms.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import NoReturn

import typer

from ragfunnel.analyzer.errors import AnalyzerError, InvalidArgument

__all__ = [
    "EXIT_CODES",
    "EXIT_FAILURE",
    "EXIT_GATE",
    "EXIT_OK",
    "EXIT_USAGE",
    "FLAGS",
    "describe",
    "fail",
    "notice_wording",
    "reported",
    "show_notices",
    "usage_error",
]

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_GATE = 3
EXIT_CODES: Mapping[int, str] = {
    EXIT_OK: "success",
    EXIT_FAILURE: "failure: bad input data, an unreachable store, a file that cannot be written",
    EXIT_USAGE: "usage error: an unknown flag, a bad value, an unknown run, flags that conflict",
    EXIT_GATE: "a CI gate was breached (report --fail-under/--fail-over, diff --fail-on-regression)",
}
"""Every exit status of every command, and what it means (the table in docs/cli.md)."""

FLAGS: Mapping[str, str] = {
    "dsn": "--store or RAGFUNNEL_STORE",
    "database": "--store",
    "cases": "--cases",
    "index_manifest": "--index-manifest",
    "k": "--k",
    "run": "--run",
}
"""Library argument → the flag that sets it, for every command; a command may add its own."""


def fail(command: str, message: str, *, code: int = EXIT_FAILURE) -> NoReturn:
    """Print ``ragfunnel COMMAND: message`` on stderr and exit ``code`` (1)."""
    typer.echo(f"ragfunnel {command}: {message}", err=True)
    raise typer.Exit(code)


def usage_error(command: str, message: str) -> NoReturn:
    """Print ``ragfunnel COMMAND: message`` on stderr and exit 2 (the command was misused)."""
    fail(command, message, code=EXIT_USAGE)


def describe(exc: Exception, flags: Mapping[str, str] | None = None) -> str:
    """``exc``'s message, with the flag of the argument it names (if any) in parentheses."""
    message = str(exc)
    argument = getattr(exc, "argument", "")
    flag = {**FLAGS, **(flags or {})}.get(argument) if argument else None
    return f"{message} ({flag})" if flag else message


@contextmanager
def reported(
    command: str, *, flags: Mapping[str, str] | None = None, usage: bool = False
) -> Iterator[None]:
    """Turn an analyzer error raised inside into :func:`fail`; ``flags`` adds argument names.

    ``usage``: every analyzer error inside is a usage error (exit 2), e.g. while parsing flags.
    """
    try:
        yield
    except InvalidArgument as exc:
        usage_error(command, describe(exc, flags))
    except AnalyzerError as exc:
        fail(command, describe(exc, flags), code=EXIT_USAGE if usage else EXIT_FAILURE)


def notice_wording() -> Mapping[str, str]:
    """Library notices → the command line's wording of them (read when a notice is shown)."""
    from ragfunnel.analyzer.funnel import READ_TIME_NOTICE

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
