"""Every error is one line, ``ragfunnel COMMAND: message (--flag)`` (docs/cli.md, "Errors").

The parser's own complaints included: an unknown flag, a value of the wrong type or out of
range, a flag without its value, a missing argument, an unknown command — on every command the
CLI registers, each named as the user called it, with exit status 2.
"""

from __future__ import annotations

import re

import pytest
import typer
from typer._click import Command
from typer.main import get_command
from typer.testing import CliRunner

from ragfunnel.analyzer.cli import app
from ragfunnel.analyzer.cli.app import COMMANDS
from ragfunnel.analyzer.cli.exits import EXIT_USAGE


def registered() -> dict[str, Command]:
    """Every command the CLI registers, groups and their subcommands too: name → command."""
    group = get_command(app)
    assert isinstance(group, typer.core.TyperGroup)
    ctx = typer.Context(group)
    found: dict[str, Command] = {}
    for name in COMMANDS:
        command = group.get_command(ctx, name)
        assert command is not None, name
        found[name] = command
        for sub, sub_command in getattr(command, "commands", {}).items():
            found[f"{name} {sub}"] = sub_command
    return found


COMMANDS_FOUND = registered()
LEAVES = [name for name, c in COMMANDS_FOUND.items() if not getattr(c, "commands", None)]


def numeric_flag(name: str) -> str:
    """A flag of ``name`` that takes a number (the first one), or '' when it has none."""
    for param in COMMANDS_FOUND[name].params:
        annotation = getattr(param, "type_descriptor", None)
        if param.param_type_name == "option" and getattr(annotation, "annotation", None) in (
            int,
            float,
            list[int],
        ):
            return next(o for o in param.opts if o.startswith("--"))
    return ""


NUMERIC = {name: flag for name in LEAVES if (flag := numeric_flag(name))}


def valued_flag(name: str) -> str:
    """A flag of ``name`` that takes a value (the first one), or '' when it has none."""
    for param in COMMANDS_FOUND[name].params:
        if isinstance(param, typer.core.TyperOption) and not param.is_flag:
            return next(o for o in param.opts if o.startswith("--"))
    return ""


VALUED = {name: flag for name in LEAVES if (flag := valued_flag(name))}


def invoke(*args: str) -> typer.testing.Result:
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "80"})


def one_line(result: typer.testing.Result, command: str) -> str:
    """The message of the one line on stderr (nothing on stdout), after its command."""
    assert result.exit_code == EXIT_USAGE, result.output
    assert result.stdout == "", result.stdout
    called = f"ragfunnel {command}".rstrip()
    assert result.stderr.endswith("\n") and result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith(f"{called}: "), result.stderr
    assert not re.search(r"[╭│╰]|Usage:|Try '", result.stderr), result.stderr
    return result.stderr[len(called) + 2 : -1]


def test_every_command_is_tried() -> None:
    assert {"analyze", "judge", "report", "store", "store info", "cases rebase"} <= set(
        COMMANDS_FOUND
    )
    assert set(NUMERIC) >= {"analyze", "judge", "report", "diff", "review"}
    assert set(VALUED) == set(LEAVES) - {"calibrate"}  # LABELS and --quiet are all it takes


@pytest.mark.parametrize("command", ["", *COMMANDS_FOUND])
def test_an_unknown_flag_is_one_line_naming_it(command: str) -> None:
    message = one_line(invoke(*command.split(), "--bogus"), command)
    called = f"ragfunnel {command}".rstrip()
    assert message == f"no such flag, `{called} -h` lists them (--bogus)"


@pytest.mark.parametrize("command", LEAVES)
def test_a_flag_given_a_value_it_does_not_take_is_one_line(command: str) -> None:
    assert one_line(invoke(*command.split(), "--quiet=yes"), command) == (
        "does not take a value (--quiet)"
    )


@pytest.mark.parametrize("command", sorted(VALUED))
def test_a_flag_without_its_value_is_one_line(command: str) -> None:
    flag = VALUED[command]
    assert one_line(invoke(*command.split(), flag), command) == f"needs a value ({flag})"


@pytest.mark.parametrize("command", sorted(NUMERIC))
def test_a_value_of_the_wrong_type_is_one_line_naming_the_flag(command: str) -> None:
    flag = NUMERIC[command]
    message = one_line(invoke(*command.split(), flag, "many"), command)
    assert message.endswith(f" ({flag})") and "valid" in message, message


def test_the_short_flag_the_docs_do_not_have() -> None:
    message = one_line(invoke("judge", "-n"), "judge")
    assert message == "no such flag, `ragfunnel judge -h` lists them (-n)"


def test_a_close_flag_is_suggested() -> None:
    assert one_line(invoke("analyze", "--top-k", "5"), "analyze") == (
        "no such flag, did you mean --k? (--top-k)"
    )


def test_out_of_range_and_missing_arguments_name_theirs() -> None:
    assert one_line(invoke("judge", "--workers", "0"), "judge").endswith(" (--workers)")
    assert one_line(invoke("cases", "rebase"), "cases rebase") == "missing argument (CASES)"
    assert one_line(invoke("cases", "rebase", "cases.yaml"), "cases rebase") == (
        "missing option (--from-index)"
    )
    assert one_line(invoke("analyze", "surplus"), "analyze") == (
        "got unexpected extra argument(s) (surplus)"
    )


def test_an_unknown_command_is_one_line_with_the_close_ones() -> None:
    assert one_line(invoke("jduge"), "") == "no such command 'jduge'; did you mean 'judge'?"
    assert one_line(invoke("store", "infos"), "store").startswith("no such command 'infos'")


def test_a_group_without_a_command_still_shows_its_help() -> None:
    for args in ([], ["store"]):
        result = invoke(*args)
        assert "Usage: ragfunnel" in result.output and "Commands" in result.output, args
