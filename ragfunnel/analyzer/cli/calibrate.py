"""``ragfunnel calibrate``: each judge's agreement with people, from a labelled review sheet."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ragfunnel.analyzer.cli.app import app
from ragfunnel.analyzer.cli.exits import reported
from ragfunnel.analyzer.cli.options import QuietOption
from ragfunnel.analyzer.cli.output import say
from ragfunnel.analyzer.nouns import count

if TYPE_CHECKING:
    from ragfunnel.analyzer.judges import Calibration, Estimate

CALIBRATE_HELP = """Measure each judge's agreement with people, from a labelled review sheet.

Reads the sheet of `ragfunnel review` (CSV or JSON Lines) with the human labels filled in and \
reports, per judge: the confusion matrix judge × human (with the claims the judge left \
"uncertain" in a row of their own), Cohen's kappa with a bootstrap 95 % interval over the claims \
the judge decided, precision and recall of "unsupported", kappa per ISO week (drift), and how \
often the claim split was sensible. Unlabelled rows are skipped; \
invalid ones are listed with file, line and field.

\b
Examples:
  ragfunnel calibrate review-labelled.csv
  ragfunnel calibrate week48.jsonl
"""


def _interval(e: Estimate, percent: bool = False) -> str:
    if math.isnan(e.estimate):
        return "—"
    scale = 100 if percent else 1
    value = f"{scale * e.estimate:.1f}%" if percent else f"{e.estimate:.2f}"
    if math.isnan(e.low):
        return value
    return f"{value} ({scale * e.low:.2f}–{scale * e.high:.2f}{'%' if percent else ''})"


def calibration_text(result: Calibration) -> str:
    """The calibration report, for the terminal."""
    from ragfunnel.analyzer.judges import LABELS

    lines = [f"{count(result.answers, 'labelled answer')}; claim split sensible: "
             f"{_interval(result.split_sensible, percent=True)}"]  # fmt: skip
    for judge in result.judges:
        doubted = (f", {judge.uncertain} uncertain (kappa over the other "
                   f"{judge.claims - judge.uncertain})" if judge.uncertain else "")  # fmt: skip
        lines += ["", f"{judge.judge}: {count(judge.claims, 'claim')}{doubted}, "
                  f"kappa {_interval(judge.kappa)}",
                  f"  unsupported: precision {_interval(judge.unsupported_precision, True)}, "
                  f"recall {_interval(judge.unsupported_recall, True)}",
                  "  judge \\ human  " + "  ".join(f"{h:>11}" for h in LABELS)]  # fmt: skip
        for j in judge.confusion if judge.uncertain else LABELS:  # its rows: the judge's labels
            lines.append(f"  {j:<14} " + "  ".join(f"{judge.confusion[j][h]:>11}" for h in LABELS))
        if len(judge.kappa_by_week) > 1:
            lines.append("  kappa by week: " + ", ".join(
                f"{w} {_interval(k)}" for w, k in judge.kappa_by_week.items()))  # fmt: skip
    return "\n".join(lines)


@app.command("calibrate", help=CALIBRATE_HELP)
def calibrate_command(
    labels: Annotated[
        Path, typer.Argument(metavar="LABELS", show_default=False, help="The labelled sheet.")
    ],
    *,
    quiet: QuietOption = False,
) -> None:
    """Report judge–human agreement (see CALIBRATE_HELP)."""
    from ragfunnel.analyzer.judges import calibrate

    with reported("calibrate"):
        result = calibrate(labels)
    say(calibration_text(result), quiet=quiet)
