"""``ragfunnel report``: the diagnosis in the terminal, the HTML page, the exports, the CI gate.

A thin layer: it opens the store read-only where it must (``Store.open_for_analysis``), runs
one workflow (``workflows.report_from_store``) with a progress line on stderr, writes what
was asked, and exits 3 with one line per breached limit. It holds no statistic of its own.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

from ragfunnel.analyzer.cli.app import app
from ragfunnel.analyzer.cli.exits import (
    EXIT_GATE,
    reported,
    show_notices,
    usage_error,
    worded_report,
)
from ragfunnel.analyzer.cli.options import (
    REPORT_FLAGS,
    CasesOption,
    ChunksOption,
    HtmlOption,
    IndexManifestOption,
    JaegerOption,
    KOption,
    ParquetOption,
    QuietOption,
    ReadOnlyOption,
    RunOption,
    StoreOption,
    SummaryOption,
    TopOption,
)
from ragfunnel.analyzer.cli.progress import progress_steps

if TYPE_CHECKING:
    from ragfunnel.analyzer.workflows import Reported

__all__ = ["report_command"]


REPORT_HELP = """Diagnose where the answers of each run break, and what to fix first.

Prints, per run, a diagnosis ("Of 60 questions, 18 were answered wrongly ... Changing the \
answer prompt can fix at most 5: work upstream first"), the first-failure shares with Wilson \
intervals, the retrieval metrics at the real cut, the evidence most often lost upstream, the \
worst questions, faithfulness and answer correctness when verdicts exist, the abstention \
confusion and the run's configuration (ragfunnel.pipeline.*).

--html writes one self-contained page (inline SVG charts, no script, no request) with a \
drill-down per question linked to Jaeger; --json the report as JSON ('-' for stdout); \
--jsonl/--parquet the per-question records (docs/report.md has the schemas). \
--fail-under/--fail-over NAME=VALUE make it a CI gate: each breach prints one line and the \
command exits 3.

\b
Examples:
  ragfunnel report --cases cases.yaml --run 2024-06-01
  ragfunnel report --cases cases.yaml --html report.html --jaeger http://localhost:16686
  ragfunnel report --cases cases.yaml --json summary.json --parquet records.parquet
  ragfunnel report --cases cases.yaml --fail-under faithfulness=0.85 \\
      --fail-over share.search=0.10 --fail-over share.ingestion=0
"""

JsonlOption = Annotated[
    Path | None,
    typer.Option("--jsonl", metavar="OUT", help="Write the per-question records as JSON Lines."),
]
SampleOption = Annotated[
    int, typer.Option("--sample", min=0, help="Further questions drawn at random for the drill-down.")
]  # fmt: skip
FailUnderOption = Annotated[
    list[str] | None,
    typer.Option("--fail-under", metavar="NAME=VALUE",
                 help="Exit 3 if a run's measure is below VALUE, e.g. faithfulness=0.85 or "
                      "confidence=0.7 (repeatable)."),
]  # fmt: skip
FailOverOption = Annotated[
    list[str] | None,
    typer.Option("--fail-over", metavar="NAME=VALUE",
                 help="Exit 3 if a run's measure is above VALUE, e.g. share.search=0.10 (repeatable)."),
]  # fmt: skip


def _print_json(data: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")


@app.command("report", help=REPORT_HELP)
def report_command(
    *,
    store: StoreOption = None,
    cases: CasesOption = None,
    run: RunOption = None,
    index_manifest: IndexManifestOption = None,
    k: KOption = None,
    html: HtmlOption = None,
    json_out: SummaryOption = None,
    jsonl: JsonlOption = None,
    parquet_out: ParquetOption = None,
    jaeger: JaegerOption = None,
    top: TopOption = 20,
    sample: SampleOption = 50,
    fail_under: FailUnderOption = None,
    fail_over: FailOverOption = None,
    chunks: ChunksOption = None,
    read_only: ReadOnlyOption = False,
    quiet: QuietOption = False,
) -> None:
    """Report on an analysis (see REPORT_HELP)."""
    from ragfunnel.analyzer.report import check_limits, parse_limits, render_report, summary
    from ragfunnel.analyzer.workflows import report_from_files

    if cases is None:
        usage_error("report", "--cases is required: a report attributes failures against the cases")
    to_stdout = json_out is not None and str(json_out) == "-"
    with reported("report", flags=REPORT_FLAGS, usage=True):  # a bad NAME=VALUE is a usage error
        limits = parse_limits(fail_under or [], "under") + parse_limits(fail_over or [], "over")
    with (
        reported("report", flags=REPORT_FLAGS),
        progress_steps(not quiet and not to_stdout) as step,
    ):
        done = report_from_files(
            store=store, cases=cases, runs=run, index_manifest=index_manifest, k=k,
            jaeger_url=jaeger, read_only=read_only, top=top, sample=sample, progress=step,
            chunks=chunks,
        )  # fmt: skip
        done = dataclasses.replace(done, report=worded_report(done.report))
        breaches = check_limits(done.report, limits)
        step("writing")
        written = _write_outputs(
            done, html=html, json_out=None if to_stdout else json_out, jsonl=jsonl,
            parquet_out=parquet_out, breaches=breaches,
        )  # fmt: skip
    show_notices("report", done.result.notices)
    if to_stdout:
        _print_json(summary(done.report, gate=breaches))
    elif not quiet:
        render_report(done.report, Console(soft_wrap=False))
        for path in written:
            typer.echo(f"wrote {path}")
    for breach in breaches:
        typer.echo(f"ragfunnel report: {breach}", err=True)
    if breaches:
        raise typer.Exit(EXIT_GATE)


def _write_outputs(
    done: Reported,
    *,
    html: Path | None,
    json_out: Path | None,
    jsonl: Path | None,
    parquet_out: Path | None,
    breaches: Sequence[str],
) -> list[Path]:
    from ragfunnel.analyzer.report import write_html, write_jsonl, write_parquet, write_summary

    records, k = done.result.records, done.result.k
    written = []
    if html is not None:
        written.append(write_html(done.report, html))
    if json_out is not None:
        written.append(write_summary(done.report, json_out, gate=breaches))
    if jsonl is not None:
        written.append(write_jsonl(records, k, jsonl))
    if parquet_out is not None:
        written.append(write_parquet(records, k, parquet_out))
    return written
