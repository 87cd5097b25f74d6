"""``file:PATH``: OTLP-JSON lines appended to a file, never a half-written line left behind.

The format is the OpenTelemetry JSON file exporter's (one ``ExportTraceServiceRequest`` per
line, the same encoder and the same compact JSON), but the writing is ragfunnel's: the SDK's
exporter writes through a buffered text stream, so a batch that hits a full disk (``ENOSPC``)
or a file-size limit (``EFBIG``) leaves its first half in the file, and whatever the buffer
still holds is glued to the next batch — spans the app counted as exported become unreadable.

Here each batch is written as lines of at most :data:`SPANS_PER_LINE` spans, so a crash (or a
failed write) costs at most one short line; each line is one ``bytes`` value written with
``os.write`` on an ``O_APPEND`` descriptor.
When a write fails part-way, the file is truncated back to where the line began (the last
complete line) if nothing else wrote to it since; otherwise, and whenever the file does not end
with a newline when a batch starts (a crashed writer, a process sharing the file), the line
starts on a new line. A failed line is counted ``failed`` by the processor and under
``internal_error_counts()["file exporter"]``, and logged once, without a traceback.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Sequence
from pathlib import Path

from opentelemetry.exporter.otlp.json.common.trace_encoder import encode_spans
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

from ragfunnel.instrumentation.safety import internal_error, outside_failure

WHERE = "file exporter"
SUCCESS = SpanExportResult.SUCCESS
SPANS_PER_LINE = 32
"""The most spans one line holds (a line is one ``ExportTraceServiceRequest``)."""


def encode_line(spans: Sequence[ReadableSpan]) -> bytes | None:
    """One OTLP-JSON line (with its newline) for ``spans``; ``None`` when there is nothing."""
    request = encode_spans(spans)
    if not request.resource_spans:
        return None
    return (json.dumps(request.to_dict(), separators=(",", ":")) + "\n").encode("utf-8")


class JsonLinesSpanExporter(SpanExporter):
    """Append each batch to ``path`` as OTLP-JSON lines; see the module docstring.

    ``export`` writes lines of at most :data:`SPANS_PER_LINE` spans and stops at the first line
    that fails (the lines before it stay written). ragfunnel's processor hands it at most that
    many spans per call (``spans_per_export``), so its counts stay exact.
    """

    spans_per_export = SPANS_PER_LINE

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        # Read and write: the last byte is read back to know whether the file ends a line.
        self._fd: int | None = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o666)
        self._lock = threading.Lock()

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:  # noqa: D102
        for start in range(0, len(spans), SPANS_PER_LINE):
            if self._export_line(spans[start : start + SPANS_PER_LINE]) is not SUCCESS:
                return SpanExportResult.FAILURE
        return SUCCESS

    def _export_line(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        try:
            line = encode_line(spans)
        except Exception as exc:  # noqa: BLE001 - a span the encoder cannot take is our bug
            internal_error("file exporter encoding", exc)
            return SpanExportResult.FAILURE
        if line is None:
            return SUCCESS
        with self._lock:
            if self._fd is None:
                return SpanExportResult.FAILURE
            try:
                self._append(self._fd, line)
            except OSError as exc:
                outside_failure(WHERE, f"cannot write spans to {self.path}: {exc.strerror or exc}")
                return SpanExportResult.FAILURE
        return SUCCESS

    @staticmethod
    def _append(fd: int, line: bytes) -> None:
        start = os.fstat(fd).st_size
        if start and os.pread(fd, 1, start - 1) != b"\n":
            line = b"\n" + line  # the file ends mid-line: never glue this line to it
        view = memoryview(line)
        written = 0
        try:
            while written < len(view):
                written += os.write(fd, view[written:])
        except OSError:
            if written and os.fstat(fd).st_size == start + written:
                # Only this line's bytes are past ``start``: cut them off again. (Shrinking a
                # file needs no space.) Otherwise the next batch starts on a new line.
                with contextlib.suppress(OSError):
                    os.ftruncate(fd, start)
            raise

    def shutdown(self) -> None:  # noqa: D102
        with self._lock:
            fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)

    def force_flush(self, timeout_millis: int = 30_000) -> bool:  # noqa: D102
        return True  # every batch is written (or failed) before export returns
