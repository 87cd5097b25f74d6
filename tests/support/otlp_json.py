"""OTLP JSON spans and lines as the SDK's file exporter writes them, with ids from small numbers."""

from __future__ import annotations

import json
from typing import Any

from ragfunnel.analyzer.store import Store

T0 = 1_800_000_000_000_000_000


def span(n: int, *, trace: int = 1, parent: int | None = None, **extra: Any) -> dict[str, Any]:
    """An OTLP JSON span with ids derived from small numbers."""
    body: dict[str, Any] = {
        "traceId": f"{trace:032x}",
        "spanId": f"{n:016x}",
        "name": f"span {n}",
        "kind": 1,
        "startTimeUnixNano": str(T0 + n * 1000),
        "endTimeUnixNano": str(T0 + n * 1000 + 500),
        "attributes": [{"key": "n", "value": {"intValue": str(n)}}],
    }
    if parent is not None:
        body["parentSpanId"] = f"{parent:016x}"
    body.update(extra)
    return body


def line(*spans: dict[str, Any]) -> str:
    """One OTLP JSON line, as the SDK's file exporter writes it."""
    return json.dumps(
        {
            "resourceSpans": [
                {
                    "resource": {
                        "attributes": [{"key": "service.name", "value": {"stringValue": "svc"}}]
                    },
                    "scopeSpans": [{"scope": {"name": "test"}, "spans": list(spans)}],
                }
            ]
        },
        separators=(",", ":"),
    )


def count(store: Store) -> int:
    value = store.command(f"SELECT count() FROM {store.traces_table}")
    assert isinstance(value, int)
    return value
