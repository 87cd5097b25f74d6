"""``ragfunnel review``: this week's sheet of judged answers for a person to label."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ragfunnel.analyzer.cli.app import app
from ragfunnel.analyzer.cli.defaults import REVIEW_SIZE as DEFAULT_SIZE
from ragfunnel.analyzer.cli.exits import fail, reported, usage_error
from ragfunnel.analyzer.cli.options import QuietOption, RunOption, StoreOption
from ragfunnel.analyzer.cli.output import say
from ragfunnel.analyzer.nouns import count

REVIEW_HELP = """Export this week's sheet of judged answers for people to label.

N answers (20 by default), as CSV and/or JSON Lines: question, context, answer, the claim split and each judge's verdict per claim, with \
empty columns human_labels (one label per claim, ';'-separated: supported / partial / \
unsupported, or s / p / u), claim_split_sensible (yes / no) and notes. The answers are chosen \
with one seed per ISO week, so a week's sheet is stable. Fill it in and give it to \
`ragfunnel calibrate`.

\b
Examples:
  ragfunnel review --csv review.csv
  ragfunnel review --jsonl review.jsonl --n 50 --week 2026-W49 --run 2024-06-01
"""


@app.command("review", help=REVIEW_HELP)
def review_command(
    *,
    store: StoreOption = None,
    run: RunOption = None,
    csv_out: Annotated[
        Path | None, typer.Option("--csv", metavar="OUT", help="Write the sheet as CSV.")
    ] = None,
    jsonl_out: Annotated[
        Path | None, typer.Option("--jsonl", metavar="OUT", help="Write the sheet as JSON Lines.")
    ] = None,
    n: Annotated[int, typer.Option("--n", min=1, help="How many answers.")] = DEFAULT_SIZE,
    week: Annotated[
        str | None,
        typer.Option("--week", metavar="YYYY-Www", help="The seed week (default this ISO week)."),
    ] = None,
    quiet: QuietOption = False,
) -> None:
    """Export a review sheet (see REVIEW_HELP)."""
    from ragfunnel.analyzer.judges import iso_week, write_sheet
    from ragfunnel.analyzer.store import Store
    from ragfunnel.analyzer.workflows import review_from_store

    if csv_out is None and jsonl_out is None:
        usage_error("review", "give --csv and/or --jsonl: where to write the sheet")
    with reported("review"), Store.open_for_analysis(store, read_only=True) as opened:
        sheet = review_from_store(opened, n=n, week=week, runs=run or ())
    if not sheet:
        fail("review", "no judged answers in the store: run `ragfunnel judge` first")
    try:
        write_sheet(sheet, csv_out, jsonl_out)
    except OSError as exc:
        fail("review", f"cannot write the sheet: {exc}")
    where = " and ".join(str(p) for p in (csv_out, jsonl_out) if p is not None)
    say(
        f"wrote {count(len(sheet), 'answer')} for review ({week or iso_week()}) to {where}",
        quiet=quiet,
    )
