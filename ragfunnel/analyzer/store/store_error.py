"""The error of the store layer: what went wrong talking to ClickHouse, in one message."""

from __future__ import annotations

from ragfunnel.analyzer.errors import AnalyzerError

__all__ = ["StoreError"]


class StoreError(AnalyzerError):
    """The store cannot be opened or used; the message says why and never holds a password."""
