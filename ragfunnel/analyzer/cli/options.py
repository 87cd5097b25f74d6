"""The options several commands share, defined once: the same flag means the same thing everywhere.

Each is an ``Annotated`` type for a command's parameter, e.g. ``store: StoreOption = None``.
This module holds no command and never talks to a store.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

import ragfunnel.environment_variables as env

__all__ = [
    "CasesOption",
    "ChunksOption",
    "IndexManifestOption",
    "JaegerUrlOption",
    "JsonOption",
    "JsonlOption",
    "ParquetOption",
    "QuietOption",
    "ReadOnlyOption",
    "RunOption",
    "StoreOption",
]

StoreOption = Annotated[
    str | None,
    typer.Option(
        "--store",
        metavar="DSN",
        envvar=env.STORE,
        help="Where spans are stored: chdb:///path (embedded, default .ragfunnel/store) "
        "or http(s)://user@host:8123/database for a ClickHouse server.",
        show_default=False,
    ),
]
CasesOption = Annotated[
    Path | None,
    typer.Option("--cases", metavar="FILE", help="Evaluation cases: YAML, JSON, JSONL or CSV."),
]
ChunksOption = Annotated[
    Path | None,
    typer.Option(
        "--chunks",
        metavar="FILE",
        help="Chunk texts the spans did not record: JSON Lines or Parquet with id and text.",
    ),
]
RunOption = Annotated[
    list[str] | None,
    typer.Option("--run", metavar="ID", help="Only questions of this run (repeatable)."),
]
IndexManifestOption = Annotated[
    Path | None,
    typer.Option(
        "--index-manifest",
        metavar="FILE",
        help="Ids in the vector store (.txt one per line, .json array, .csv 'id' column).",
    ),
]
JsonOption = Annotated[
    Path | None,
    typer.Option(
        "--json",
        metavar="OUT",
        help="Write the result as one JSON document ('-' prints it instead of the text).",
    ),
]
JsonlOption = Annotated[
    Path | None,
    typer.Option("--jsonl", metavar="OUT", help="Write the per-question records as JSON Lines."),
]
QuietOption = Annotated[
    bool,
    typer.Option(
        "--quiet",
        "-q",
        help="Print nothing but errors and warnings (on stderr), no progress; files are "
        "still written.",
    ),
]
ParquetOption = Annotated[
    Path | None,
    typer.Option("--parquet", metavar="OUT", help="Write the per-question records as Parquet."),
]
JaegerUrlOption = Annotated[
    str | None,
    typer.Option(
        "--jaeger",
        metavar="URL",
        envvar=env.JAEGER_URL,
        help="Jaeger UI base URL, to print a link to the trace.",
    ),
]
ReadOnlyOption = Annotated[
    bool,
    typer.Option(
        "--read-only",
        help="Never write to the store, not even to prepare an embedded one "
        "(a server store is always opened read-only by the reading commands).",
    ),
]

# Shared by report and diff.
REPORT_FLAGS = {"jaeger_url": "--jaeger", "cases": "--cases"}
"""Library argument → flag, for the commands that analyze and report (report, diff)."""
JaegerOption = Annotated[
    str | None,
    typer.Option(
        "--jaeger", "--jaeger-url", metavar="URL", envvar=env.JAEGER_URL,
        help="Jaeger UI base URL: each question links to {URL}/trace/{trace_id}.",
    ),
]  # fmt: skip
"""The shared ``--jaeger`` option, also under the name the report issue gives it."""
KOption = Annotated[
    list[int] | None,
    typer.Option("--k", metavar="N", min=1,
                 help="Cut-off for ranking metrics (repeatable; default 1, 5, 10) besides the real cut."),
]  # fmt: skip
HtmlOption = Annotated[
    Path | None,
    typer.Option("--html", metavar="OUT", help="Write the report as one self-contained HTML file."),
]
SummaryOption = Annotated[
    Path | None,
    typer.Option("--json", metavar="OUT",
                 help="Write the report as JSON (docs/report.md, schema 1); '-' prints it instead of the text."),
]  # fmt: skip
TopOption = Annotated[
    int, typer.Option("--top", min=0, help="Worst questions shown (and drilled into) per run.")
]
