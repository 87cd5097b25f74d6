"""``ragfunnel diff RUN_A RUN_B``: two runs compared on the cases both asked, pair by pair.

A thin layer over ``workflows.diff_from_store``: it analyzes both runs in one pass, prints the
transitions, McNemar's test, the metric deltas and the configuration changes, writes the JSON
and HTML asked for, and with ``--fail-on-regression`` exits 3 naming each regression.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from ragfunnel.analyzer.cli.app import app
from ragfunnel.analyzer.cli.defaults import ALPHA
from ragfunnel.analyzer.cli.exits import (
    EXIT_GATE,
    fail,
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
    QuietOption,
    ReadOnlyOption,
    StoreOption,
    SummaryOption,
    TopOption,
)
from ragfunnel.analyzer.cli.progress import progress_steps

__all__ = ["diff_command"]

DIFF_HELP = """Compare run RUN_B with run RUN_A on the cases both asked, pair by pair.

Lists every case whose first failure changed ("2 moved search → ok: q-05, q-06"), tests the \
ok/failed split with McNemar's exact test, gives each metric's mean change with a paired \
bootstrap interval, and shows the configuration settings (ragfunnel.pipeline.*) that changed. \
--html writes the report of both runs with the comparison on top; --json the comparison as \
JSON ('-' for stdout). With --fail-on-regression it exits 3 when B is significantly worse: \
more cases broke than were fixed (McNemar p < --alpha) or a metric's whole interval is below 0.

\b
Examples:
  ragfunnel diff 2024-06-01 2024-06-08 --cases cases.yaml
  ragfunnel diff baseline candidate --cases cases.yaml --html diff.html --json diff.json
  ragfunnel diff main-nightly "$GITHUB_SHA" --cases cases.yaml --fail-on-regression
"""


@app.command("diff", help=DIFF_HELP)
def diff_command(
    run_a: Annotated[str, typer.Argument(metavar="RUN_A", help="The run compared against.")],
    run_b: Annotated[str, typer.Argument(metavar="RUN_B", help="The run under test.")],
    *,
    store: StoreOption = None,
    cases: CasesOption = None,
    index_manifest: IndexManifestOption = None,
    k: KOption = None,
    html: HtmlOption = None,
    json_out: SummaryOption = None,
    jaeger: JaegerOption = None,
    top: TopOption = 20,
    fail_on_regression: Annotated[
        bool,
        typer.Option("--fail-on-regression", help="Exit 3 when RUN_B is significantly worse."),
    ] = False,
    alpha: Annotated[
        float,
        typer.Option("--alpha", min=0.0, max=1.0, help="Significance level of a regression."),
    ] = ALPHA,
    chunks: ChunksOption = None,
    read_only: ReadOnlyOption = False,
    quiet: QuietOption = False,
) -> None:
    """Compare two runs (see DIFF_HELP)."""
    from ragfunnel.analyzer.report import diff_summary, render_diff, write_html
    from ragfunnel.analyzer.workflows import diff_from_files

    if cases is None:
        usage_error("diff", "--cases is required: runs are paired by case")
    if run_a == run_b:
        usage_error("diff", f"RUN_A and RUN_B are both {run_a!r}: give two different runs")
    to_stdout = json_out is not None and str(json_out) == "-"
    with (
        reported("diff", flags={**REPORT_FLAGS, "run": "RUN_A, RUN_B"}),
        progress_steps(not quiet and not to_stdout) as step,
    ):
        compared = diff_from_files(
            store=store, cases=cases, run_a=run_a, run_b=run_b, index_manifest=index_manifest,
            k=k, jaeger_url=jaeger, read_only=read_only, top=top, progress=step,
            chunks=chunks,
        )  # fmt: skip
        done, diff = compared.reported, compared.diff
        done = dataclasses.replace(done, report=worded_report(done.report))
        written: list[Path] = []
        if html is not None:
            written.append(write_html(done.report, html, diff=diff))
        data = diff_summary(diff, alpha=alpha)
        if json_out is not None and not to_stdout:
            try:
                json_out.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n",
                                    encoding="utf-8")  # fmt: skip
            except OSError as exc:
                fail("diff", f"{json_out}: cannot write the comparison: {exc.strerror or exc}")
            written.append(json_out)
    show_notices("diff", done.result.notices)
    if to_stdout:
        sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    elif not quiet:
        render_diff(diff, Console(soft_wrap=True))
        for path in written:
            typer.echo(f"wrote {path}")
    regressions = diff.regressions(alpha)
    if fail_on_regression and regressions:
        for line in regressions:
            typer.echo(f"ragfunnel diff: regression: {line}", err=True)
        raise typer.Exit(EXIT_GATE)
