"""The report layer's one error type: a bad limit, a missing run, an unwritable export.

It must never carry anything but a message a user can act on (the CLI prints it as one line).
"""

from __future__ import annotations

from ragfunnel.analyzer.errors import AnalyzerError

__all__ = ["ReportError"]


class ReportError(AnalyzerError):
    """The report cannot be built or checked as asked: the message names what to change."""
