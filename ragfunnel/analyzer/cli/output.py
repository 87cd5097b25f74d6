"""What every command writes, one way: JSON documents and records, times, and --quiet.

The conventions (docs/cli.md):

- ``--json OUT`` writes the command's result — what its text says — as one JSON document;
  ``--json -`` prints that document on stdout instead of the text.
- ``--jsonl OUT`` / ``--parquet OUT`` write per-row records (questions, verdicts, sheet rows).
- ``--quiet`` / ``-q`` prints nothing on stdout but what was asked for (``--json -``); errors,
  warnings and problems still go to stderr, files are still written, no progress is shown.
- Every time is ISO 8601 with its zone (``2026-12-01T21:00:00+00:00``); the store's times are
  UTC, so a time without a zone is written as UTC.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import sys
from collections.abc import Iterable, Mapping
from decimal import Decimal
from pathlib import Path
from typing import Any

import typer

__all__ = [
    "STDOUT",
    "iso",
    "json_text",
    "jsonable",
    "say",
    "write_json",
    "write_jsonl",
]

STDOUT = "-"
"""The ``--json`` value that means: print the document instead of the text."""


def iso(value: dt.datetime | dt.date) -> str:
    """ISO 8601 with a zone; a naive datetime is the store's UTC."""
    if isinstance(value, dt.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=dt.timezone.utc)
        return value.isoformat()
    return value.isoformat()


def jsonable(value: Any) -> Any:
    """``value`` with every datetime as :func:`iso`, NaN as null, tuples and sets as lists."""
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [jsonable(v) for v in value]
    if isinstance(value, (dt.datetime, dt.date)):
        return iso(value)
    if isinstance(value, dt.timedelta):
        return value.total_seconds()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return value


def json_text(data: Any) -> str:
    """One JSON document, indented, UTF-8 characters kept, newline-terminated."""
    return json.dumps(jsonable(data), indent=2, ensure_ascii=False) + "\n"


def write_json(data: Any, out: Path, command: str) -> bool:
    """Write ``data`` to ``out`` (``-``: stdout). True when it went to a file."""
    if str(out) == STDOUT:
        sys.stdout.write(json_text(data))
        return False
    try:
        out.write_text(json_text(data), encoding="utf-8")
    except OSError as exc:
        from ragfunnel.analyzer.cli.exits import fail

        fail(command, f"{out}: cannot write: {exc.strerror or exc}")
    return True


def write_jsonl(rows: Iterable[Mapping[str, Any]], out: Path, command: str) -> int:
    """Write one JSON object per line; returns how many."""
    count = 0
    try:
        with out.open("w", encoding="utf-8") as handle:
            for row in rows:
                handle.write(json.dumps(jsonable(row), ensure_ascii=False) + "\n")
                count += 1
    except OSError as exc:
        from ragfunnel.analyzer.cli.exits import fail

        fail(command, f"{out}: cannot write: {exc.strerror or exc}")
    return count


def say(text: str, *, quiet: bool = False) -> None:
    """Print ``text`` on stdout unless ``--quiet``."""
    if not quiet:
        typer.echo(text)
