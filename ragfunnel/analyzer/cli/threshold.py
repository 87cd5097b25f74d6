"""``ragfunnel threshold``: abstention per run, and a sweep of the confidence threshold."""

from __future__ import annotations

import datetime as dt
import math
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ragfunnel.analyzer.cli.app import app
from ragfunnel.analyzer.cli.exits import fail, reported, show_notices, usage_error
from ragfunnel.analyzer.cli.options import (
    JsonOption,
    QuietOption,
    ReadOnlyOption,
    RunOption,
    StoreOption,
)
from ragfunnel.analyzer.cli.output import STDOUT, iso, say, write_json
from ragfunnel.analyzer.cli.progress import progress_steps

if TYPE_CHECKING:
    import polars as pl

    from ragfunnel.analyzer.funnel import Abstention

THRESHOLD_HELP = """Abstention per run, and a sweep of the confidence threshold.

Per run, answerable / unanswerable questions × \
answered / abstained; then a sweep over the recorded top score of the last ranking stage — at \
each threshold, how many answerable questions would be refused and how many unanswerable ones \
answered, the risk (share of the answered, whose outcome is known, answered wrongly: the \
report's risk) and the unanswerable share of the answered, with the pipeline's own threshold \
marked and the threshold of least cost recommended, where answering an unanswerable question costs --cost-ratio \
refused answerable ones.

\b
Examples:
  ragfunnel threshold --cases cases.yaml
  ragfunnel threshold --cases cases.yaml --cost-ratio 3 --run 2024-06-01 --csv sweep.csv
"""


MAX_ROWS = 25
"""Thresholds the terminal shows per run (evenly spread, plus the pipeline's and the
recommended one); ``--csv`` writes every one."""


def _number(value: float) -> str:
    from ragfunnel.analyzer.report import number

    if math.isinf(value):
        return "∞" if value > 0 else "-∞"
    return number(float(value))


def _cost(value: float) -> str:
    from ragfunnel.analyzer.report import number

    return f"{value:,.0f}" if float(value).is_integer() else number(float(value))


def _shown(sweep: pl.DataFrame) -> pl.DataFrame:
    import polars as pl

    if sweep.height <= MAX_ROWS:
        return sweep
    spread = {round(i * (sweep.height - 1) / (MAX_ROWS - 1)) for i in range(MAX_ROWS)}
    marked = sweep.with_row_index("_i").filter(pl.col("pipeline") | pl.col("recommended"))
    keep = sorted(spread | set(marked.get_column("_i").to_list()))
    return sweep[keep]


def threshold_text(result: Abstention) -> str:
    """The confusion and the sweep, per run."""
    import polars as pl

    from ragfunnel.analyzer.report import count, more, percent

    lines: list[str] = []
    for run_id in result.pipeline_threshold:
        confusion = {(r["answerable"], r["abstained"]): r["count"]
                     for r in result.confusion.filter(pl.col("run_id") == run_id).iter_rows(named=True)}  # fmt: skip
        sweep = result.sweep.filter(pl.col("run_id") == run_id)
        lines += [
            f"run {run_id or '(none)'}",
            f"  answerable:   answered {confusion.get((True, False), 0):,}, abstained {confusion.get((True, True), 0):,}",
            f"  unanswerable: answered {confusion.get((False, False), 0):,}, abstained {confusion.get((False, True), 0):,}",
            "  threshold  coverage    risk  unanswerable share  answerable refused  unanswerable answered    cost",
        ]  # fmt: skip
        shown = _shown(sweep)
        for r in shown.iter_rows(named=True):
            marks = " ".join(
                m
                for m, on in (("← pipeline", r["pipeline"]), ("← recommended", r["recommended"]))
                if on
            )
            lines.append(
                f"  {_number(r['threshold']):>9}  {percent(r['coverage']):>8}  "
                f"{percent(r['risk']):>6}  {percent(r['unanswerable_share']):>18}  "
                f"{r['answerable_refused']:>18,}  {r['unanswerable_answered']:>21,}  "
                f"{_cost(r['cost']):>6}  {marks}".rstrip()
            )  # fmt: skip
        cut = more(shown.height, sweep.height, "thresholds: --csv OUT writes every one")
        if cut:
            lines.append(f"  {cut}")
        own, best = result.pipeline_threshold[run_id], result.recommended[run_id]
        lines.append(f"  pipeline threshold {_number(own) if own is not None else 'none'}; "
                     f"recommended {_number(best) if best is not None else '—'} at cost ratio "
                     f"{result.cost_ratio:g}")  # fmt: skip
        if result.unscored.get(run_id):
            lines.append(
                f"  {count(result.unscored[run_id], 'question')} without a top score left out"
            )
        lines.append("")
    lines.append(RISK_NOTE)
    return "\n".join(lines).rstrip()


RISK_NOTE = (
    "risk: of the answered questions whose outcome is known, the share answered wrongly (an "
    "unanswerable one counts as wrong), as in the report's risk–coverage curve; unanswerable "
    "share: of the answered questions, the share that are unanswerable."
)


@app.command("threshold", help=THRESHOLD_HELP)
def threshold_command(
    *,
    cases: Annotated[
        Path,
        typer.Option(
            "--cases", metavar="FILE", help="Evaluation cases: which questions are answerable."
        ),
    ],
    store: StoreOption = None,
    run: RunOption = None,
    cost_ratio: Annotated[
        float,
        typer.Option(
            "--cost-ratio",
            min=0.0,
            help="Cost of answering an unanswerable question, in refused answerable ones.",
        ),
    ] = 1.0,
    csv_out: Annotated[
        Path | None, typer.Option("--csv", metavar="OUT", help="Write the sweep as CSV.")
    ] = None,
    read_only: ReadOnlyOption = False,
    json_out: JsonOption = None,
    quiet: QuietOption = False,
) -> None:
    """Analyze abstention and sweep the threshold (see THRESHOLD_HELP)."""
    from ragfunnel.analyzer.cases import load_cases
    from ragfunnel.analyzer.store import Store
    from ragfunnel.analyzer.workflows import thresholds_from_store

    if cost_ratio <= 0:
        usage_error("threshold", "--cost-ratio must be positive")
    to_stdout = json_out is not None and str(json_out) == STDOUT
    quiet = quiet or to_stdout
    with (
        reported("threshold", flags={"cost_ratio": "--cost-ratio"}),
        progress_steps(not quiet) as step,
    ):
        step("reading the cases")
        case_set = load_cases(cases)
        with Store.open_for_analysis(store, read_only=read_only or None) as opened:
            found = thresholds_from_store(
                opened, case_set, runs=run, cost_ratio=cost_ratio, progress=step
            )
        result = found.abstention
    show_notices("threshold", found.notices)
    say(threshold_text(result), quiet=quiet)
    if json_out is not None:
        document = {
            "command": "threshold",
            "generated_at": iso(dt.datetime.now(dt.timezone.utc)),
            "cases": str(cases),
            "cost_ratio": result.cost_ratio,
            "pipeline_threshold": result.pipeline_threshold,
            "recommended": result.recommended,
            "unscored": result.unscored,
            "confusion": result.confusion.to_dicts(),
            "sweep": result.sweep.to_dicts(),
        }
        if write_json(document, json_out, "threshold"):
            say(f"wrote the result to {json_out}", quiet=quiet)
    if csv_out is not None:
        try:
            result.sweep.write_csv(csv_out)
        except OSError as exc:
            fail("threshold", f"cannot write the sweep: {exc}")
        say(f"wrote the sweep to {csv_out}", quiet=quiet)
