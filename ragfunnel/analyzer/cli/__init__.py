"""The ``ragfunnel`` command line: a thin layer over the analyzer's library functions.

Commands parse arguments, call the library, and turn library errors into one clear message with
a non-zero exit (:mod:`.errors`). The command table (:data:`.app.COMMANDS`) is lazy: a command's
module is imported only when that command runs or shows its help, so that ``ragfunnel --help``
and ``ragfunnel --version`` start fast. ``COMMAND_MODULES`` imports them all, for tools that
want every command at once.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

from ragfunnel.analyzer.cli.app import COMMANDS, app, main

__all__ = ["COMMANDS", "COMMAND_MODULES", "app", "main"]


def __getattr__(name: str) -> Any:
    if name == "COMMAND_MODULES":  # every command module, in the order --help lists them
        modules: tuple[ModuleType, ...] = tuple(
            importlib.import_module(f"{__name__}.{entry.module}") for entry in COMMANDS.values()
        )
        return modules
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
