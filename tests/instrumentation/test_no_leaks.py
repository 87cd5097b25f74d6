"""No content and no secret without consent: exceptions, pipeline, attributes=, document ids.

Issue 19, Why 5: with capture off an exception's message (a URL with a key, the user's
question) reached the span's status, ``exception.message`` and ``exception.stacktrace``;
``api_key`` entries of the pipeline and ``attributes=``, presigned-URL signatures and
``user:pass@`` in document ids were recorded verbatim.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

import ragfunnel
from ragfunnel.instrumentation import config
from ragfunnel.instrumentation import contract as c
from ragfunnel.instrumentation.redaction import redact_url, redact_urls, split_credentials
from ragfunnel.testing import CapturedSpans, capture_spans

QUESTION = "why was my claim 4471 for Mrs Jones refused?"
KEY_URL = "https://api.example.com/v1/chat?api_key=sk-live-123&model=x"
SECRETS = ("sk-live-123", "Mrs Jones", "hunter2", "AKIAEXAMPLE", "c2lnbmF0dXJl")


class UpstreamError(Exception):
    pass


def everything_recorded(spans: CapturedSpans) -> str:
    """Every attribute, status and event attribute of every span, as one string."""
    parts: list[Any] = []
    for span in spans:
        parts += [span.name, span.status.description, dict(span.attributes or {})]
        parts += [(e.name, dict(e.attributes or {})) for e in span.events]
    return json.dumps(parts, default=str)


def fails(question: str) -> str:
    raise UpstreamError(f"POST {KEY_URL} failed for question {question!r}")


def test_with_capture_off_an_exception_records_its_type_only(spans: CapturedSpans) -> None:
    @ragfunnel.question
    def answer(question: str) -> str:
        return generate(question)

    @ragfunnel.generate
    def generate(prompt: str) -> str:
        return fails(prompt)

    with pytest.raises(UpstreamError, match="sk-live-123"):  # the app's exception is untouched
        answer(QUESTION)
    (span,) = spans.by_stage("generate")
    assert span.status.status_code.name == "ERROR"
    assert span.status.description == "UpstreamError"
    (event,) = [e for e in span.events if e.name == "exception"]
    assert dict(event.attributes or {}) == {"exception.type": f"{__name__}.UpstreamError"}
    recorded = everything_recorded(spans)
    assert not any(secret in recorded for secret in SECRETS), recorded
    assert "claim 4471" not in recorded


def test_with_capture_on_the_message_is_kept_with_its_urls_redacted(
    content_spans: CapturedSpans,
) -> None:
    @ragfunnel.generate
    def generate(prompt: str) -> str:
        return fails(prompt)

    with pytest.raises(UpstreamError):
        generate(QUESTION)
    (span,) = content_spans.by_stage("generate")
    assert span.status.description is not None
    assert span.status.description.startswith("UpstreamError: POST https://api.example.com/")
    assert "api_key=REDACTED&model=x" in span.status.description
    (event,) = [e for e in span.events if e.name == "exception"]
    attrs = dict(event.attributes or {})
    assert "claim 4471" in attrs["exception.message"]  # content was asked for
    assert "Traceback" in attrs["exception.stacktrace"]
    assert "sk-live-123" not in everything_recorded(content_spans)


def test_the_redaction_hook_sees_exception_messages() -> None:
    def hook(attribute: str, text: str) -> str | None:
        return None if attribute.startswith("exception.") else text

    with capture_spans(capture_content=True, redact=hook) as spans:

        @ragfunnel.generate
        def generate(prompt: str) -> str:
            return fails(prompt)

        with pytest.raises(UpstreamError):
            generate(QUESTION)
    (span,) = spans.by_stage("generate")
    assert span.status.description == "UpstreamError"
    assert "claim 4471" not in everything_recorded(spans)


def test_an_exception_whose_str_raises_is_still_recorded(content_spans: CapturedSpans) -> None:
    class Unprintable(Exception):
        def __str__(self) -> str:
            raise RuntimeError("no")

    @ragfunnel.retrieve
    def search(query: str) -> list[str]:
        raise Unprintable

    with pytest.raises(Unprintable):
        search("q")
    (span,) = content_spans.by_stage("retrieve")
    assert span.status.description == "Unprintable"


PIPELINE = {
    "index_version": "v7",
    "openai": {"api_key": "sk-live-123", "base_url": "https://bob:hunter2@llm.internal/v1"},
    "retriever": {"k": 5, "auth_token": "c2lnbmF0dXJl"},
    "models": [{"name": "m", "apiKey": "sk-live-123"}],
}


def _pipeline(spans: CapturedSpans) -> dict[str, Any]:
    (root,) = spans.attributes("question")
    return {
        k[len(c.PIPELINE_PREFIX) :]: v for k, v in root.items() if k.startswith(c.PIPELINE_PREFIX)
    }


@contextmanager
def from_environment() -> Iterator[CapturedSpans]:
    """Like capture_spans, but the pipeline comes from RAGFUNNEL_PIPELINE."""
    previous = config.current_state()
    exporter = InMemorySpanExporter()
    config.configure(exporter=exporter, batch=False, enabled=True)
    try:
        yield CapturedSpans(exporter)
    finally:
        config.restore(previous)


def _ask() -> None:
    @ragfunnel.question
    def answer(question: str) -> str:
        return "a"

    answer("q")


def test_credentials_in_configure_pipeline_are_scrubbed() -> None:
    with capture_spans(pipeline=PIPELINE) as spans:
        _ask()
    recorded = _pipeline(spans)
    assert recorded["openai.api_key"] == "REDACTED"
    assert recorded["retriever.auth_token"] == "REDACTED"
    assert recorded["openai.base_url"] == "https://REDACTED:REDACTED@llm.internal/v1"
    assert recorded["index_version"] == "v7" and recorded["retriever.k"] == 5
    assert json.loads(recorded["models"]) == [{"name": "m", "apiKey": "REDACTED"}]
    assert not any(s in everything_recorded(spans) for s in SECRETS)


def test_credentials_in_the_pipeline_variable_are_scrubbed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("RAGFUNNEL_PIPELINE", json.dumps(PIPELINE))
    with from_environment() as spans:
        _ask()
    assert _pipeline(spans)["openai.api_key"] == "REDACTED"
    assert not any(s in everything_recorded(spans) for s in SECRETS)


def test_an_unparsable_pipeline_variable_is_not_quoted_in_the_warning(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("RAGFUNNEL_PIPELINE", '{"api_key": "sk-live-123",')
    with caplog.at_level(logging.WARNING, "ragfunnel"), from_environment():
        pass
    assert "ignoring RAGFUNNEL_PIPELINE" in caplog.text
    assert "sk-live-123" not in caplog.text


def test_credentials_in_attributes_are_scrubbed(spans: CapturedSpans) -> None:
    @ragfunnel.retrieve(
        attributes={"vector_store.api_key": "sk-live-123", "store.url": KEY_URL, "shard": 3}
    )
    def search(query: str) -> list[str]:
        return ["a"]

    search("q")
    (attrs,) = spans.attributes("retrieve")
    assert attrs["vector_store.api_key"] == "REDACTED"
    assert attrs["store.url"] == "https://api.example.com/v1/chat?api_key=REDACTED&model=x"
    assert attrs["shard"] == 3


PRESIGNED = (
    "https://bucket.s3.amazonaws.com/doc.pdf?X-Amz-Algorithm=AWS4-HMAC-SHA256"
    "&X-Amz-Credential=AKIAEXAMPLE%2F20261201&X-Amz-Signature=c2lnbmF0dXJl&X-Amz-Expires=60"
)
PRESIGNED_REDACTED = (
    "https://bucket.s3.amazonaws.com/doc.pdf?X-Amz-Algorithm=AWS4-HMAC-SHA256"
    "&X-Amz-Credential=REDACTED&X-Amz-Signature=REDACTED&X-Amz-Expires=60"
)


def test_urls_in_document_ids_are_redacted(spans: CapturedSpans) -> None:
    @ragfunnel.ingest
    def index(document_id: str) -> list[str]:
        return [f"{document_id}#c0"]

    @ragfunnel.retrieve
    def search(query: str) -> list[tuple[str, float]]:
        return [(PRESIGNED, 0.9), ("https://bob:hunter2@wiki/page", 0.5), ("plain-id", 0.1)]

    @ragfunnel.rerank
    def rerank(query: str, documents: list[tuple[str, float]]) -> list[str]:
        return [d for d, _ in documents]

    index("https://bob:hunter2@share.internal/handbook.pdf")
    rerank("q", search("q"))
    (ingested,) = spans.attributes("ingest")
    assert ingested[c.DOCUMENT_ID] == "https://REDACTED:REDACTED@share.internal/handbook.pdf"
    assert ingested[c.CHUNKS_IDS] == ("https://REDACTED:REDACTED@share.internal/handbook.pdf#c0",)
    expected = (PRESIGNED_REDACTED, "https://REDACTED:REDACTED@wiki/page", "plain-id")
    (retrieved,) = spans.attributes("retrieve")
    assert retrieved[c.DOCUMENTS_IDS] == expected
    assert retrieved[c.DOCUMENTS_SCORES] == (0.9, 0.5, 0.1)
    (reranked,) = spans.attributes("rerank")
    assert reranked[c.INPUT_IDS] == expected and reranked[c.DOCUMENTS_IDS] == expected
    assert not any(s in everything_recorded(spans) for s in SECRETS)


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://admin:PW@host:8443/x?y=1#f", "https://REDACTED:REDACTED@host:8443/x?y=1#f"),
        ("http://token@host/", "http://REDACTED:REDACTED@host/"),
        ("https://h/p?AWSAccessKeyId=AK&Expires=1&Signature=s%2B", "https://h/p?AWSAccessKeyId=REDACTED&Expires=1&Signature=REDACTED"),
        ("https://h/p?sig=abc&sv=2020", "https://h/p?sig=REDACTED&sv=2020"),
        ("https://h/o?X-Goog-Signature=abc&X-Goog-Date=1", "https://h/o?X-Goog-Signature=REDACTED&X-Goog-Date=1"),
        ("https://h/o?access_token=t&page=2", "https://h/o?access_token=REDACTED&page=2"),
        ("https://h/o?signature=", "https://h/o?signature="),  # nothing to hide
        ("https://h/a@b?q=1", "https://h/a@b?q=1"),  # an @ in the path is not userinfo
        ("s3://bucket/key", "s3://bucket/key"),
        ("doc-17#c3", "doc-17#c3"),
    ],
)  # fmt: skip
def test_redact_url_follows_the_semantic_conventions(url: str, expected: str) -> None:
    assert redact_url(url) == expected


def test_urls_inside_text_are_redacted_and_the_rest_kept() -> None:
    text = "GET https://a:b@h/x?sig=1 failed; retry http://h2/?token=t2 'quoted'"
    assert redact_urls(text) == (
        "GET https://REDACTED:REDACTED@h/x?sig=REDACTED failed; "
        "retry http://h2/?token=REDACTED 'quoted'"
    )


def test_split_credentials_decodes_them() -> None:
    assert split_credentials("http://ad%40min:p%3Aw@h:1/x") == ("http://h:1/x", ("ad@min", "p:w"))
    assert split_credentials("http://h/x@y") == ("http://h/x@y", None)


@pytest.fixture(autouse=True)
def _no_pipeline_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RAGFUNNEL_PIPELINE", raising=False)
