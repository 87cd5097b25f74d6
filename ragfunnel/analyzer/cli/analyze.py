"""``ragfunnel analyze``: every question's funnel, and where each failure was born."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ragfunnel.analyzer.cli.app import app
from ragfunnel.analyzer.cli.errors import fail, reported, show_notices, usage_error
from ragfunnel.analyzer.cli.options import (
    CasesOption,
    IndexManifestOption,
    JsonOption,
    ParquetOption,
    ReadOnlyOption,
    RunOption,
    StoreOption,
)

if TYPE_CHECKING:
    import polars as pl

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


@app.command("analyze", help=ANALYZE_HELP)
def analyze_command(
    *,
    store: StoreOption = None,
    cases: CasesOption = None,
    run: RunOption = None,
    index_manifest: IndexManifestOption = None,
    k: Annotated[
        list[int] | None,
        typer.Option(
            "--k",
            metavar="N",
            min=1,
            help="Cut-off for ranking metrics (repeatable; default 1, 5, 10) besides the real cut.",
        ),
    ] = None,
    json_out: JsonOption = None,
    parquet_out: ParquetOption = None,
    read_only: ReadOnlyOption = False,
) -> None:
    """Attribute each question's failure to a funnel stage (see ANALYZE_HELP)."""
    from ragfunnel.analyzer.cases import load_cases
    from ragfunnel.analyzer.funnel import analyze, shapes
    from ragfunnel.analyzer.funnel.text import shapes_text, summary_text
    from ragfunnel.analyzer.store import Store

    if json_out and parquet_out:
        usage_error("analyze", "give either --json or --parquet, not both")
    with reported("analyze"):
        case_set = load_cases(cases) if cases is not None else None
        with Store.open_for_analysis(store, read_only=read_only or None) as opened:
            if case_set is None:
                found = shapes(opened, run=run or None)
                records, text = found.records, shapes_text(found, source=opened.dsn_redacted)
                notices = found.notices
            else:
                result = analyze(
                    opened, case_set, run=run or None, index_manifest=index_manifest, k=k or None
                )
                records = result.records
                text = summary_text(result, source=opened.dsn_redacted)
                notices = result.notices
    show_notices("analyze", notices)
    typer.echo(text)
    _write(records, json_out, parquet_out)


def _write(records: pl.DataFrame, json_out: Path | None, parquet_out: Path | None) -> None:
    try:
        if json_out:
            records.write_json(json_out)
        elif parquet_out:
            records.write_parquet(parquet_out)
    except OSError as exc:
        fail("analyze", f"cannot write the records: {exc}")
    if json_out or parquet_out:
        typer.echo(f"wrote {records.height:,} records to {json_out or parquet_out}")
