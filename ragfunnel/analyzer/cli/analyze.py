"""``ragfunnel analyze``: every question's funnel, and where each failure was born."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ragfunnel.analyzer.cli.app import app
from ragfunnel.analyzer.cli.exits import fail, reported, show_notices
from ragfunnel.analyzer.cli.options import (
    CasesOption,
    ChunksOption,
    IndexManifestOption,
    JsonlOption,
    JsonOption,
    ParquetOption,
    QuietOption,
    ReadOnlyOption,
    RunOption,
    StoreOption,
)
from ragfunnel.analyzer.cli.output import STDOUT, iso, say, write_json, write_jsonl
from ragfunnel.analyzer.cli.progress import progress_steps
from ragfunnel.analyzer.nouns import count

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
the vector store); without either, "ingestion_or_search" is reported instead of guessing. \
Evidence named by document + quote is resolved against each run's index version (its ingest \
spans' chunk texts, or --chunks); case labels that name another chunking are "stale_case".

\b
Examples:
  ragfunnel analyze --cases cases.yaml
  ragfunnel analyze --cases cases.yaml --run 2024-06-01 --k 5 --k 20 --jsonl records.jsonl
  ragfunnel analyze --cases cases.yaml --json - --quiet
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
    chunks: ChunksOption = None,
    json_out: JsonOption = None,
    jsonl_out: JsonlOption = None,
    parquet_out: ParquetOption = None,
    read_only: ReadOnlyOption = False,
    quiet: QuietOption = False,
) -> None:
    """Attribute each question's failure to a funnel stage (see ANALYZE_HELP)."""
    from ragfunnel.analyzer.cases import load_cases
    from ragfunnel.analyzer.funnel import FunnelResult
    from ragfunnel.analyzer.report import shapes_text, summary_text
    from ragfunnel.analyzer.store import Store
    from ragfunnel.analyzer.workflows import analyze_store

    to_stdout = json_out is not None and str(json_out) == STDOUT
    quiet = quiet or to_stdout
    with reported("analyze"), progress_steps(not quiet) as step:
        step("reading the cases")
        case_set = load_cases(cases) if cases is not None else None
        with Store.open_for_analysis(store, read_only=read_only or None) as opened:
            step("rebuilding every question's funnel")
            header: dict[str, Any] = {
                "command": "analyze",
                "generated_at": iso(dt.datetime.now(dt.timezone.utc)),
                "store": opened.dsn_redacted,
                "cases": str(cases) if cases is not None else None,
                "runs": list(run or []),
            }
            found = analyze_store(
                opened, case_set, runs=run, index_manifest=index_manifest, k=k, chunks=chunks
            )
            if not isinstance(found, FunnelResult):
                records, text = found.records, shapes_text(found, source=opened.dsn_redacted)
                notices = found.notices
                document = {**header, "questions": records.height,
                            "shapes": found.summary.to_dicts(), "notices": list(notices)}  # fmt: skip
            else:
                result = found
                records = result.records
                text = summary_text(result, source=opened.dsn_redacted)
                notices = result.notices
                document = {
                    **header, "questions": records.height, "index_truth": result.index_truth,
                    "k": list(result.k), "failures": result.failures.to_dicts(),
                    "metrics": result.metrics.to_dicts(),
                    "unmatched_questions": result.unmatched_questions,
                    "cases_without_trace": list(result.cases_without_trace),
                    "notices": list(notices),
                }  # fmt: skip
    show_notices("analyze", notices)
    say(text, quiet=quiet)
    if json_out is not None and write_json(document, json_out, "analyze"):
        say(f"wrote the summary to {json_out}", quiet=quiet)
    _write(records, jsonl_out, parquet_out, quiet=quiet)


def _write(
    records: pl.DataFrame, jsonl_out: Path | None, parquet_out: Path | None, *, quiet: bool
) -> None:
    if jsonl_out is not None:
        write_jsonl(records.iter_rows(named=True), jsonl_out, "analyze")
        say(f"wrote {count(records.height, 'record')} to {jsonl_out}", quiet=quiet)
    if parquet_out is not None:
        try:
            records.write_parquet(parquet_out)
        except OSError as exc:
            fail("analyze", f"cannot write the records: {exc}")
        say(f"wrote {count(records.height, 'record')} to {parquet_out}", quiet=quiet)
