"""Jaeger's query API v3 (``/api/v3/traces``): one request for a service's traces in a window.

It answers in OTLP JSON, which needs no mapping (:mod:`.jaeger` maps Jaeger's own format).
:mod:`.jaeger_pull` decides which windows to ask for.
"""

from __future__ import annotations

import base64
import json
import re
import urllib.error
import urllib.parse
import urllib.request
from datetime import datetime, timedelta, timezone

from ragfunnel.analyzer.errors import AnalyzerError

__all__ = ["JaegerError", "fetch_v3", "parse_duration"]

_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h|d|w)")
_UNITS = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


class JaegerError(AnalyzerError):
    """Jaeger could not be queried; the message says what it answered."""


def parse_duration(text: str) -> timedelta:
    """``"90s"``, ``"15m"``, ``"1h30m"``, ``"2d"``, ``"1w"`` as a timedelta.

    Raises:
        ValueError: anything else.
    """
    cleaned = text.strip().lower().replace(" ", "")
    parts = _DURATION.findall(cleaned)
    if not parts or "".join(number + unit for number, unit in parts) != cleaned:
        raise ValueError(f"cannot read {text!r} as a duration: use e.g. 30m, 1h, 1h30m, 2d")
    return timedelta(seconds=sum(float(number) * _UNITS[unit] for number, unit in parts))


def _rfc3339(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).isoformat(timespec="microseconds").replace("+00:00", "Z")


def fetch_v3(
    url: str,
    service: str,
    start: datetime,
    end: datetime,
    *,
    limit: int,
    timeout: float = 60.0,
    auth: tuple[str, str] | None = None,
) -> bytes | None:
    """One ``GET {url}/api/v3/traces`` for ``service`` in [start, end].

    ``auth`` is a (user, password) pair sent as HTTP basic authentication.

    Returns the body, or None when Jaeger has no traces there (its 404 "No traces found").

    Raises:
        JaegerError: not an http(s) URL, unreachable, or any other HTTP error.
    """
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise JaegerError(
            f"the Jaeger URL must be http(s), such as http://localhost:16686, not {url!r}",
            argument="url",
        )
    query = urllib.parse.urlencode(
        {
            "query.service_name": service,
            "query.start_time_min": _rfc3339(start),
            "query.start_time_max": _rfc3339(end),
            "query.num_traces": str(limit),
        }
    )
    target = f"{url.rstrip('/')}/api/v3/traces?{query}"
    headers = {"Accept": "application/json"}
    if auth is not None:
        token = base64.b64encode(f"{auth[0]}:{auth[1]}".encode()).decode("ascii")
        headers["Authorization"] = f"Basic {token}"
    request = urllib.request.Request(target, headers=headers)  # noqa: S310 - scheme checked above
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310 - scheme checked above
            return bytes(response.read())
    except urllib.error.HTTPError as exc:
        body = exc.read().decode("utf-8", errors="replace")
        if exc.code == 404 and "no traces found" in body.lower():
            return None
        raise JaegerError(
            f"Jaeger at {url} answered HTTP {exc.code}: {_error_message(body)}"
        ) from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise JaegerError(f"cannot reach Jaeger at {url}: {reason}") from None


def _error_message(body: str) -> str:
    try:
        error = json.loads(body).get("error", {})
        return str(error.get("message") or body.strip())[:300]
    except (ValueError, AttributeError):
        return body.strip()[:300]
