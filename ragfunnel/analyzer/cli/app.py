"""The ``ragfunnel`` Typer app, its lazy command table and its entry point.

Each command module (``cli/ingest.py``, ``cli/analyze.py`` ...) imports :data:`app` from here
and decorates its own function with ``@app.command()``. Nothing imports a command module up
front: :data:`COMMANDS` names each command's module and one-line summary (pip's
``commands_dict`` is the model), ``ragfunnel --help`` lists the table, and a command's module
is imported only when that command is looked up — to run it, or to show its own ``--help``.
So ``ragfunnel --help`` and ``ragfunnel --version`` load neither polars nor chdb, and a command
module keeps its heavy imports inside its function (a test checks both).

This module must never import a command module at import time (the arrows point from the
commands to the app). A new command is a new entry in :data:`COMMANDS`.
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, get_args, get_origin

import typer
from typer import _click
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption
from typer.main import get_command_from_info, get_group_from_info

import ragfunnel.environment_variables as env
from ragfunnel.analyzer.cli.exits import parser_errors_in_one_line

__all__ = ["COMMANDS", "CommandEntry", "LazyGroup", "app", "main", "ragfunnel_version"]


@dataclass(frozen=True)
class CommandEntry:
    """One command of the table: the module that defines it and the summary ``--help`` lists."""

    module: str
    summary: str


COMMANDS: Mapping[str, CommandEntry] = {
    "demo": CommandEntry(
        "demo",
        "Run a small hybrid RAG pipeline (BM25 + LSA, fusion, reranker, confidence gate, cited "
        "answers) over the policy corpus shipped with ragfunnel, "
        "once clean and once with faults injected at known stages; trace both runs, ingest "
        "them into an embedded store, analyze them against the shipped cases, and check that "
        "the analysis blames each fault on its stage.",
    ),
    "ingest": CommandEntry(
        "ingest",
        "Load spans into the store: OTLP JSON lines (the SDK's or the collector's file "
        "exporter), Jaeger UI downloads and Jaeger API v3 answers, plain, gzip or zstd; or "
        "pull them from a running Jaeger.",
    ),
    "analyze": CommandEntry(
        "analyze",
        "Rebuild every question's funnel from the stored spans and say where each failure was "
        "born: ingestion, search, rerank, cut or generation (or ok).",
    ),
    "funnel": CommandEntry(
        "funnel",
        "Show one question's funnel: where each expected chunk was (indexed, candidate rank, "
        "rerank rank, prompt position), where it was lost and why, the answer verdict, flags "
        "and the trace id (a Jaeger link with --jaeger).",
    ),
    "judge": CommandEntry(
        "judge", "Rate each stored answer's claims against its prompt, and store the verdicts."
    ),
    "threshold": CommandEntry(
        "threshold", "Abstention per run, and a sweep of the confidence threshold."
    ),
    "report": CommandEntry(
        "report", "Diagnose where the answers of each run break, and what to fix first."
    ),
    "diff": CommandEntry(
        "diff", "Compare run RUN_B with run RUN_A on the cases both asked, pair by pair."
    ),
    "review": CommandEntry(
        "review", "Export this week's sheet of judged answers for people to label."
    ),
    "calibrate": CommandEntry(
        "calibrate", "Measure each judge's agreement with people, from a labelled review sheet."
    ),
    "store": CommandEntry("store", "Prepare a store for the analyzer, or see what it holds."),
    "cases": CommandEntry("cases", "Work on evaluation cases files."),
}
"""Command name → its module under ``ragfunnel.analyzer.cli`` and the summary ``--help`` lists,
in the order ``ragfunnel --help`` lists them. A test checks each summary against the first
paragraph of the command's own help."""

PACKAGE = "ragfunnel.analyzer.cli"


def ragfunnel_version() -> str:
    """The installed distribution's version (``0+unknown`` when run from a bare source tree)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("ragfunnel")
    except PackageNotFoundError:
        return "0+unknown"


# Plain metavars: the value a user types (PATH, TEXT, N), never a Python type (<list[Path]>).


def _plain_label(annotation: Any, param: TyperArgument | TyperOption) -> str:
    if get_origin(annotation) is list:
        annotation = get_args(annotation)[0]
    choices = param.type_descriptor.choices
    if choices:
        return "|".join(str(getattr(c, "value", c)) for c in choices)
    if annotation is bool:
        return ""
    if isinstance(annotation, type) and issubclass(annotation, Path):
        return "PATH"
    if annotation is int:
        return "N"
    if annotation is float:
        return "NUMBER"
    return "TEXT"


class _PlainOption(TyperOption):
    def display_type(self, ctx: _click.Context) -> str:
        if self.is_flag:
            return ""
        return _plain_label(self.type_descriptor.annotation, self)


class _PlainArgument(TyperArgument):
    def display_type(self, ctx: _click.Context) -> str:
        return self.metavar or _plain_label(self.type_descriptor.annotation, self)


def _plain(param: object) -> None:
    if type(param) is TyperOption:
        param.__class__ = _PlainOption
    elif type(param) is TyperArgument:
        param.__class__ = _PlainArgument


# A usage error the parser raises names the command it was parsing (``ragfunnel store info:
# ...``): the option parser leaves it unnamed (``--quiet=yes``, ``--store`` without a value).


def _parsed(ctx: _click.Context, parse: Callable[[], list[str]]) -> list[str]:
    try:
        return parse()
    except _click.exceptions.UsageError as exc:
        if exc.ctx is None:
            exc.ctx, exc.cmd = ctx, ctx.command
        raise


class _Command(TyperCommand):
    def parse_args(self, ctx: _click.Context, args: list[str]) -> list[str]:
        return _parsed(ctx, lambda: super(_Command, self).parse_args(ctx, args))


class _Group(TyperGroup):
    def parse_args(self, ctx: _click.Context, args: list[str]) -> list[str]:
        return _parsed(ctx, lambda: super(_Group, self).parse_args(ctx, args))


def plain_metavars(command: _click.Command) -> _click.Command:
    """Show every parameter of ``command`` (and of its subcommands) by a plain metavar.

    And let each name itself in the usage errors its parser raises.
    """
    if type(command) is TyperCommand:
        command.__class__ = _Command
    elif type(command) is TyperGroup:
        command.__class__ = _Group
    for param in command.params:
        _plain(param)
    built_help_option = command.get_help_option

    def help_option(ctx: _click.Context) -> TyperOption | None:
        option = built_help_option(ctx)
        _plain(option)
        return option

    # -h/--help is built on demand from the context; show it as a flag too (no "<bool>").
    setattr(command, "get_help_option", help_option)  # noqa: B010
    for sub in getattr(command, "commands", {}).values():
        plain_metavars(sub)
    return command


class LazyGroup(_Group):
    """The root group: lists :data:`COMMANDS` and imports a command's module when it is used.

    Every usage error of the parser, of this group or of any command under it, is shown as
    the one line of docs/cli.md (:func:`~ragfunnel.analyzer.cli.exits.parser_errors_in_one_line`).
    """

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        self._listing = False
        plain_metavars(self)

    def list_commands(self, ctx: _click.Context) -> list[str]:
        """The table's commands, then any registered outside it (none in a released build)."""
        return [*COMMANDS, *(name for name in self.commands if name not in COMMANDS)]

    def get_command(self, ctx: _click.Context, cmd_name: str) -> _click.Command | None:
        """The command ``cmd_name``, its module imported on first use (a stand-in while listing)."""
        if cmd_name in self.commands:
            return self.commands[cmd_name]
        entry = COMMANDS.get(cmd_name)
        if entry is None:
            return None
        if self._listing:  # ragfunnel --help: the summary is all it shows
            return TyperCommand(cmd_name, help=entry.summary, short_help=entry.summary)
        command = _load(cmd_name, entry)
        self.commands[cmd_name] = command
        return command

    def format_help(self, ctx: _click.Context, formatter: _click.HelpFormatter) -> None:
        """The group's help, listing the table without importing any command module."""
        self._listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False

    def make_context(
        self,
        info_name: str | None,
        args: list[str],
        parent: _click.Context | None = None,
        **extra: Any,
    ) -> _click.Context:
        """Parse the root's own flags; a usage error is one line."""
        with parser_errors_in_one_line():
            return super().make_context(info_name, args, parent, **extra)

    def invoke(self, ctx: _click.Context) -> Any:
        """Run the command; a usage error (its flags, a subcommand's) is one line."""
        with parser_errors_in_one_line():
            return super().invoke(ctx)

    def resolve_command(
        self, ctx: _click.Context, args: list[str]
    ) -> tuple[str | None, _click.Command | None, list[str]]:
        """Find the command; an unknown name fails with the close names of the table."""
        try:
            return self._click_resolve_command(ctx, args)
        except _click.exceptions.UsageError as exc:
            matches = difflib.get_close_matches(args[0], self.list_commands(ctx)) if args else []
            if matches:
                exc.message = (
                    exc.message.rstrip(".")
                    + ". Did you mean "
                    + ", ".join(repr(m) for m in matches)
                    + "?"
                )
            raise


def _load(name: str, entry: CommandEntry) -> _click.Command:
    importlib.import_module(f"{PACKAGE}.{entry.module}")
    for info in app.registered_commands:
        if info.name == name:
            command = get_command_from_info(
                info,
                pretty_exceptions_short=app.pretty_exceptions_short,
                rich_markup_mode=app.rich_markup_mode,
            )
            return plain_metavars(command)
    for group in app.registered_groups:
        if group.name == name:
            built = get_group_from_info(
                group,
                pretty_exceptions_short=app.pretty_exceptions_short,
                suggest_commands=app.suggest_commands,
                rich_markup_mode=app.rich_markup_mode,
            )
            return plain_metavars(built)
    raise RuntimeError(f"{PACKAGE}.{entry.module} registers no command {name!r}")


app = typer.Typer(
    name="ragfunnel",
    cls=LazyGroup,
    help="Find where each wrong RAG answer was born: ingest traces, rebuild funnels, report.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"ragfunnel {ragfunnel_version()}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            is_eager=True,
            callback=_print_version,
            help="Print ragfunnel's version and exit.",
        ),
    ] = False,
) -> None:
    """Find where each wrong RAG answer was born: ingest traces, rebuild funnels, report."""
    # A callback keeps ``ragfunnel COMMAND`` a group, and holds the group's own options.


POLARS_ALLOCATOR = ("_RJEM_MALLOC_CONF", "muzzy_decay_ms:0")
"""The option this command line gives polars' allocator (jemalloc), unless the variable is set.

Polars returns freed pages to the system lazily (``MADV_FREE``, its ``muzzy`` pages), and the
system counts them in the process's memory until it needs them back: one million-case analysis
peaked at 1,863 MiB without this option, 1,750 with it (bench/RESULTS.md, "Twenty-fourth
session").
Pages are still kept for reuse for half a second (polars' ``dirty_decay_ms``), then given back
at once. Polars reads the variable when it is first imported, which no command does before
:func:`main` runs; the judge's worker processes inherit it.
"""


def main() -> None:
    """Entry point of the ``ragfunnel`` console script."""
    env.default_for_this_process(*POLARS_ALLOCATOR)
    app()
