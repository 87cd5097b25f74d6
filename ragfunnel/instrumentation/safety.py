"""Keeping the app safe from ragfunnel: internal-error handling, secret scrubbing, redaction.

Instrumentation runs inside production request paths. Anything that goes wrong in here — an
extractor that meets an unexpected return shape, a user's ``ids=`` callable that raises, a
redaction hook that fails — is logged once per place, counted, and swallowed. The project's own
test suite flips :data:`RERAISE` so that such bugs fail tests instead of hiding.
"""

from __future__ import annotations

import itertools
import logging
import re
import threading
from collections import Counter
from collections.abc import Callable

logger = logging.getLogger("ragfunnel")

RERAISE = False
"""When true, internal errors propagate (set by ragfunnel's own tests; never in production)."""

_lock = threading.Lock()
_counts: Counter[str] = Counter()
_logged: set[str] = set()


def internal_error(where: str, exc: BaseException) -> None:
    """Record a ragfunnel-internal failure at ``where`` without disturbing the app."""
    with _lock:
        _counts[where] += 1
        first = where not in _logged
        _logged.add(where)
    if first:
        logger.warning(
            "ragfunnel internal error in %s (your code is still running fine; "
            "further errors here are counted, not logged): %r",
            where,
            exc,
            exc_info=exc,
        )
    if RERAISE:
        raise exc


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


_SECRET_WORDS = frozenset(
    {
        "pass", "password", "passwd", "passphrase", "pwd", "secret", "secrets", "token",
        "apikey", "auth", "authorization", "credential", "credentials", "cookie", "cookies",
        "bearer", "signature", "jwt", "privatekey", "accesskey", "secretkey", "sessionid",
        "authtoken", "accesstoken", "refreshtoken", "clientsecret",
    }
)  # fmt: skip
_SECRET_PAIRS = frozenset(
    {("api", "key"), ("private", "key"), ("access", "key"), ("secret", "key"), ("session", "id")}
)
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SEPARATORS = re.compile(r"[^a-z0-9]+")


def name_words(name: str) -> list[str]:
    """``x-api-key`` / ``apiKey`` / ``API_Key`` → ``["x", "api", "key"]``-style lower-case words."""
    return [w for w in _SEPARATORS.split(_CAMEL.sub("_", name).lower()) if w]


def is_secret_name(name: str) -> bool:
    """True if a parameter or key name looks like it holds a credential.

    Whole words only (split at ``_``, ``-``, ``.`` and camelCase), so ``passages`` or
    ``max_tokens`` are ordinary names while ``password``, ``api_key``, ``apiKey``,
    ``auth_token`` and ``x-api-key`` are secrets.
    """
    words = name_words(name)
    return any(w in _SECRET_WORDS for w in words) or any(
        pair in _SECRET_PAIRS for pair in itertools.pairwise(words)
    )


Redactor = Callable[[str, str], str | None]
"""A user hook ``(attribute_name, text) -> text | None``; ``None`` drops the value."""


def redact(hook: Redactor | None, attribute: str, text: str) -> str | None:
    """Pass content through the user's redaction hook; a failing hook drops the value."""
    if hook is None:
        return text
    try:
        out = hook(attribute, text)
    except Exception as exc:  # noqa: BLE001 - a broken hook must not leak unredacted text
        internal_error("redaction hook", exc)
        return None
    if out is None or isinstance(out, str):
        return out
    # Hooks are user code: a wrong return type is dropped, never recorded unredacted.
    internal_error("redaction hook", TypeError(f"hook returned {type(out).__name__}"))  # type: ignore[unreachable]
    return None
