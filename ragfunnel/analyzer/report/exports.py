"""Exports with versioned schemas: per-question records (JSON Lines, Parquet), a summary JSON.

docs/report.md documents each schema; a change of a column's meaning or type bumps its
version. Records are the funnel's, with enumerations written as text so that any reader gets
plain strings. This module writes only the files it is given; it must never touch a store.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import polars as pl

from ragfunnel.analyzer.funnel.run_summaries import METRICS
from ragfunnel.analyzer.report.contents import Report, to_jsonable
from ragfunnel.analyzer.report.report_error import ReportError

__all__ = [
    "DIFF_SCHEMA_VERSION",
    "RECORDS_SCHEMA_VERSION",
    "SUMMARY_SCHEMA_VERSION",
    "diff_summary",
    "export_frame",
    "read_records",
    "records_schema",
    "summary",
    "write_jsonl",
    "write_parquet",
    "write_summary",
]

RECORDS_SCHEMA_VERSION = 1
SUMMARY_SCHEMA_VERSION = 2
"""2: ``faithfulness_bins`` has eleven bins (1.0 its own), the curve's coverage counts every
scored question and its risk is the one ``ragfunnel threshold`` reports; header fields added."""
DIFF_SCHEMA_VERSION = 1

_S, _I, _F, _B = pl.String(), pl.Int64(), pl.Float64(), pl.Boolean()
_EVIDENCE = pl.List(
    pl.Struct(
        {
            "id": _S, "in_index": _B, "candidate_rank": _I, "rerank_rank": _I, "in_prompt": _B,
            "prompt_position": _I, "lost_at": _S, "reason": _S,
            "retriever_ranks": pl.List(pl.Struct({"retriever": _S, "rank": _I})),
        }
    )
)  # fmt: skip
_CLAIMS = pl.List(
    pl.Struct(
        {"text": _S, "verdict": _F, "label": _S, "supporting_ids": pl.List(_S), "missing": _S,
         "judge": _S}
    )
)  # fmt: skip
_FIXED: dict[str, pl.DataType] = {
    "schema_version": _I, "question_id": _S, "run_id": _S, "trace_id": _S, "question_key": _S,
    "started": pl.Datetime("us", "UTC"), "occurrence": _I, "latest": _B, "mode": _S,
    "first_failure": _S, "failure_reason": _S, "failure_item": _S, "answer_verdict": _S,
    "answer_reason": _S, "oracle_verdict": _S, "oracle_note": _S, "abstained": _B,
    "answerable": _B, "k_prompt": _I, "prompt_source": _S, "prompt_size": _I, "candidates": _I, "top_score": _F,
    "cut_threshold": _F, "index_version": _S, "evidence": _EVIDENCE, "missing": pl.List(_S), "flags": pl.List(_S),
    "errors": pl.List(_S), "low_confidence_tokens": pl.List(_S), "logprobs_min": _F,
    "sample_disagreement": _B, "conflicting_documents": pl.List(_S),
}  # fmt: skip
_VERDICTS: dict[str, pl.DataType] = {
    "faithfulness": _F, "confidence": _F, "claims": _CLAIMS, "answer_correctness": _S, "correctness_reason": _S,
}  # fmt: skip


def records_schema(k: Sequence[int]) -> dict[str, pl.DataType]:
    """The export's columns and types for metric cut-offs ``k`` (version 1, docs/report.md)."""
    schema = dict(_FIXED)
    for suffix in ["cut", *(str(v) for v in k)]:
        schema.update({f"{m}_at_{suffix}": _F for m in METRICS})
        schema[f"metrics_note_at_{suffix}"] = _S
    schema.update(_VERDICTS)
    return schema


_OPTIONAL = ("answerable", "cut_threshold", *_VERDICTS)
"""Columns older records may lack: exported as nulls, so every export has one schema."""


def export_frame(records: pl.DataFrame, k: Sequence[int]) -> pl.DataFrame:
    """The records in the export schema: text instead of enums, UTC microseconds, NaN as null."""
    schema = records_schema(k)
    frame = records.with_columns(
        *(pl.lit(None, schema[c]).alias(c) for c in _OPTIONAL if c not in records.columns),
        schema_version=pl.lit(RECORDS_SCHEMA_VERSION, _I),
        started=pl.col("started").dt.replace_time_zone("UTC").dt.cast_time_unit("us"),
    )
    missing = [c for c in schema if c not in frame.columns]
    if missing:
        raise ReportError(f"records: missing column(s) {', '.join(missing)} (k = {list(k)})")
    # NaN (an undefined metric) is null in both formats: JSON has no NaN; the note says why.
    typed = frame.select(pl.col(name).cast(dtype) for name, dtype in schema.items())
    return typed.with_columns(pl.col(pl.Float64).fill_nan(None))


def _write(path: str | Path, what: str, write: Any) -> Path:
    target = Path(path)
    try:
        write(target)
    except OSError as exc:
        raise ReportError(f"{target}: cannot write {what}: {exc.strerror or exc}") from None
    return target


def write_jsonl(records: pl.DataFrame, k: Sequence[int], path: str | Path) -> Path:
    """Write one JSON object per record (export schema) to ``path``."""
    frame = export_frame(records, k)
    return _write(path, "the records", frame.write_ndjson)


def write_parquet(records: pl.DataFrame, k: Sequence[int], path: str | Path) -> Path:
    """Write the records (export schema) as Parquet to ``path``."""
    frame = export_frame(records, k)
    return _write(path, "the records", frame.write_parquet)


def read_records(path: str | Path, k: Sequence[int]) -> pl.DataFrame:
    """Read an export back with its documented types (``.parquet`` or JSON Lines)."""
    source = Path(path)
    schema = records_schema(k)
    try:
        if source.suffix == ".parquet":
            return pl.read_parquet(source)
        return pl.read_ndjson(source, schema=schema)
    except (OSError, pl.exceptions.PolarsError) as exc:
        raise ReportError(f"{source}: cannot read the records: {exc}") from None


def summary(report: Report, *, diff: Any = None, gate: Sequence[str] = ()) -> dict[str, Any]:
    """The summary JSON: the whole report model (and a diff and gate breaches, if given)."""
    out: dict[str, Any] = {
        "schema": "ragfunnel.report.summary",
        "schema_version": SUMMARY_SCHEMA_VERSION,
        **to_jsonable(report),
    }
    if diff is not None:
        out["diff"] = to_jsonable(diff)
    out["gate"] = {"passed": not gate, "breaches": list(gate)}
    return out


def write_summary(
    report: Report, path: str | Path, *, diff: Any = None, gate: Sequence[str] = ()
) -> Path:
    """Write :func:`summary` as indented JSON to ``path``."""
    text = json.dumps(summary(report, diff=diff, gate=gate), indent=2, ensure_ascii=False)
    return _write(path, "the summary", lambda p: p.write_text(text + "\n", encoding="utf-8"))


def diff_summary(diff: Any, *, alpha: float = 0.05) -> dict[str, Any]:
    """The diff's JSON: every field of ``diff.RunDiff`` plus its regressions."""
    return {
        "schema": "ragfunnel.report.diff",
        "schema_version": DIFF_SCHEMA_VERSION,
        **to_jsonable(diff),
        "regressions": diff.regressions(alpha),
    }
