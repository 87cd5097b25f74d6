"""The ``ragfunnel`` command line: a thin layer over the analyzer's library functions.

Commands parse arguments, call the library, and turn library errors into one clear message with
a non-zero exit (:mod:`.errors`). Every command module is imported here, statically, so that
importing this package registers every command on :data:`app`.
"""

from ragfunnel.analyzer.cli import (
    analyze,
    calibrate,
    demo,
    diff,
    funnel,
    ingest,
    judge,
    report,
    review,
    store,
    threshold,
)
from ragfunnel.analyzer.cli.app import app, main

__all__ = ["COMMAND_MODULES", "app", "main"]

COMMAND_MODULES = (
    demo,
    ingest,
    analyze,
    funnel,
    judge,
    threshold,
    report,
    diff,
    review,
    calibrate,
    store,
)
"""The command modules, in the order ``ragfunnel --help`` lists their commands."""
