"""Verdicts back into OpenTelemetry: one ``gen_ai.evaluation.result`` event per stored verdict.

The OpenTelemetry GenAI conventions define the evaluation result as an event (a log record with
an event name) parented to the evaluated span. Each verdict row (one judged answer, one judge)
becomes one such record through the OTel Logs API — the SDK's ``LoggerProvider`` with the
OTLP/HTTP log exporter — carrying the judged generate span's trace and span id, so that Jaeger,
Grafana, Phoenix or Langfuse can show it beside the span; the collector routes it to ClickHouse
``otel_logs`` and its file exporter (``collector_config/``). docs/span-contract.md, "Evaluation
events", lists every attribute.
"""

from __future__ import annotations

import datetime as dt
import os
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, cast

from opentelemetry import trace
from opentelemetry._logs import LogRecord, SeverityNumber
from opentelemetry.context import Context
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import (
    BatchLogRecordProcessor,
    LogRecordExporter,
    LogRecordExportResult,
)
from opentelemetry.sdk.resources import SERVICE_NAME, Resource
from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags

import ragfunnel.environment_variables as env
from ragfunnel.analyzer.errors import AnalyzerError
from ragfunnel.analyzer.judges.tables import VerdictRow, read_verdicts
from ragfunnel.analyzer.judges.verdict_types import PARTIAL, SUPPORTED, UNSUPPORTED
from ragfunnel.analyzer.store import Store
from ragfunnel.analyzer.store.tables.verdicts import VERDICT_COLUMNS
from ragfunnel.instrumentation import contract as c

__all__ = [
    "ABSTAINED",
    "EVALUATION_NAME",
    "EVENT_NAME",
    "EmitError",
    "emit_verdicts",
    "label_of",
    "verdict_attributes",
]

EVENT_NAME = c.EVALUATION_EVENT
"""The event name of the GenAI semantic conventions (Development status)."""
EVALUATION_NAME = "faithfulness"
"""``gen_ai.evaluation.name`` of a verdict: how far the answer's claims are supported."""
ABSTAINED = "abstained"
"""``gen_ai.evaluation.score.label`` of an answer without a claim; else a claim label's."""
DEFAULT_ENDPOINT = "http://127.0.0.1:4318"
"""The collector's OTLP/HTTP receiver on this machine (``collector_config/``)."""
LOGS_PATH = "/v1/logs"


class EmitError(AnalyzerError):
    """The events could not be sent (the message names the endpoint and how many failed)."""


def _empty(kind: str) -> object:
    if kind.startswith("Array"):
        return []
    return None if kind.startswith("Nullable") else 0 if kind == "UInt8" else ""


_EMPTY = {name: _empty(kind) for name, kind in VERDICT_COLUMNS if name != "JudgedAt"}
"""A verdict row's columns, each empty (no claim, no score, not abstained, not sampled)."""


def _typed(row: Mapping[str, Any]) -> VerdictRow:
    """``row`` as the verdicts table's typed row, a column it lacks empty.

    The judges build their rows as one (``judge_store(...).rows``) and the table is read back
    with its columns; a caller's own row may hold only some of them. ``JudgedAt`` stays absent
    when the row has none.
    """
    return cast(VerdictRow, {**_EMPTY, **row})


def label_of(row: Mapping[str, Any]) -> str:
    """``abstained``, ``supported``, ``partial`` or ``unsupported``: the answer's weakest claim."""
    verdict = _typed(row)
    if verdict["Abstained"]:
        return ABSTAINED
    verdicts = list(verdict["ClaimVerdicts"] or [])
    if not verdicts or min(verdicts) >= 1:
        return SUPPORTED
    return UNSUPPORTED if min(verdicts) <= 0 else PARTIAL


def _explanation(verdict: VerdictRow, label: str) -> str:
    texts = list(verdict["ClaimTexts"] or [])
    verdicts = list(verdict["ClaimVerdicts"] or [])
    missing = list(verdict["ClaimMissing"] or [])
    if label == ABSTAINED:
        return "the answer abstained: no claim to judge"
    if label == SUPPORTED:
        return f"all {len(texts)} claim{'' if len(texts) == 1 else 's'} supported by the context"
    worst = min(range(len(verdicts)), key=lambda i: verdicts[i])
    term = missing[worst] if worst < len(missing) and missing[worst] else ""
    kind = "unsupported" if verdicts[worst] <= 0 else "partly supported"
    claim = texts[worst] if worst < len(texts) else ""
    return f"{kind} claim: {claim!r}" + (f" ({term})" if term else "")


def _claim_confidences(verdict: VerdictRow) -> list[float]:
    """Each claim's confidence, its verdict where the judge gave none (``ClaimVerdict.score``)."""
    verdicts = [float(v) for v in verdict["ClaimVerdicts"] or []]
    given = list(verdict["ClaimConfidences"] or [])
    return [
        float(confidence) if i < len(given) and (confidence := given[i]) is not None else score
        for i, score in enumerate(verdicts)
    ]


def verdict_attributes(row: Mapping[str, Any]) -> dict[str, Any]:
    """The event's attributes for one verdict row (docs/span-contract.md, "Evaluation events")."""
    verdict = _typed(row)
    label = label_of(verdict)
    attributes: dict[str, Any] = {
        c.EVALUATION_NAME: EVALUATION_NAME,
        c.EVALUATION_LABEL: label,
        c.EVALUATION_EXPLANATION: _explanation(verdict, label),
        c.EVALUATION_JUDGE: str(verdict["Judge"]),
        c.EVALUATION_POLICY: str(verdict["Policy"]),
        c.RUN_ID: str(verdict["RunId"]),
        c.EVALUATION_QUESTION_KEY: str(verdict["QuestionKey"]),
        c.EVALUATION_SAMPLED: bool(verdict["Sampled"]),
        c.EVALUATION_CLAIMS_TEXT: [str(t) for t in verdict["ClaimTexts"] or []],
        c.EVALUATION_CLAIMS_SCORE: [float(v) for v in verdict["ClaimVerdicts"] or []],
        c.EVALUATION_CLAIMS_CONFIDENCE: _claim_confidences(verdict),
        c.EVALUATION_CLAIMS_LABEL: [str(v) for v in verdict["ClaimLabels"] or []],
        c.EVALUATION_CLAIMS_MISSING: [str(v) for v in verdict["ClaimMissing"] or []],
        # OTLP attributes hold no nested arrays: each claim's chunk ids, space-separated.
        c.EVALUATION_CLAIMS_SUPPORTING_IDS: [
            " ".join(ids or []) for ids in verdict["ClaimSupportingIds"] or []
        ],
        c.EVALUATION_SIGNALS: [str(s) for s in verdict["Signals"] or []],
    }
    if (faithfulness := verdict["Faithfulness"]) is not None:
        attributes[c.EVALUATION_SCORE] = float(faithfulness)
    if (confidence := verdict["Confidence"]) is not None:
        attributes[c.EVALUATION_CONFIDENCE] = float(confidence)
    if correctness := verdict["Correctness"]:
        attributes[c.EVALUATION_CORRECTNESS] = str(correctness)
        attributes[c.EVALUATION_CORRECTNESS_REASON] = str(verdict["CorrectnessReason"])
    return attributes


class _Counted(LogRecordExporter):
    """The real exporter, with every batch's outcome counted (the processor drops failures)."""

    def __init__(self, inner: LogRecordExporter) -> None:
        self.inner = inner
        self.sent = 0
        self.failed = 0

    def export(self, batch: Sequence[Any]) -> LogRecordExportResult:
        result = self.inner.export(batch)
        if result == LogRecordExportResult.SUCCESS:
            self.sent += len(batch)
        else:
            self.failed += len(batch)
        return result

    def shutdown(self) -> None:
        self.inner.shutdown()  # type: ignore[no-untyped-call]

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        return self.inner.force_flush(timeout_millis)


def _logs_url(endpoint: str | None) -> str | None:
    """``http://host:4318`` → ``…/v1/logs``; None lets the exporter read OTEL_EXPORTER_OTLP_*."""
    if endpoint is None:
        if env.read("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT") or env.read("OTEL_EXPORTER_OTLP_ENDPOINT"):
            return None
        endpoint = DEFAULT_ENDPOINT
    if not endpoint.startswith(("http://", "https://")):
        raise EmitError(f"the OTLP endpoint must be http(s)://host:port, got {endpoint!r}",
                        argument="endpoint")  # fmt: skip
    stripped = endpoint.rstrip("/")
    return stripped if stripped.endswith(LOGS_PATH) else stripped + LOGS_PATH


def _hex(value: Any, width: int) -> int | None:
    try:
        number = int(str(value), 16)
    except ValueError:
        return None
    return number if 0 < number < 16**width else None


def _nanoseconds(moment: dt.datetime) -> int:
    """A stored (UTC, naive) or aware time as Unix nanoseconds."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.timezone.utc)
    return int(moment.timestamp() * 1_000_000) * 1000


def _span_context(verdict: VerdictRow) -> Context | None:
    """The judged generate span as the event's parent (None when the row names no valid span)."""
    trace_id, span_id = _hex(verdict["TraceId"], 32), _hex(verdict["SpanId"], 16)
    if trace_id is None or span_id is None:
        return None
    parent = SpanContext(trace_id, span_id, is_remote=True, trace_flags=TraceFlags(1))
    return trace.set_span_in_context(NonRecordingSpan(parent))


def emit_verdicts(
    verdicts: Store | str | os.PathLike[str] | Iterable[Mapping[str, Any]],
    *,
    endpoint: str | None = None,
    runs: Sequence[str] = (),
    exporter: LogRecordExporter | None = None,
    service_name: str = "ragfunnel-judge",
) -> int:
    """Send each verdict as a ``gen_ai.evaluation.result`` event; returns how many were sent.

    Args:
        verdicts: verdict rows (``judge_store(...).rows``, or any iterable of them), or a store
            (open, or a DSN or path) whose stored verdicts (of ``runs``) are read.
        runs: only the verdicts of these run ids (default all).
        endpoint: the OTLP/HTTP endpoint (``http://host:4318``; ``/v1/logs`` is added); default
            ``OTEL_EXPORTER_OTLP_LOGS_ENDPOINT`` / ``OTEL_EXPORTER_OTLP_ENDPOINT``, else
            ``http://127.0.0.1:4318``.
        exporter: another log record exporter (tests, or a gRPC one); ``endpoint`` is unused then.
        service_name: the ``service.name`` of the events' resource.

    Raises:
        EmitError: a bad endpoint, or events the endpoint did not accept.
    """
    rows = _rows(verdicts, runs)
    if not rows:
        return 0
    if exporter is None:
        from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter

        exporter = OTLPLogExporter(endpoint=_logs_url(endpoint), timeout=10)
    counted = _Counted(exporter)
    provider = LoggerProvider(resource=Resource.create({SERVICE_NAME: service_name}))
    provider.add_log_record_processor(BatchLogRecordProcessor(counted, max_export_batch_size=512))
    logger = provider.get_logger("ragfunnel.analyzer.export")
    now = time.time_ns()
    try:
        for row in rows:
            verdict = _typed(row)
            judged = verdict.get("JudgedAt")
            stamp = _nanoseconds(judged) if isinstance(judged, dt.datetime) else now
            logger.emit(
                LogRecord(
                    timestamp=stamp,
                    observed_timestamp=now,
                    context=_span_context(verdict),
                    severity_number=SeverityNumber.INFO,
                    event_name=EVENT_NAME,
                    attributes=verdict_attributes(verdict),
                )
            )
        provider.force_flush()
    finally:
        provider.shutdown()
    if counted.failed or counted.sent < len(rows):
        where = _logs_url(endpoint) or "the OTEL_EXPORTER_OTLP_* endpoint"
        raise EmitError(
            f"sent {counted.sent:,} of {len(rows):,} evaluation events to {where}: "
            "is a collector listening there (collector_config/)?",
            argument="endpoint",
        )
    return counted.sent


def _rows(
    verdicts: Store | str | os.PathLike[str] | Iterable[Mapping[str, Any]], runs: Sequence[str]
) -> list[Mapping[str, Any]]:
    if isinstance(verdicts, Store):
        return list(read_verdicts(verdicts, runs=runs).iter_rows(named=True))
    if isinstance(verdicts, (str, os.PathLike)):
        with Store.open_for_analysis(os.fspath(verdicts), read_only=True) as store:
            return list(read_verdicts(store, runs=runs).iter_rows(named=True))
    chosen = set(runs)
    return [r for r in verdicts if not chosen or _typed(r)["RunId"] in chosen]
