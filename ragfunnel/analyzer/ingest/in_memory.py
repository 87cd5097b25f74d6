"""Ingesting what is already in memory: OTLP JSON lines, finished SDK spans, one document.

The SDK's spans go through the JSON file exporter's own encoder, so they take exactly the
path of its files.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import msgspec
import pyarrow as pa

from ragfunnel.analyzer.ingest import otlp
from ragfunnel.analyzer.ingest.chunking import Loader
from ragfunnel.analyzer.ingest.result import IngestError, IngestSummary
from ragfunnel.analyzer.ingest.writer import writing
from ragfunnel.analyzer.store import Store
from ragfunnel.analyzer.store.opening import StoreArg, takes_store

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import ReadableSpan


__all__ = ["ingest_lines", "ingest_spans", "spans_to_arrow"]


@takes_store("ingest")
def ingest_lines(
    store: StoreArg, lines: Iterable[bytes | str], *, source: str = "<memory>"
) -> IngestSummary:
    """Ingest OTLP JSON lines (or a Jaeger / OTLP JSON document split into lines)."""
    assert isinstance(store, Store)  # takes_store opened it
    summary = IngestSummary(files=1)
    with writing(store, summary) as writer:
        loader = Loader(writer, summary)
        otlp.read_lines(_as_bytes(lines), source, loader)
        loader.flush()
    return summary


def _as_bytes(lines: Iterable[bytes | str]) -> Iterator[bytes]:
    for line in lines:
        data = line.encode() if isinstance(line, str) else line
        yield data if data.endswith(b"\n") else data + b"\n"


def _encode_sdk_spans(spans: Sequence[ReadableSpan]) -> bytes | None:
    # The JSON file exporter's own encoder, so these spans take exactly the path of its files.
    from opentelemetry.exporter.otlp.json.file.trace_exporter import _encode_spans_to_dict

    document = _encode_spans_to_dict(spans)
    return msgspec.json.encode(document) if document else None


@takes_store("ingest")
def ingest_spans(store: StoreArg, spans: Sequence[ReadableSpan]) -> IngestSummary:
    """Ingest finished OpenTelemetry SDK spans (e.g. from an ``InMemorySpanExporter``)."""
    encoded = _encode_sdk_spans(spans)
    return ingest_lines(store, [encoded] if encoded else [], source="<spans>")


def spans_to_arrow(data: Sequence[ReadableSpan] | bytes | str | dict[str, Any]) -> pa.Table:
    """``otel_traces`` rows, as an Arrow table, for SDK spans or one OTLP JSON document.

    No store is involved and nothing is de-duplicated across calls.

    Raises:
        IngestError: some span could not be converted (the message lists why).
    """
    if isinstance(data, dict):
        encoded: bytes | None = msgspec.json.encode(data)
    elif isinstance(data, str):
        encoded = data.encode()
    elif isinstance(data, bytes):
        encoded = data
    else:
        encoded = _encode_sdk_spans(data)
    summary = IngestSummary()
    loader = Loader(None, summary, chunk_spans=2**62)
    if encoded:
        otlp.read_document(encoded, "<data>", loader)
    if summary.skipped:
        raise IngestError("; ".join(str(skip) for skip in summary.skipped[:5]))
    return loader.chunk().table
