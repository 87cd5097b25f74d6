"""The one mapping from library errors to what the command line shows: one line and exit 1.

Every command runs its library calls inside :func:`reported`. An :class:`AnalyzerError` (bad
input, an unreachable store, a missing file) becomes ``ragfunnel COMMAND: message``, followed
by the flag that sets the argument the error names. Anything else is a bug and keeps its
traceback: this module must never catch a bare ``ValueError`` or ``Exception``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import NoReturn

import typer

from ragfunnel.analyzer.cases import CaseError
from ragfunnel.analyzer.errors import AnalyzerError

__all__ = ["FLAGS", "fail", "reported"]

FLAGS: Mapping[str, str] = {
    "dsn": "--store or RAGFUNNEL_STORE",
    "database": "--store",
    "cases": "--cases",
    "index_manifest": "--index-manifest",
    "k": "--k",
    "run": "--run",
}
"""Library argument → the flag that sets it, for every command; a command may add its own."""

# CaseError is named on its own too: the cases module's errors join AnalyzerError separately.
_USER_ERRORS = (AnalyzerError, CaseError)


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
    except _USER_ERRORS as exc:
        fail(command, describe(exc, flags))
