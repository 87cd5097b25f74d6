"""configure(): precedence, exporters, attaching to an existing provider."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter as GrpcExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter as HttpExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

import ragfunnel
from ragfunnel.instrumentation import config
from ragfunnel.instrumentation import contract as c
from ragfunnel.instrumentation.exporters import make_exporter


@ragfunnel.retrieve(name="bm25")
def search(query: str) -> list[tuple[str, float]]:
    return [("a", 0.5), ("b", 0.25)]


def test_file_exporter_writes_otlp_json_lines(tmp_path: Path) -> None:
    target = tmp_path / "spans-{pid}.jsonl"
    ragfunnel.configure(
        exporter=f"file:{target}",
        run_id="r1",
        pipeline={"index_version": "v2", "k": 10, "models": {"generator": "m"}},
    )

    @ragfunnel.question(id="qid")
    def ask(qid: str) -> None:
        search("q")

    ask("q-1")
    assert ragfunnel.flush()
    (written,) = list(tmp_path.glob("spans-*.jsonl"))
    spans = [
        span
        for line in written.read_text().splitlines()
        for rs in json.loads(line)["resourceSpans"]
        for ss in rs["scopeSpans"]
        for span in ss["spans"]
    ]
    by_name = {s["name"]: s for s in spans}
    attrs = {a["key"]: a["value"] for a in by_name["retrieve bm25"]["attributes"]}
    assert attrs[c.DOCUMENTS_IDS] == {
        "arrayValue": {"values": [{"stringValue": "a"}, {"stringValue": "b"}]}
    }
    assert attrs[c.DOCUMENTS_SCORES]["arrayValue"]["values"][0] == {"doubleValue": 0.5}
    root = {a["key"]: a["value"] for a in by_name["question ask"]["attributes"]}
    assert root[c.RUN_ID] == {"stringValue": "r1"}
    assert root["ragfunnel.pipeline.k"] == {"intValue": "10"}
    assert root["ragfunnel.pipeline.models.generator"] == {"stringValue": "m"}


def test_arguments_beat_environment_and_environment_beats_defaults(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("RAGFUNNEL_CAPTURE_CONTENT", "true")
    monkeypatch.setenv("RAGFUNNEL_RUN_ID", "env-run")
    monkeypatch.setenv("RAGFUNNEL_PIPELINE", '{"chunker": "recursive-512"}')
    state = ragfunnel.configure(exporter="none")
    assert state.capture_content is True
    assert state.run_id == "env-run"
    assert state.pipeline_attributes == {"ragfunnel.pipeline.chunker": "recursive-512"}
    state = ragfunnel.configure(exporter="none", capture_content=False, run_id="arg-run")
    assert state.capture_content is False
    assert state.run_id == "arg-run"


def test_bad_environment_warns_and_falls_back(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("RAGFUNNEL_CAPTURE_CONTENT", "maybe")
    monkeypatch.setenv("RAGFUNNEL_EXPORTER", "carrier-pigeon")
    with caplog.at_level(logging.WARNING, logger="ragfunnel"):
        state = ragfunnel.configure()
    assert state.capture_content is False
    assert state.processor is None
    messages = " ".join(r.getMessage() for r in caplog.records)
    assert "RAGFUNNEL_CAPTURE_CONTENT" in messages and "RAGFUNNEL_EXPORTER" in messages


def test_bad_arguments_raise() -> None:
    with pytest.raises(ragfunnel.ConfigError, match="unknown exporter"):
        ragfunnel.configure(exporter="carrier-pigeon")
    with pytest.raises(ragfunnel.ConfigError, match="pipeline"):
        ragfunnel.configure(pipeline=["k", 10])  # type: ignore[arg-type]
    with pytest.raises(ragfunnel.ConfigError, match="unsupported OTLP protocol"):
        ragfunnel.configure(exporter="otlp+carrier")


def test_otlp_exporter_follows_standard_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4999")
    grpc = make_exporter("otlp")
    assert isinstance(grpc, GrpcExporter)
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
    http = make_exporter("otlp")
    assert isinstance(http, HttpExporter)
    assert http._endpoint == "http://127.0.0.1:4999/v1/traces"
    for exporter in (grpc, http):
        exporter.shutdown()


def test_attaches_to_an_existing_provider_instead_of_replacing_it() -> None:
    app_exporter = InMemorySpanExporter()
    ours = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(app_exporter))
    ragfunnel.configure(tracer_provider=provider, exporter=ours, batch=False)
    with provider.get_tracer("app").start_as_current_span("http request"):
        search("q")
    app_names = [s.name for s in app_exporter.get_finished_spans()]
    assert app_names == ["retrieve bm25", "http request"]  # the app keeps its pipeline
    assert [s.name for s in ours.get_finished_spans()] == ["retrieve bm25", "http request"]
    retrieve_span = app_exporter.get_finished_spans()[0]
    assert retrieve_span.parent.span_id == app_exporter.get_finished_spans()[1].context.span_id


def test_reconfigure_swaps_the_processor_without_duplicates() -> None:
    first, second = InMemorySpanExporter(), InMemorySpanExporter()
    ragfunnel.configure(exporter=first, batch=False)
    search("q")
    ragfunnel.configure(exporter=second, batch=False)
    search("q")
    assert len(first.get_finished_spans()) == 1
    assert len(second.get_finished_spans()) == 1


def test_queue_full_drops_are_counted_and_the_app_never_blocks() -> None:
    import threading
    import time

    from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

    release = threading.Event()

    class Stuck(SpanExporter):
        def export(self, spans: object) -> SpanExportResult:
            release.wait(10)
            return SpanExportResult.SUCCESS

        def shutdown(self) -> None:
            release.set()

    import os

    os.environ["RAGFUNNEL_MAX_QUEUE_SIZE"] = "10"
    try:
        ragfunnel.configure(exporter=Stuck())
    finally:
        del os.environ["RAGFUNNEL_MAX_QUEUE_SIZE"]
    started = time.perf_counter()
    for _ in range(100):
        search("q")
    assert time.perf_counter() - started < 1.0
    stats = ragfunnel.export_stats()
    assert stats.dropped >= 80
    release.set()
    assert ragfunnel.flush(5_000)
    assert stats.exported + stats.dropped == 100


def test_service_name_cannot_rename_an_existing_provider(caplog: pytest.LogCaptureFixture) -> None:
    from opentelemetry import trace

    ragfunnel.configure(exporter="none")  # makes sure a global SDK provider exists
    current = trace.get_tracer_provider().resource.attributes["service.name"]
    with caplog.at_level(logging.WARNING, logger="ragfunnel"):
        ragfunnel.configure(exporter="none", service_name=f"{current}-renamed")
    assert "is not applied" in caplog.text
    assert trace.get_tracer_provider().resource.attributes["service.name"] == current


def drop_digits(attribute: str, text: str) -> str:
    return "".join(ch for ch in text if not ch.isdigit())


def test_redaction_hook_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("RAGFUNNEL_CAPTURE_CONTENT", "true")
    monkeypatch.setenv("RAGFUNNEL_REDACT", f"{__name__}:drop_digits")
    state = ragfunnel.configure(exporter="none")
    assert state.redact is drop_digits
    assert state.capture_content is True
    monkeypatch.setenv("RAGFUNNEL_REDACT", "no_such_module_here:hook")
    with caplog.at_level(logging.WARNING, logger="ragfunnel"):
        state = ragfunnel.configure(exporter="none")
    # A named hook that cannot load must not let unredacted text through.
    assert state.capture_content is False
    assert "RAGFUNNEL_REDACT" in caplog.text


def test_switch_registry_forgets_collected_providers() -> None:
    import gc

    # Keyed by id(), a dead provider's entry would linger and could be handed to a new provider
    # that reuses its address but never registered the switch: its spans would vanish.
    # (Only providers made with shutdown_on_exit=False can die: the default registers atexit.)
    gc.collect()
    before = len(config._switches)
    for _ in range(20):
        exporter = InMemorySpanExporter()
        provider = TracerProvider(shutdown_on_exit=False)
        ragfunnel.configure(tracer_provider=provider, exporter=exporter, batch=False)
        search("q")
        assert len(exporter.get_finished_spans()) == 1
    ragfunnel.configure(exporter="none", tracer_provider=TracerProvider(shutdown_on_exit=False))
    del provider
    gc.collect()
    assert len(config._switches) <= before + 1
