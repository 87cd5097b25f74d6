"""The one mapping from library errors (and notices) to what the command line shows.

Every command runs its library calls inside :func:`reported`. An :class:`AnalyzerError` (bad
input, an unreachable store, a missing file) becomes ``ragfunnel COMMAND: message``, followed
by the flag that sets the argument the error names, and exit status 1; an
:class:`InvalidArgument` (a value no call could take, a run the store does not hold) is a usage
error, status 2, like a flag the parser rejects. The parser's own complaints (an unknown flag,
a value of the wrong type, a missing argument) take the same one-line form, by
:func:`parser_errors_in_one_line`. The statuses are :data:`EXIT_CODES` (docs/cli.md). Anything
else is a bug and keeps its traceback: this module must never catch a bare ``ValueError`` or
``Exception``. A library notice (how an analysis ran) is shown by :func:`show_notices`, in the
CLI's terms.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, NoReturn

import typer
from typer import _click
from typer._click.exceptions import (
    BadOptionUsage,
    BadParameter,
    MissingParameter,
    NoArgsIsHelpError,
    NoSuchOption,
    UsageError,
)

from ragfunnel.analyzer.errors import AnalyzerError, InvalidArgument

if TYPE_CHECKING:
    from ragfunnel.analyzer.report import Report

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
    "parser_errors_in_one_line",
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
    """Print ``ragfunnel COMMAND: message`` on stderr and exit ``code`` (1).

    ``command`` is empty for the root (``ragfunnel --bogus``): ``ragfunnel: message``.
    """
    typer.echo(f"{_called(command)}: {message}", err=True)
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


@contextmanager
def parser_errors_in_one_line() -> Iterator[None]:
    """Turn the parser's usage errors raised inside into :func:`fail`'s one line, exit 2.

    The parser (Typer's click) would print a usage block and a boxed message; docs/cli.md
    promises ``ragfunnel COMMAND: message (--flag)`` for every error. ``ragfunnel`` alone (or
    ``ragfunnel store``) still shows the help, as it is no error.
    """
    try:
        yield
    except NoArgsIsHelpError:
        raise
    except UsageError as exc:
        fail(_command_of(exc.ctx), _parser_message(exc), code=exc.exit_code)


def _called(command: str) -> str:
    """How the user called ``command``: ``ragfunnel store info``, or ``ragfunnel`` for the root."""
    return f"ragfunnel {command}" if command else "ragfunnel"


def _command_of(ctx: _click.Context | None) -> str:
    """``store info`` for the context of ``ragfunnel store info``; empty for the root."""
    names: list[str] = []
    while ctx is not None and ctx.parent is not None:
        names.insert(0, ctx.info_name or "")
        ctx = ctx.parent
    return " ".join(names)


def _parser_message(exc: UsageError) -> str:
    if isinstance(exc, NoSuchOption):
        if exc.possibilities:
            hint = f"did you mean {', '.join(sorted(exc.possibilities))}?"
        else:
            hint = f"`{_called(_command_of(exc.ctx))} -h` lists them"
        return f"no such flag, {hint} ({exc.option_name})"
    if isinstance(exc, MissingParameter):
        kind = exc.param_type or (exc.param.param_type_name if exc.param else "parameter")
        return f"missing {kind} ({_flag_of(exc)})"
    if isinstance(exc, BadParameter):
        return f"{_clause(exc.message)} ({_flag_of(exc)})"
    if isinstance(exc, BadOptionUsage):  # "Option '--k' requires an argument."
        said = exc.message.removeprefix(f"Option {exc.option_name!r} ")
        said = said.replace("requires an argument", "needs a value")
        return f"{_clause(said)} ({exc.option_name})"
    return _clause(exc.message)  # an unknown command, extra arguments


def _flag_of(exc: BadParameter) -> str:
    """The flag (``--k``, the long one) or the argument (``CASES``) a bad value was given to."""
    if exc.param_hint:
        hint = exc.param_hint
        return hint if isinstance(hint, str) else " / ".join(hint)
    param = exc.param
    if param is None:
        return "?"
    if param.param_type_name == "option" and param.opts:
        return next((o for o in param.opts if o.startswith("--")), param.opts[0])
    return param.display_name_raw


def _clause(message: str) -> str:
    """A message as a clause of the one line: no capital (unless an acronym), no full stop."""
    text = message.strip().rstrip(".").replace(". Did you mean", "; did you mean")
    if len(text) > 1 and text[0].isupper() and text[1].islower():
        text = text[0].lower() + text[1:]
    return text


def notice_wording() -> Mapping[str, str]:
    """Library notices → the command line's wording of them (read when a notice is shown)."""
    from ragfunnel.analyzer.funnel import READ_TIME_NOTICE

    return {
        READ_TIME_NOTICE: "otel_traces was parsed at read time, as the store has no current "
        "stage table: `ragfunnel store migrate` creates it, once, and makes every later "
        "analysis faster (it needs CREATE rights: docs/deployment.md)",
    }


def worded_notices(notices: tuple[str, ...]) -> tuple[str, ...]:
    """Each notice once, in the command line's words (what a report page shows, too)."""
    wording = notice_wording() if notices else {}
    return tuple(wording.get(notice, notice) for notice in dict.fromkeys(notices))


def worded_report(report: Report) -> Report:
    """``report`` with its notices in the command line's words, as the page and JSON show them."""
    return dataclasses.replace(report, notices=worded_notices(report.notices))


def show_notices(command: str, notices: tuple[str, ...]) -> None:
    """Print each notice once, on stderr, as ``ragfunnel COMMAND: note: ...``."""
    for notice in worded_notices(notices):
        typer.echo(f"ragfunnel {command}: note: {notice}", err=True)
