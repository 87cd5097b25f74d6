"""Pulling a service's traces from a running Jaeger (API v3) into the store, window by window.

The request is :mod:`.jaeger_api`'s; this module decides which windows to ask for. A
``user:password@`` in the URL is sent as HTTP basic authentication and never shown: errors and
the ingest log name the URL without it (and with signature query parameters redacted).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

import msgspec

from ragfunnel.analyzer.ingest import jaeger_api, otlp
from ragfunnel.analyzer.ingest.chunking import Loader
from ragfunnel.analyzer.ingest.otlp_structs import decode_envelope
from ragfunnel.analyzer.ingest.result import IngestError, IngestSummary
from ragfunnel.analyzer.ingest.writer import writing
from ragfunnel.analyzer.store import Store
from ragfunnel.analyzer.store.opening import StoreArg, takes_store
from ragfunnel.instrumentation.redaction import redact_url, redact_urls, split_credentials

__all__ = ["pull_from_jaeger"]


@takes_store("ingest")
def pull_from_jaeger(
    store: StoreArg,
    url: str,
    service: str,
    since: str | timedelta,
    *,
    until: datetime | None = None,
    limit: int = 1000,
) -> IngestSummary:
    """Fetch ``service``'s traces of the last ``since`` from Jaeger's API v3 and ingest them.

    A window that returns ``limit`` traces (Jaeger's ``query.num_traces``) may have been cut
    short, so it is split in two and each half fetched again, down to one second.

    Raises:
        IngestError: a bad ``since``, or Jaeger could not be queried.
    """
    assert isinstance(store, Store)  # takes_store opened it
    try:
        span = jaeger_api.parse_duration(since) if isinstance(since, str) else since
    except ValueError as exc:
        raise IngestError(str(exc), argument="since") from None
    end = until or datetime.now(timezone.utc)
    summary = IngestSummary()
    plain, auth = split_credentials(url)
    jaeger_at = _Jaeger(plain, redact_url(plain), auth)
    with writing(store, summary) as writer:
        loader = Loader(writer, summary)
        try:
            _pull_window(loader, jaeger_at, service, (end - span, end), limit=limit)
        except jaeger_api.JaegerError as exc:
            # The URL went out without its credentials; a query's secrets are redacted too.
            raise IngestError(redact_urls(str(exc)), argument=exc.argument) from None
        loader.flush()
    return summary


@dataclass(frozen=True)
class _Jaeger:
    url: str
    """Without ``user:password@``."""
    shown: str
    """For messages and the ingest log: signature query parameters redacted too."""
    auth: tuple[str, str] | None


def _pull_window(
    loader: Loader,
    at: _Jaeger,
    service: str,
    window: tuple[datetime, datetime],
    *,
    limit: int,
) -> None:
    start, end = window
    source = f"{at.shown.rstrip('/')}/api/v3/traces"
    body = jaeger_api.fetch_v3(at.url, service, start, end, limit=limit, auth=at.auth)
    if body is None:
        return
    if end - start > timedelta(seconds=1) and _trace_count(body) >= limit:
        middle = start + (end - start) / 2
        _pull_window(loader, at, service, (start, middle), limit=limit)
        _pull_window(loader, at, service, (middle, end), limit=limit)
        return
    loader.summary.files += 1
    otlp.read_document(body, f"{source} [{start:%Y-%m-%dT%H:%M:%S}Z..]", loader)


def _trace_count(body: bytes) -> int:
    try:
        envelope = decode_envelope(body)
    except msgspec.DecodeError:
        return 0
    return len(
        {
            span.traceId
            for rs in envelope.resource_spans or []
            for ss in rs.scopeSpans
            for span in ss.spans
        }
    )
