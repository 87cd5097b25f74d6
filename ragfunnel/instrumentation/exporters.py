"""Where spans go: an exporter spec turned into an OpenTelemetry ``SpanExporter``.

Specs: ``file:PATH``, ``otlp``, ``otlp+http``, ``otlp+grpc``, ``none``. Every spec that cannot be honoured raises :class:`ConfigError` with the reason; ``configure()``
decides whether that reaches the developer (an explicit argument) or becomes a warning (the
environment). This module creates the exporter (and, for ``file:``, the file) and nothing else.
"""

from __future__ import annotations

import importlib
import logging
import os
from pathlib import Path

from opentelemetry.sdk.trace.export import SpanExporter

import ragfunnel.environment_variables as env
from ragfunnel.instrumentation.settings import ConfigError

logger = logging.getLogger("ragfunnel")

DEFAULT_TRACE_DIR = Path(".ragfunnel") / "traces"
DEFAULT_TRACE_FILE = str(DEFAULT_TRACE_DIR / "spans-{pid}.jsonl")
"""Default destination, relative to the working directory: one OTLP-JSON file per process."""

SPECS = "'file:PATH', 'otlp', 'otlp+http', 'otlp+grpc' or 'none'"


GRPC_MISSING = "the OTLP/gRPC exporter is not installed (pip install 'ragfunnel[grpc]')"


def make_exporter(spec: str) -> SpanExporter | None:
    """The exporter for ``spec`` (``None`` for ``none``); :class:`ConfigError` if impossible.

    ``otlp`` picks its protocol the way the OpenTelemetry Python SDK does —
    ``OTEL_EXPORTER_OTLP_TRACES_PROTOCOL``, else ``OTEL_EXPORTER_OTLP_PROTOCOL``, else gRPC — except
    that without the ``[grpc]`` extra the default is ``http/protobuf``, the one the base install
    has. A protocol variable that cannot be honoured is the environment's: it warns and falls
    back. ``otlp+grpc`` / ``otlp+http`` name the protocol in the spec itself.
    """
    if spec == "none":
        return None
    if spec.startswith("file:"):
        return _file_exporter(spec[len("file:") :] or DEFAULT_TRACE_FILE)
    kind, plus, protocol = spec.partition("+")
    if kind != "otlp":
        raise ConfigError(f"unknown exporter {spec!r}: use {SPECS}")
    if not plus:
        return _otlp(otlp_protocol())
    if protocol == "grpc":
        exporter = _grpc()
        if exporter is None:
            raise ConfigError(f"exporter {spec!r}: {GRPC_MISSING}; or use 'otlp+http'")
        return exporter
    if protocol in {"http", "http/protobuf"}:
        return _otlp("http/protobuf")
    raise ConfigError(f"unsupported OTLP protocol {protocol!r} in {spec!r}: use grpc or http")


def otlp_protocol() -> str:
    """``grpc`` or ``http/protobuf``: what ``otlp`` uses under the current environment."""
    default = "grpc" if _grpc_installed() else "http/protobuf"
    for name in ("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"):
        raw = (env.read(name) or "").strip()
        if not raw:
            continue
        if raw == "grpc" and default != "grpc":
            logger.warning("ignoring %s=grpc: %s; using http/protobuf", name, GRPC_MISSING)
        elif raw in {"grpc", "http/protobuf"}:
            return raw
        else:
            logger.warning(
                "ignoring %s=%r (the OTLP exporters speak grpc or http/protobuf); using %s",
                name,
                raw,
                default,
            )
        return default
    return default


def _otlp(protocol: str) -> SpanExporter:
    if protocol == "grpc":
        exporter = _grpc()
        if exporter is not None:
            return exporter
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import (
        OTLPSpanExporter as HTTPSpanExporter,
    )

    return HTTPSpanExporter()


def _grpc_installed() -> bool:
    try:
        importlib.import_module("opentelemetry.exporter.otlp.proto.grpc.trace_exporter")
    except ImportError:
        return False
    return True


def _grpc() -> SpanExporter | None:
    try:
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
    except ImportError:
        return None
    return OTLPSpanExporter()


def _file_exporter(raw: str) -> SpanExporter:
    from ragfunnel.instrumentation.file_export import JsonLinesSpanExporter

    path = Path(raw.replace("{pid}", str(os.getpid())))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        return JsonLinesSpanExporter(path)
    except OSError as exc:  # a read-only directory, a path under /proc, a full disk
        raise ConfigError(f"cannot write traces to {path}: {exc.strerror or exc}") from None
