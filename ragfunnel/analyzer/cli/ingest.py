"""``ragfunnel ingest``: load trace files, or a running Jaeger's traces, into the store."""

from __future__ import annotations

import datetime as dt
import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ragfunnel.analyzer.cli.app import app
from ragfunnel.analyzer.cli.exits import fail, reported, usage_error
from ragfunnel.analyzer.cli.options import JsonOption, QuietOption, StoreOption
from ragfunnel.analyzer.cli.output import STDOUT, iso, say, write_json
from ragfunnel.analyzer.errors import AnalyzerError
from ragfunnel.analyzer.nouns import count
from ragfunnel.instrumentation import DEFAULT_TRACE_DIR

if TYPE_CHECKING:
    from ragfunnel.analyzer.ingest import IngestSummary

SHOWN_PROBLEMS = 20
"""Problems printed one per line; the rest are counted."""

SLOW_HINT_SPANS = 100_000
"""From this many spans on, an ingest without the native converter says how to speed it up."""

INGEST_HELP = """Load spans into the store: OTLP JSON lines (the SDK's or the collector's \
file exporter), Jaeger UI downloads and Jaeger API v3 answers, plain, gzip or zstd; or pull \
them from a running Jaeger.

Formats are recognised by content. Folders are read recursively; quote globs to let ragfunnel \
expand them. Without PATH, the default trace folder .ragfunnel/traces/ is read. Spans already \
in the store are not added again, so ingesting the same files twice is safe. Each line or span \
that cannot be read is reported as file:line: reason, and the rest is ingested. Files read before are \
passed over if unchanged, and read on from where the last ingest stopped if they grew.

Exit code 1 when nothing could be read, or with --strict when anything was skipped.

\b
Examples:
  ragfunnel ingest
  ragfunnel ingest traces/ 'exports/*.json.gz' --store chdb:///data/ragfunnel
  ragfunnel ingest --from-jaeger http://localhost:16686 --service rag-api --since 1h
"""

FLAGS = {"url": "--from-jaeger", "service": "--service", "since": "--since", "paths": "PATH"}
"""Library arguments of ingest and the flags that set them."""


@app.command("ingest", help=INGEST_HELP)
def ingest(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(
            help="Trace files, folders or globs (default: .ragfunnel/traces/).", show_default=False
        ),
    ] = None,
    *,
    store: StoreOption = None,
    strict: Annotated[
        bool, typer.Option("--strict", help="Fail (exit 1) if any line or span is skipped.")
    ] = False,
    from_jaeger: Annotated[
        str | None,
        typer.Option(
            "--from-jaeger",
            metavar="URL",
            help="Pull from Jaeger's API v3 at URL, e.g. http://localhost:16686.",
        ),
    ] = None,
    service: Annotated[
        str | None,
        typer.Option(
            "--service",
            metavar="NAME",
            help="With --from-jaeger: the service whose traces to pull.",
        ),
    ] = None,
    since: Annotated[
        str,
        typer.Option(
            "--since",
            metavar="DURATION",
            help="With --from-jaeger: how far back, e.g. 30m, 1h, 2d.",
        ),
    ] = "1h",
    rescan: Annotated[
        bool,
        typer.Option(
            "--rescan", help="Read every file from its start, even those an earlier ingest read."
        ),
    ] = False,
    json_out: JsonOption = None,
    quiet: QuietOption = False,
) -> None:
    """Load spans into the store (see INGEST_HELP)."""
    from ragfunnel.analyzer.ingest import ingest_paths, pull_from_jaeger
    from ragfunnel.analyzer.store import Store

    if from_jaeger and paths:
        usage_error("ingest", "give either PATHs or --from-jaeger, not both")
    if bool(from_jaeger) != bool(service):
        usage_error("ingest", "--from-jaeger URL and --service NAME go together")
    if not from_jaeger and not paths and not DEFAULT_TRACE_DIR.is_dir():
        fail(
            "ingest",
            f"no PATH given and no trace folder at {DEFAULT_TRACE_DIR}/ "
            "(an app writes there once ragfunnel.configure() has run)",
        )
    to_stdout = json_out is not None and str(json_out) == STDOUT
    quiet = quiet or to_stdout
    with _no_empty_store(store) as (done, fresh):
        with reported("ingest", flags=FLAGS), Store.open(store, create=True) as opened:
            if from_jaeger and service:
                summary = pull_from_jaeger(opened, from_jaeger, service, since)
            else:
                summary = ingest_paths(
                    opened,
                    paths or [DEFAULT_TRACE_DIR],
                    strict=strict,
                    progress=not quiet and sys.stderr.isatty(),
                    rescan=rescan,
                )
        done.append(summary.read)
        if fresh is not None and summary.read:  # a mistyped --store is seen at once
            say(f"created a new store at {fresh}", quiet=quiet)
        _report(summary, quiet=quiet, unit="Jaeger answer" if from_jaeger else "file")
        if json_out is not None and write_json(
            summary_document(summary, opened.dsn_redacted), json_out, "ingest"
        ):
            say(f"wrote the summary to {json_out}", quiet=quiet)
        if not from_jaeger and summary.files == 0 and summary.unchanged == 0:
            fail("ingest", "no trace files found")
        if not from_jaeger and summary.read == 0 and summary.skipped:
            raise typer.Exit(1)
        if strict and summary.skipped:
            raise typer.Exit(1)


@contextmanager
def _no_empty_store(dsn: str | None) -> Iterator[tuple[list[int], Path | None]]:
    """Remove the embedded store this ingest created if it ends with no span in it.

    Yields a list that receives the number of spans read, and the folder of the embedded store
    this ingest creates (``None`` when it exists already or is a server's); a failed ingest (an
    exception, or ``typer.Exit``) or one that read nothing leaves no empty store behind for
    analysis to find.
    """
    from ragfunnel.analyzer.store import chosen_dsn, parse_dsn

    read: list[int] = []
    try:
        target = parse_dsn(chosen_dsn(dsn))
    except AnalyzerError:  # reported by Store.open, inside
        target = None
    fresh = Path(target.path) if target is not None and target.embedded else None
    if fresh is not None and fresh.exists():
        fresh = None
    try:
        yield read, fresh
    finally:
        if fresh is not None and not any(read) and fresh.is_dir():
            shutil.rmtree(fresh, ignore_errors=True)


def summary_document(summary: IngestSummary, store: str) -> dict[str, object]:
    """``ragfunnel ingest --json``: what the ingest did, as data (the text's numbers)."""
    problems = {"skipped": summary.skipped, "notes": summary.notes}
    return {
        "command": "ingest",
        "generated_at": iso(dt.datetime.now(dt.timezone.utc)),
        "store": store,
        **{name: getattr(summary, name) for name in ("read", "inserted", "duplicates", "files")},
        "unchanged": summary.unchanged,
        **{
            kind: [{"file": p.file, "line": p.line, "reason": p.reason} for p in found]
            for kind, found in problems.items()
        },
    }


def _report(summary: IngestSummary, *, quiet: bool, unit: str) -> None:
    from ragfunnel.analyzer.ingest import native_converter_available

    problems = [("skipped", skip) for skip in summary.skipped] + [
        ("note", note) for note in summary.notes
    ]
    for kind, problem in problems[:SHOWN_PROBLEMS]:
        typer.echo(f"{problem.file}:{problem.line}: {kind}: {problem.reason}", err=True)
    if len(problems) > SHOWN_PROBLEMS:
        typer.echo(f"… and {len(problems) - SHOWN_PROBLEMS:,} more", err=True)
    if not quiet:
        files = f" from {count(summary.files, unit)}" if summary.files else ""
        typer.echo(summary.describe() + files)
        if summary.read >= SLOW_HINT_SPANS and not native_converter_available():
            typer.echo(
                "ingest: lines were converted by the Python converter; ragfunnel-native "
                "(pip install ./native from the ragfunnel source) converts them about 3x faster",
                err=True,
            )
