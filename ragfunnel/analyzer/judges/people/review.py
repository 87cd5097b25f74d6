"""The weekly review sheet: a few judged answers for a person to label, as CSV and JSON Lines.

``review_sheet`` picks ``n`` answers (20 by default) with one seed per ISO week (``2026-W49``:
the same week gives the same sheet, the next week a fresh one), each with its question, the
prompt's context, the answer, the claim split (the LLM judge's when it judged the answer,
else the offline splitter's) and every judge's verdict of each claim (the offline judge rates
the sheet's claims itself, so its column is always complete). The person fills in
``human_labels`` (one label per claim, ``;``-separated in CSV: ``supported``, ``partial``,
``unsupported``, or ``s`` / ``p`` / ``u``), ``claim_split_sensible`` (yes / no) and ``notes``;
``ragfunnel calibrate`` reads the file back (``calibration.py``).

Reading the store only; the sheet goes to files the caller names.
"""

from __future__ import annotations

import csv
import datetime as dt
import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import polars as pl

from ragfunnel.analyzer.judges import tables
from ragfunnel.analyzer.judges.answers import read_answers
from ragfunnel.analyzer.judges.offline import judge_claim
from ragfunnel.analyzer.judges.verdict_types import Chunk
from ragfunnel.analyzer.language.claims import split_claims
from ragfunnel.analyzer.store.tables.verdicts import OFFLINE_JUDGE, VerdictRow, deciding_rows

if TYPE_CHECKING:
    from ragfunnel.analyzer.store import Store

__all__ = ["CSV_COLUMNS", "DEFAULT_SIZE", "iso_week", "review_sheet", "write_sheet"]

DEFAULT_SIZE = 20
CSV_COLUMNS = (
    "review_id", "week", "run_id", "trace_id", "question_id", "question", "context", "answer",
    "claims", "judges", "human_labels", "claim_split_sensible", "notes",
)  # fmt: skip


def iso_week(day: dt.date | None = None) -> str:
    """The ISO week of ``day`` (default today, UTC), e.g. ``2026-W49``: the sheet's seed."""
    year, week, _ = (day or dt.datetime.now(dt.timezone.utc).date()).isocalendar()
    return f"{year}-W{week:02d}"


def _order(week: str, trace_id: str, question_key: str) -> str:
    return hashlib.sha256(f"{week}\x1f{trace_id}\x1f{question_key}".encode()).hexdigest()


def review_sheet(
    store: Store, *, n: int = DEFAULT_SIZE, week: str | None = None, runs: Sequence[str] = ()
) -> list[dict[str, Any]]:
    """``n`` judged answers for review (see the module docstring), in sheet order."""
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n!r}")
    seed = week or iso_week()
    answers = read_answers(store, runs=runs).filter(pl.col("has_answer") & pl.col("has_context"))
    verdicts = tables.read_verdicts(store, runs=list(runs))
    by_answer: dict[tuple[str, str], list[VerdictRow]] = {}
    for row in verdicts.iter_rows(named=True):
        verdict = cast(VerdictRow, row)  # the table's columns (tables.read_verdicts)
        by_answer.setdefault((verdict["TraceId"], verdict["QuestionKey"]), []).append(verdict)
    picked = sorted(
        (
            r
            for r in answers.iter_rows(named=True)
            if (r["trace_id"], r["question_key"]) in by_answer
        ),
        key=lambda r: _order(seed, r["trace_id"], r["question_key"]),
    )[:n]
    sheet = []
    for number, r in enumerate(picked, start=1):
        rows = by_answer[(r["trace_id"], r["question_key"])]
        (decides,) = deciding_rows(rows)  # one answer: its deciding verdict
        llm = decides if decides["Judge"] != OFFLINE_JUDGE else None
        claims = list(llm["ClaimTexts"]) if llm else list(split_claims(r["answer"]).claims)
        chunks = [Chunk(i, t) for i, t in zip(r["context_ids"], r["context_texts"], strict=False)]
        offline = [judge_claim(c, chunks) for c in claims]
        judged = {OFFLINE_JUDGE: [_verdict(v.label, v.missing, v.text) for v in offline]}
        for v in rows:
            if v["Judge"] != OFFLINE_JUDGE and list(v["ClaimTexts"]) == claims:
                judged[v["Judge"]] = [
                    _verdict(label, missing, text)
                    for text, label, missing in zip(v["ClaimTexts"], v["ClaimLabels"], v["ClaimMissing"], strict=True)
                ]  # fmt: skip
        sheet.append({
            "review_id": f"{seed}-{number:02d}", "week": seed, "run_id": r["run_id"],
            "trace_id": r["trace_id"], "question_id": r["question_key"],
            "question": r["question"] or "",
            "context": [{"id": c.id, "text": c.text} for c in chunks], "answer": r["answer"],
            "claims": claims, "judges": judged, "human_labels": [None] * len(claims),
            "claim_split_sensible": None, "notes": "",
        })  # fmt: skip
    return sheet


def _verdict(label: str, missing: str, claim: str) -> dict[str, Any]:
    return {"claim": claim, "label": label, "missing": missing}


_FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


def _inert(value: Any) -> Any:
    """A CSV cell a spreadsheet shows as text: OWASP's CSV-injection rule, a leading ``'``.

    Questions, answers (model output a prompt injection can shape) and ids can start with a
    formula character; ``ragfunnel calibrate`` reads only cells that never do (JSON, labels).
    """
    if isinstance(value, str) and value.startswith(_FORMULA_PREFIXES):
        return "'" + value
    return value


def write_sheet(
    sheet: Sequence[dict[str, Any]], csv_path: Path | None, jsonl_path: Path | None
) -> None:
    """Write the sheet as CSV (JSON in the list cells) and/or JSON Lines."""
    if jsonl_path is not None:
        with jsonl_path.open("w", encoding="utf-8") as out:
            for row in sheet:
                out.write(json.dumps(row, ensure_ascii=False) + "\n")
    if csv_path is not None:
        with csv_path.open("w", encoding="utf-8", newline="") as out:
            writer = csv.DictWriter(out, fieldnames=CSV_COLUMNS)
            writer.writeheader()
            for row in sheet:
                cells = dict(row)
                cells["context"] = "\n\n".join(f"[{c['id']}] {c['text']}" for c in row["context"])
                cells["claims"] = json.dumps(row["claims"], ensure_ascii=False)
                cells["judges"] = json.dumps(
                    {j: [v["label"] for v in vs] for j, vs in row["judges"].items()}
                )
                cells["human_labels"] = ""
                cells["claim_split_sensible"] = ""
                writer.writerow({k: _inert(v) for k, v in cells.items()})
