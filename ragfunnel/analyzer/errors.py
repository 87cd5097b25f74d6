"""The one root of every error the analyzer raises on purpose.

Library code raises subclasses of :class:`AnalyzerError` with messages in API terms (argument
and field names, files and lines); the CLI turns any ``AnalyzerError`` into one line and a
non-zero exit, adding the flag that corresponds to the argument. Anything that is not an
``AnalyzerError`` is a bug and keeps its traceback.
"""

from __future__ import annotations

__all__ = ["AnalyzerError", "InvalidArgument"]


class AnalyzerError(Exception):
    """Something the user can fix: bad input, an unreachable store, a missing file.

    Attributes:
        argument: the name of the library argument at fault (``dsn``, ``url``, ``since`` ...),
            when one is; the CLI names the flag that sets it.
    """

    def __init__(self, message: str = "", *, argument: str = "") -> None:
        super().__init__(message)
        self.argument = argument


class InvalidArgument(AnalyzerError, ValueError):
    """An argument of a library call has a value it cannot take; the message names it."""
