"""The collector path and the embedded path give the same per-question funnel records.

The demo pipeline over its shipped corpus, run clean and then with its faults, exports every span twice: through the SDK's
OTLP-JSON file exporter (the embedded default) and over OTLP gRPC through the real collector,
whose file exporter writes its own OTLP JSON. Both files are ingested with ``ragfunnel ingest``'s
library and analyzed: the records must be identical.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from opentelemetry.exporter.otlp.json.file import FileSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor

import ragfunnel
from ragfunnel.analyzer.cases import load_cases
from ragfunnel.analyzer.funnel import analyze
from ragfunnel.analyzer.ingest import ingest_paths
from ragfunnel.analyzer.ingest import native as _native
from ragfunnel.analyzer.store import Store
from ragfunnel.demo.corpus import CASES_PATH, load_documents
from ragfunnel.demo.faults import DEFAULT_FAULTS
from ragfunnel.demo.pipeline import Settings
from ragfunnel.demo.plan import plan_faults
from ragfunnel.demo.runner import pipeline_snapshot, run_pipeline
from tests.support.collector import Stack, wait_until


def span_count(path: Path) -> int:
    if not path.exists():
        return 0
    return sum(
        len(ss["spans"])
        for line in path.read_text().splitlines()
        if line.strip()
        for rs in json.loads(line)["resourceSpans"]
        for ss in rs["scopeSpans"]
    )


def test_collector_file_and_embedded_file_give_identical_records(
    stack: Stack, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", stack.otlp_grpc)
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_INSECURE", "true")
    embedded = tmp_path / "embedded" / "spans.jsonl"
    embedded.parent.mkdir()
    provider = TracerProvider(resource=Resource.create({"service.name": "demo-e2e"}))
    provider.add_span_processor(SimpleSpanProcessor(FileSpanExporter(str(embedded))))
    documents, cases, settings = load_documents(), list(load_cases(CASES_PATH)), Settings()
    injection = None
    for run_id in ("e2e-clean", "e2e-faulty"):
        ragfunnel.configure(
            tracer_provider=provider,
            exporter="otlp",
            capture_content=True,
            run_id=run_id,
            pipeline=pipeline_snapshot(run_id, settings, None),
        )
        outcomes = run_pipeline(run_id, documents, cases, settings=settings, injection=injection)
        if injection is None:  # the faulty run's plan comes from the clean run's outcomes
            injection, planned = plan_faults(cases, outcomes, documents, DEFAULT_FAULTS, settings)
    assert planned
    assert ragfunnel.flush(30_000)
    assert ragfunnel.export_stats().dropped == 0
    expected = span_count(embedded)
    assert expected > 500
    wait_until(
        lambda: span_count(stack.file_path) == expected, f"{expected} spans in the collector file"
    )

    # What the SDK's and the collector's file exporters write is all taken natively.
    converter = _native.converter()
    assert converter is not None, "ragfunnel-native is not installed (pip install ./native)"
    for source in (embedded, stack.file_path):
        lines = [line for line in source.read_bytes().splitlines() if line.strip()]
        assert {converter.add_line(line)[0] for line in lines} == {0}, source
        converter.finish()

    records = {}
    for name, source in (("embedded", embedded), ("collector", stack.file_path)):
        with Store.open(f"chdb://{tmp_path / 'store'}", database=name, create=True) as store:
            summary = ingest_paths(store, [source])
            assert summary.inserted == expected and not summary.skipped
            records[name] = analyze(store, CASES_PATH).records.sort(
                "question_id", "run_id", "trace_id"
            )
    assert records["embedded"].height == 2 * len(cases)
    assert set(records["embedded"]["first_failure"]) >= {
        "ok",
        "ingestion",
        "search",
        "rerank",
        "cut",
        "generation",
    }
    assert records["embedded"].equals(records["collector"]), pl.concat(
        [
            records["embedded"].with_columns(src=pl.lit("embedded")),
            records["collector"].with_columns(src=pl.lit("collector")),
        ]
    ).filter(pl.col("question_id") == records["embedded"]["question_id"][0])
