"""Where spans go: an exporter spec turned into an OpenTelemetry ``SpanExporter``.

Specs: ``file:PATH``, ``otlp``, ``otlp+http``, ``otlp+grpc``, ``none``. Every spec that cannot be honoured raises :class:`ConfigError` with the reason; ``configure()``
decides whether that reaches the developer (an explicit argument) or becomes a warning (the
environment). This module creates the exporter (and, for ``file:``, the file) and nothing else.
"""

from __future__ import annotations

import os
from pathlib import Path

from opentelemetry.sdk.trace.export import SpanExporter

from ragfunnel.instrumentation.settings import ConfigError

DEFAULT_TRACE_DIR = Path(".ragfunnel") / "traces"
DEFAULT_TRACE_FILE = str(DEFAULT_TRACE_DIR / "spans-{pid}.jsonl")
"""Default destination, relative to the working directory: one OTLP-JSON file per process."""

SPECS = "'file:PATH', 'otlp', 'otlp+http', 'otlp+grpc' or 'none'"


def make_exporter(spec: str) -> SpanExporter | None:
    """The exporter for ``spec`` (``None`` for ``none``); :class:`ConfigError` if impossible."""
    if spec == "none":
        return None
    if spec.startswith("file:"):
        return _file_exporter(spec[len("file:") :] or DEFAULT_TRACE_FILE)
    kind, _, protocol = spec.partition("+")
    if kind != "otlp":
        raise ConfigError(f"unknown exporter {spec!r}: use {SPECS}")
    protocol = protocol or os.environ.get(
        "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", os.environ.get("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
    )
    if protocol == "grpc":
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter

        return OTLPSpanExporter()
    if protocol in {"http", "http/protobuf"}:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import (
            OTLPSpanExporter as HTTPSpanExporter,
        )

        return HTTPSpanExporter()
    raise ConfigError(f"unsupported OTLP protocol {protocol!r}: use grpc or http/protobuf")


def _file_exporter(raw: str) -> SpanExporter:
    from opentelemetry.exporter.otlp.json.file import FileSpanExporter

    path = Path(raw.replace("{pid}", str(os.getpid())))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        return FileSpanExporter(str(path))
    except OSError as exc:  # a read-only directory, a path under /proc, a full disk
        raise ConfigError(f"cannot write traces to {path}: {exc.strerror or exc}") from None
