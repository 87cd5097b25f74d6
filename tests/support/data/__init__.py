"""Recorded data of the tests: golden spans, Jaeger answers, pdata's AsString values, SQL."""

from __future__ import annotations

from pathlib import Path

DATA = Path(__file__).parent
