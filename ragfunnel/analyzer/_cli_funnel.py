"""``ragfunnel analyze`` and ``ragfunnel funnel``: the funnel analyzer on the command line."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, NoReturn

import polars as pl
import typer

from ragfunnel.analyzer._cli_common import StoreOption
from ragfunnel.analyzer.cases import CaseError, CaseSet, load_cases
from ragfunnel.analyzer.funnel import ManifestError, analyze, shapes
from ragfunnel.analyzer.funnel.text import (
    describe_record,
    describe_shape,
    shapes_text,
    summary_text,
)
from ragfunnel.analyzer.store import Store, StoreError

ANALYZE_HELP = """Rebuild every question's funnel from the stored spans and say where each \
failure was born: ingestion, search, rerank, cut or generation (or ok).

With --cases, each question is matched to its case (by id, else by question text) and the \
first stage that lost its expected evidence is reported, with counts per run, Wilson \
intervals and ID-based metrics (hit rate, recall, MRR, context precision, AP) at the real \
prompt cut and at each --k. Without --cases, live traffic is summarised by funnel shape \
(candidates, top scores, cut sizes, abstentions, missing stages).

Index truth comes from ingest spans in the store or from --index-manifest (ids exported from \
the vector store); without either, "ingestion_or_search" is reported instead of guessing.

\b
Examples:
  ragfunnel analyze --cases cases.yaml
  ragfunnel analyze --cases cases.yaml --run 2024-06-01 --k 5 --k 20 --json records.json
  ragfunnel analyze --store http://clickhouse:8123/otel --parquet shapes.parquet
"""

FUNNEL_HELP = """Show one question's funnel: where each expected chunk was (indexed, \
candidate rank, rerank rank, prompt position), where it was lost and why, the answer \
verdict, flags and the trace id (a Jaeger link with --jaeger).

QUESTION_ID is a case id (with --cases) or, without cases, the question id of a trace.

\b
Examples:
  ragfunnel funnel q-017 --cases cases.yaml
  ragfunnel funnel q-017 --cases cases.yaml --run 2024-06-01 --jaeger http://localhost:16686
  ragfunnel funnel q-3f2a9c01d2e4b5a6
"""

CasesOption = Annotated[
    Path | None,
    typer.Option("--cases", metavar="FILE", help="Evaluation cases: YAML, JSON, JSONL or CSV."),
]
RunOption = Annotated[
    list[str] | None,
    typer.Option("--run", metavar="ID", help="Only questions of this run (repeatable)."),
]
ManifestOption = Annotated[
    Path | None,
    typer.Option(
        "--index-manifest",
        metavar="FILE",
        help="Ids in the vector store (.txt one per line, .json array, .csv 'id' column).",
    ),
]


def register(app: typer.Typer) -> None:
    """Add the ``analyze`` and ``funnel`` commands to ``app``."""
    app.command("analyze", help=ANALYZE_HELP)(analyze_command)
    app.command("funnel", help=FUNNEL_HELP)(funnel_command)


def _fail(command: str, message: str) -> NoReturn:
    typer.echo(f"ragfunnel {command}: {message}", err=True)
    raise typer.Exit(1)


def _cases(command: str, path: Path | None) -> CaseSet | None:
    if path is None:
        return None
    try:
        return load_cases(path)
    except CaseError as exc:
        _fail(command, str(exc))


def analyze_command(
    *,
    store: StoreOption = None,
    cases: CasesOption = None,
    run: RunOption = None,
    index_manifest: ManifestOption = None,
    k: Annotated[
        list[int] | None,
        typer.Option(
            "--k",
            metavar="N",
            min=1,
            help="Cut-off for ranking metrics (repeatable; default 1, 5, 10) besides the real cut.",
        ),
    ] = None,
    json_out: Annotated[
        Path | None,
        typer.Option("--json", metavar="OUT", help="Write the per-question records as JSON."),
    ] = None,
    parquet_out: Annotated[
        Path | None,
        typer.Option("--parquet", metavar="OUT", help="Write the per-question records as Parquet."),
    ] = None,
) -> None:
    """Attribute each question's failure to a funnel stage (see ANALYZE_HELP)."""
    if json_out and parquet_out:
        _fail("analyze", "give either --json or --parquet, not both")
    case_set = _cases("analyze", cases)
    try:
        with Store.open(store, create=False) as opened:
            if case_set is None:
                found = shapes(opened, run=run or None)
                records, text = found.records, shapes_text(found, source=opened.dsn_redacted)
            else:
                result = analyze(
                    opened, case_set, run=run or None, index_manifest=index_manifest, k=k or None
                )
                records = result.records
                text = summary_text(result, source=opened.dsn_redacted)
    except (StoreError, ManifestError, ValueError) as exc:
        _fail("analyze", str(exc))
    typer.echo(text)
    _write(records, json_out, parquet_out)


def _write(records: pl.DataFrame, json_out: Path | None, parquet_out: Path | None) -> None:
    try:
        if json_out:
            records.write_json(json_out)
        elif parquet_out:
            records.write_parquet(parquet_out)
    except OSError as exc:
        _fail("analyze", f"cannot write the records: {exc}")
    if json_out or parquet_out:
        typer.echo(f"wrote {records.height:,} records to {json_out or parquet_out}")


def funnel_command(
    question_id: Annotated[str, typer.Argument(metavar="QUESTION_ID", show_default=False)],
    *,
    store: StoreOption = None,
    cases: CasesOption = None,
    run: RunOption = None,
    index_manifest: ManifestOption = None,
    jaeger: Annotated[
        str | None,
        typer.Option(
            "--jaeger",
            metavar="URL",
            envvar="RAGFUNNEL_JAEGER_URL",
            help="Jaeger UI base URL, to print a link to the trace.",
        ),
    ] = None,
) -> None:
    """Print one question's funnel record (see FUNNEL_HELP)."""
    case_set = _cases("funnel", cases)
    try:
        with Store.open(store, create=False) as opened:
            if case_set is None:
                found = shapes(opened, run=run or None, question=question_id)
                blocks = [describe_shape(r) for r in found.records.iter_rows(named=True)]
            else:
                result = analyze(
                    opened, case_set, run=run or None, index_manifest=index_manifest,
                    question=question_id,
                )  # fmt: skip
                case = case_set.by_id(question_id)
                text = case.question if case else ""
                blocks = [
                    describe_record(r, question=text, jaeger=jaeger or "")
                    for r in result.records.sort("run_id", "started").iter_rows(named=True)
                ]
    except (StoreError, ManifestError, ValueError) as exc:
        _fail("funnel", str(exc))
    if not blocks:
        _fail(
            "funnel", f"no question {question_id!r} in the store" + (" for that run" if run else "")
        )
    typer.echo("\n\n".join(blocks))
