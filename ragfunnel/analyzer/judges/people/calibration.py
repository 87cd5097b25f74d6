"""Judge–human agreement from a labelled review sheet: how far to trust each judge.

``read_labels`` reads a review sheet back (CSV or JSON Lines, as ``review.py`` wrote it, with
``human_labels`` filled in) and checks every row, naming file, line and field for each problem.
``calibrate`` compares each judge's claim labels with the people's: a confusion matrix
(judge × human: the judge's supported / partial / unsupported / uncertain against the person's
supported / partial / unsupported), Cohen's kappa with a bootstrap interval over the claims the
judge decided (``uncertain`` is no verdict: it is counted apart, and its row of the matrix says
what people made of those claims), precision and recall of ``unsupported`` (the verdict that
sends someone to fix a prompt; a claim left uncertain is not flagged), and the same kappa per
ISO week (drift). It also reports how often people found the claim split sensible.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragfunnel.analyzer.judges.verdict_types import LABELS, UNCERTAIN, UNSUPPORTED, JudgeError
from ragfunnel.analyzer.nouns import count
from ragfunnel.analyzer.stats import Estimate, kappa_interval, wilson

__all__ = [
    "JUDGE_LABELS",
    "Calibration",
    "JudgeAgreement",
    "LabelError",
    "calibrate",
    "read_labels",
]

JUDGE_LABELS = (*LABELS, UNCERTAIN)
"""What a judge's column may say: a verdict, or ``uncertain`` (the offline judge's doubt)."""

_SHORT = {"s": "supported", "p": "partial", "u": "unsupported"}
_YES = {"yes": True, "y": True, "ja": True, "true": True, "1": True,
        "no": False, "n": False, "nein": False, "false": False, "0": False}  # fmt: skip


class LabelError(JudgeError):
    """The labels file is unreadable or has invalid rows (every problem is listed)."""


@dataclass(frozen=True)
class Labelled:
    """One labelled sheet row."""

    week: str
    claims: tuple[str, ...]
    human: tuple[str, ...]
    judges: dict[str, tuple[str, ...]]
    split_sensible: bool | None


def _label(value: Any, where: str, problems: list[str], allowed: tuple[str, ...] = LABELS) -> str:
    text = str(value or "").strip().casefold()
    text = _SHORT.get(text, text)
    if text not in allowed:
        problems.append(f"{where}: {value!r} is not {' / '.join(allowed)} (or s / p / u)")
    return text


def _parse(row: dict[str, Any], where: str, problems: list[str]) -> Labelled | None:
    def field(name: str) -> Any:
        return row.get(name)

    claims_raw, judges_raw, human_raw = field("claims"), field("judges"), field("human_labels")
    try:
        claims = json.loads(claims_raw) if isinstance(claims_raw, str) else claims_raw
        judges = json.loads(judges_raw) if isinstance(judges_raw, str) else judges_raw
    except json.JSONDecodeError as exc:
        problems.append(f"{where}: field 'claims' or 'judges' is not valid JSON ({exc})")
        return None
    if not isinstance(claims, list) or not isinstance(judges, dict):
        problems.append(f"{where}: fields 'claims' (a list) and 'judges' (an object) are required")
        return None
    if isinstance(human_raw, str):
        human_raw = [p for p in human_raw.replace(",", ";").split(";") if p.strip()]
    if not human_raw or all(h is None for h in human_raw):
        return None  # not labelled yet: skipped, not an error
    if len(human_raw) != len(claims):
        problems.append(
            f"{where}: field 'human_labels': {count(len(human_raw), 'label')} for "
            f"{count(len(claims), 'claim')}"
        )
        return None
    human = tuple(_label(h, f"{where}: field 'human_labels'", problems) for h in human_raw)
    parsed: dict[str, tuple[str, ...]] = {}
    for judge, labels in judges.items():
        values = [v["label"] if isinstance(v, dict) else v for v in labels]
        if len(values) == len(claims):
            parsed[judge] = tuple(
                _label(v, f"{where}: field 'judges' ({judge})", problems, JUDGE_LABELS)
                for v in values
            )
    sensible_raw = str(field("claim_split_sensible") or "").strip().casefold()
    if sensible_raw and sensible_raw not in _YES:
        problems.append(f"{where}: field 'claim_split_sensible': {sensible_raw!r} is not yes / no")
    return Labelled(str(field("week") or ""), tuple(map(str, claims)), human, parsed,
                    _YES.get(sensible_raw))  # fmt: skip


def _rows(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    text = path.read_text(encoding="utf-8")
    if path.suffix.lower() in (".jsonl", ".ndjson", ".json"):
        for line_no, line in enumerate(text.splitlines(), start=1):
            if line.strip():
                try:
                    yield line_no, json.loads(line)
                except json.JSONDecodeError as exc:
                    raise LabelError(f"{path}:{line_no}: not valid JSON ({exc.msg})") from None
    else:
        reader = csv.DictReader(text.splitlines(keepends=True))
        for row in reader:
            yield reader.line_num, row


def read_labels(path: str | Path) -> list[Labelled]:
    """The labelled rows of a review sheet (unlabelled rows are skipped).

    Raises:
        LabelError: the file is missing or unreadable, or rows are invalid (all listed).
    """
    file = Path(path)
    if not file.is_file():
        raise LabelError(f"no labels file at {file}")
    problems: list[str] = []
    out = []
    for line_no, row in _rows(file):
        parsed = _parse(row, f"{file}:{line_no}", problems)
        if parsed is not None:
            out.append(parsed)
    if problems:
        raise LabelError(
            f"{len(problems)} problem(s) in the labels:\n  " + "\n  ".join(problems[:20])
        )
    return out


@dataclass(frozen=True)
class JudgeAgreement:
    """One judge against the people."""

    judge: str
    claims: int
    confusion: dict[str, dict[str, int]]
    """judge label (:data:`JUDGE_LABELS`) → human label → count."""
    kappa: Estimate
    """Over the claims the judge decided (``claims - uncertain``)."""
    unsupported_precision: Estimate
    unsupported_recall: Estimate
    kappa_by_week: dict[str, Estimate]
    uncertain: int = 0
    """Claims the judge left ``uncertain``: no verdict, so outside the kappa."""


@dataclass(frozen=True)
class Calibration:
    """Every judge's agreement with the people, and how sensible the claim splits were."""

    answers: int
    judges: list[JudgeAgreement]
    split_sensible: Estimate


def calibrate(path: str | Path) -> Calibration:
    """Judge–human agreement from a labelled review sheet (see the module docstring)."""
    rows = read_labels(path)
    names = sorted({j for r in rows for j in r.judges})
    agreements = []
    for judge in names:
        pairs = [(j, h, r.week) for r in rows if judge in r.judges
                 for j, h in zip(r.judges[judge], r.human, strict=True)]  # fmt: skip
        confusion = {a: dict.fromkeys(LABELS, 0) for a in JUDGE_LABELS}
        for j, h, _ in pairs:
            confusion[j][h] += 1
        flagged = sum(j == UNSUPPORTED for j, _, _ in pairs)
        truly = sum(h == UNSUPPORTED for _, h, _ in pairs)
        both = sum(j == h == UNSUPPORTED for j, h, _ in pairs)
        decided = [p for p in pairs if p[0] != UNCERTAIN]
        weeks = sorted({w for _, _, w in decided})
        by_week = {
            w: kappa_interval(
                [j for j, _, x in decided if x == w], [h for _, h, x in decided if x == w]
            )
            for w in weeks
        }
        kappa = kappa_interval([p[0] for p in decided], [p[1] for p in decided])
        agreements.append(JudgeAgreement(judge, len(pairs), confusion, kappa,
                                         wilson(both, flagged), wilson(both, truly), by_week,
                                         len(pairs) - len(decided)))  # fmt: skip
    rated = [r.split_sensible for r in rows if r.split_sensible is not None]
    return Calibration(len(rows), agreements, wilson(sum(rated), len(rated)))
