"""Ingest throughput: OTLP JSON lines into a fresh embedded store, against a row-by-row baseline.

    python bench/ingest.py [--questions 50000] [--runs 5] [--baseline-spans 20000]

Generates ragfunnel-shaped traces as the SDK's JSON file exporter writes them (batches of 512
spans per line): per question a root, a retrieve span with 50 ids and 50 scores, a rerank span
(50 input ids, 10 ids and scores out), a cut span and a generate span; 5 spans per question,
250,000 spans by default. Each run ingests the file into a new database of one embedded store
with ``ingest_paths`` (what ``ragfunnel ingest`` does) and the median of the runs is reported.
The background merges an ingest starts count in its time while it runs; its database is
dropped afterwards, so that they do not run on into the next run's. Each run is paired with one
into a store the analyzer has opened (its funnel view then fills the stage table on every
insert), the two alternating so that a busy machine slows both alike; their medians and ratio
are reported. One more run uses the Python converter (``RAGFUNNEL_NATIVE=0``), which shows what
ragfunnel-native adds.

The baseline, in the same process, is the plain way: ``json.loads`` per line, one Python row per
span, ``client.insert`` (clickhouse-connect's row insert) every 1,000 rows — timed on the first
``--baseline-spans`` spans and reported per span.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ragfunnel.analyzer.ingest import ingest_paths
from ragfunnel.analyzer.ingest import native as _native
from ragfunnel.analyzer.store import Store
from ragfunnel.analyzer.store.migrations import migrate

BATCH = 512  # BatchSpanProcessor's default max_export_batch_size
T0 = 1_790_000_000_000_000_000


def _value(value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, list):
        return {"arrayValue": {"values": [_value(v) for v in value]}}
    return {"stringValue": value}


def _span(
    rng: random.Random, trace: str, parent: str | None, name: str, start: int, attrs: dict[str, Any]
) -> dict[str, Any]:
    span: dict[str, Any] = {
        "traceId": trace,
        "spanId": f"{rng.getrandbits(64):016x}",
        "flags": 256,
        "name": name,
        "kind": 1,
        "startTimeUnixNano": str(start),
        "endTimeUnixNano": str(start + rng.randint(100_000, 900_000_000)),
        "attributes": [{"key": k, "value": _value(v)} for k, v in attrs.items()],
        "status": {},
    }
    if parent:
        span["parentSpanId"] = parent
    return span


def question_spans(rng: random.Random, number: int) -> list[dict[str, Any]]:
    """The five spans of one question, as ragfunnel's decorators record them."""
    trace = f"{rng.getrandbits(128):032x}"
    root = f"{rng.getrandbits(64):016x}"
    start = T0 + number * 2_000_000_000
    qid = f"q-{number:06d}"
    common = {
        "ragfunnel.question.id": qid,
        "ragfunnel.run.id": "run-2026-11-29",
        "ragfunnel.schema.version": "1",
    }
    candidates = [f"doc-{rng.randint(0, 99_999)}#chunk-{rng.randint(0, 40)}" for _ in range(50)]
    scores = sorted((round(rng.random() * 30, 6) for _ in range(50)), reverse=True)
    reranked = rng.sample(candidates, 10)
    rerank_scores = sorted((rng.random() for _ in range(10)), reverse=True)
    kept = reranked[:5]
    root_span = _span(
        rng,
        trace,
        None,
        "question",
        start,
        {
            "ragfunnel.stage": "question",
            **common,
            "ragfunnel.question.hash": f"{rng.getrandbits(64):016x}",
            "ragfunnel.pipeline.index_version": "2026-11-01",
            "ragfunnel.pipeline.k": 5,
            "ragfunnel.answer.abstained": False,
            "openinference.span.kind": "CHAIN",
        },
    )
    root_span["kind"] = 2
    return [
        _span(
            rng,
            trace,
            root,
            "retrieve bm25",
            start + 1_000,
            {
                "ragfunnel.stage": "retrieve",
                **common,
                "ragfunnel.retriever.name": "bm25",
                "ragfunnel.top_k": 50,
                "ragfunnel.documents.ids": candidates,
                "ragfunnel.documents.scores": scores,
                "openinference.span.kind": "RETRIEVER",
                "gen_ai.operation.name": "retrieval",
            },
        ),
        _span(
            rng,
            trace,
            root,
            "rerank cross-encoder",
            start + 2_000,
            {
                "ragfunnel.stage": "rerank",
                **common,
                "ragfunnel.reranker.model": "ms-marco-MiniLM-L-6-v2",
                "ragfunnel.input.ids": candidates,
                "ragfunnel.documents.ids": reranked,
                "ragfunnel.documents.scores": rerank_scores,
                "ragfunnel.top_n": 10,
                "openinference.span.kind": "RERANKER",
            },
        ),
        _span(
            rng,
            trace,
            root,
            "cut top-5",
            start + 3_000,
            {
                "ragfunnel.stage": "cut",
                **common,
                "ragfunnel.input.ids": reranked,
                "ragfunnel.documents.ids": kept,
                "ragfunnel.cut.k": 5,
                "openinference.span.kind": "CHAIN",
            },
        ),
        _span(
            rng,
            trace,
            root,
            "generate gpt-4o-mini",
            start + 4_000,
            {
                "ragfunnel.stage": "generate",
                **common,
                "ragfunnel.context.ids": kept,
                "gen_ai.request.model": "gpt-4o-mini",
                "gen_ai.usage.input_tokens": rng.randint(500, 4000),
                "gen_ai.usage.output_tokens": rng.randint(20, 400),
                "ragfunnel.logprobs.min": -rng.random() * 5,
                "ragfunnel.mode": "pipeline",
                "openinference.span.kind": "LLM",
                "gen_ai.operation.name": "chat",
            },
        ),
        root_span,
    ]


def write_traces(path: Path, questions: int) -> int:
    """Write ``questions`` questions' spans as OTLP JSON lines; returns the span count."""
    rng = random.Random(20261129)
    resource = {
        "attributes": [
            {"key": "telemetry.sdk.language", "value": {"stringValue": "python"}},
            {"key": "telemetry.sdk.name", "value": {"stringValue": "opentelemetry"}},
            {"key": "telemetry.sdk.version", "value": {"stringValue": "1.45.2"}},
            {"key": "service.name", "value": {"stringValue": "rag-api"}},
        ]
    }
    scope = {"name": "ragfunnel", "version": "0.1.0"}

    def batches() -> Iterator[list[dict[str, Any]]]:
        pending: list[dict[str, Any]] = []
        for number in range(questions):
            pending += question_spans(rng, number)
            while len(pending) >= BATCH:
                yield pending[:BATCH]
                pending = pending[BATCH:]
        if pending:
            yield pending

    spans = 0
    with path.open("w") as out:
        for batch in batches():
            spans += len(batch)
            document = {
                "resourceSpans": [
                    {"resource": resource, "scopeSpans": [{"scope": scope, "spans": batch}]}
                ]
            }
            out.write(json.dumps(document, separators=(",", ":")) + "\n")
    return spans


def _baseline_row(span: dict[str, Any], service: str) -> list[Any]:
    def text(value: dict[str, Any]) -> str:
        ((kind, inner),) = value.items()
        if kind == "arrayValue":
            return json.dumps(
                [next(iter(v.values())) for v in inner["values"]], separators=(",", ":")
            )
        return str(inner)

    start, end = int(span["startTimeUnixNano"]), int(span["endTimeUnixNano"])
    return [
        start,
        span["traceId"],
        span["spanId"],
        span.get("parentSpanId", ""),
        span["name"],
        "Internal",
        service,
        {kv["key"]: text(kv["value"]) for kv in span.get("attributes", [])},
        end - start,
        "Unset",
    ]


def baseline(store: Store, path: Path, limit: int) -> float:
    """Seconds per span for json.loads + Python rows + client.insert every 1,000 rows."""
    columns = [
        "Timestamp",
        "TraceId",
        "SpanId",
        "ParentSpanId",
        "SpanName",
        "SpanKind",
        "ServiceName",
        "SpanAttributes",
        "Duration",
        "StatusCode",
    ]
    rows: list[list[Any]] = []
    done = 0
    started = time.perf_counter()
    with path.open("rb") as lines:
        for line in lines:
            for rs in json.loads(line)["resourceSpans"]:
                for ss in rs["scopeSpans"]:
                    for span in ss["spans"]:
                        rows.append(_baseline_row(span, "rag-api"))
                        if len(rows) == 1000:
                            store.client.insert(
                                store.table, rows, column_names=columns, database=store.database
                            )
                            done += len(rows)
                            rows = []
            if done >= limit:
                break
    return (time.perf_counter() - started) / done


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--questions", type=int, default=50_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--baseline-spans", type=int, default=20_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        traces = Path(tmp) / "spans.jsonl"
        started = time.perf_counter()
        spans = write_traces(traces, args.questions)
        size = traces.stat().st_size
        print(
            f"generated {spans:,} spans ({size / 1e6:,.0f} MB, {size / spans:,.0f} B/span) in {time.perf_counter() - started:.1f}s"
        )
        rates: list[float] = []
        view_rates: list[float] = []
        converters = ["native", "native, funnel view"] * args.runs + ["python"]
        if not _native.available():
            raise SystemExit("ragfunnel-native is not installed: pip install ./native")
        other: dict[str, float] = {}
        for run, converter in enumerate(converters):
            os.environ[_native.NATIVE_ENV] = "0" if converter == "python" else "1"
            with Store.open(f"chdb://{tmp}/store", database=f"bench_{run}") as store:
                if "view" in converter:
                    migrate(store)
                started = time.perf_counter()
                summary = ingest_paths(store, [traces])
                seconds = time.perf_counter() - started
                store.command(f"DROP DATABASE `{store.database}`")
            if summary.inserted != spans or summary.skipped:
                raise SystemExit(f"unexpected ingest result: {summary.describe()}")
            if converter == "native":
                rates.append(spans / seconds)
            elif "view" in converter:
                view_rates.append(spans / seconds)
            else:
                other[converter] = spans / seconds
            print(f"run {run + 1} ({converter}): {seconds:.2f}s, {spans / seconds:,.0f} spans/s")
        del os.environ[_native.NATIVE_ENV]
        with Store.open(f"chdb://{tmp}/store", database="bench_baseline") as store:
            per_span = baseline(store, traces, args.baseline_spans)
        median = statistics.median(rates)
        print(
            f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}"
        )
        print(f"ingest: median {median:,.0f} spans/s over {args.runs} runs of {spans:,} spans")
        with_view = statistics.median(view_rates)
        print(
            f"ingest into a store with the funnel view: median {with_view:,.0f} spans/s over "
            f"{args.runs} runs ({with_view / median:.2f} of the ingest without it)"
        )
        for converter, rate in other.items():
            print(f"ingest ({converter}, 1 run): {rate:,.0f} spans/s")
        print(
            f"baseline (json + row insert, {args.baseline_spans:,} spans): {1 / per_span:,.0f} spans/s"
        )
        print(f"ratio: {median * per_span:.1f}x")


if __name__ == "__main__":
    sys.exit(main())
