"""What the analyzer sends back to other tools: verdicts as OpenTelemetry events (``otel_events``)."""

from ragfunnel.analyzer.export.otel_events import (
    EVENT_NAME,
    EmitError,
    emit_verdicts,
    verdict_attributes,
)

__all__ = ["EVENT_NAME", "EmitError", "emit_verdicts", "verdict_attributes"]
