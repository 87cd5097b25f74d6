"""Jaeger v2's recorded API v3 answer for the golden spans, and the time it was asked at."""

from __future__ import annotations

from datetime import datetime, timezone

from tests.support.data import DATA

V3_ANSWER = (DATA / "jaeger_v3.json").read_bytes()
NOW = datetime(2023, 11, 14, 23, 0, tzinfo=timezone.utc)
