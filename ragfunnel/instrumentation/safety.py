"""Keeping the app safe from ragfunnel: internal errors and unread values, counted and logged once.

Instrumentation runs inside production request paths. Anything that goes wrong in here — an
extractor that meets an unexpected return shape, a user's ``ids=`` callable that raises, a
redaction hook that fails — is logged once per place, counted, and swallowed. The project's own
test suite flips :data:`RERAISE` so that such bugs fail tests instead of hiding.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter

logger = logging.getLogger("ragfunnel")

RERAISE = False
"""When true, internal errors propagate (set by ragfunnel's own tests; never in production)."""

_lock = threading.Lock()
_counts: Counter[str] = Counter()
_logged: set[str] = set()


def _counted(where: str) -> bool:
    """Count one failure at ``where``; True for the first, the one that is logged."""
    with _lock:
        _counts[where] += 1
        first = where not in _logged
        _logged.add(where)
    return first


def internal_error(where: str, exc: BaseException) -> None:
    """Record a ragfunnel-internal failure at ``where`` without disturbing the app."""
    if _counted(where):
        logger.warning(
            "ragfunnel internal error in %s (your code is still running fine; "
            "further errors here are counted, not logged): %r",
            where,
            exc,
            exc_info=exc,
        )
    if RERAISE:
        raise exc


def outside_failure(where: str, message: str) -> None:
    """Count a failure from outside ragfunnel at ``where`` (a full disk): logged once, no traceback.

    Unlike :func:`internal_error` it is never raised, even in ragfunnel's own tests: it is
    not a bug. It is counted with the internal errors, under ``where``.
    """
    if _counted(where):
        logger.warning(
            "ragfunnel %s: %s (your code is still running fine; these spans are counted as "
            "failed; further failures here are counted in internal_error_counts()[%r], "
            "not logged)",
            where,
            message,
            where,
        )


def internal_error_counts() -> dict[str, int]:
    """How many internal errors happened, by place. Cheap; safe to expose as a metric."""
    with _lock:
        return dict(_counts)


_unread: Counter[str] = Counter()
_unread_logged: set[str] = set()


def not_read(where: str, reason: Exception) -> None:
    """Count a value left unread at ``where`` (an iterator, say): not an error, never raised."""
    with _lock:
        _unread[where] += 1
        first = where not in _unread_logged
        _unread_logged.add(where)
    if first:
        logger.warning(
            "ragfunnel did not record the %s: it is %s; pass or return a list to have it "
            "recorded (further cases here are counted, not logged)",
            where,
            reason,
        )


def unread_counts() -> dict[str, int]:
    """How many values were left unread (not recorded) because reading them could consume them."""
    with _lock:
        return dict(_unread)


def reset_internal_errors() -> None:
    """Forget counts and the logged-once memory (for tests)."""
    with _lock:
        _counts.clear()
        _logged.clear()
        _unread.clear()
        _unread_logged.clear()
