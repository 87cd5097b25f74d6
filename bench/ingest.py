"""Ingest throughput: OTLP JSON lines into a fresh embedded store, against a row-by-row baseline.

    python bench/ingest.py [--questions 50000] [--runs 5] [--baseline-spans 20000]

Generates ragfunnel-shaped traces as the SDK's JSON file exporter writes them (batches of 512
spans per line): per question a root, a retrieve span with 50 ids and 50 scores, a rerank span
(50 input ids, 10 ids and scores out), a cut span and a generate span; 5 spans per question,
250,000 spans by default. Each run is a child process that ingests the file into a new embedded
store with ``ingest_paths`` (what ``ragfunnel ingest`` does: it migrates the store first, so the
stage view parses every span as it arrives); the median of the runs is reported. The background
merges an ingest starts count in its time while it runs, and end with its process. Each run is paired with one into a store whose two
tables write *wide* parts (a file per column: the layout before ``store/part_format.py``), the
two alternating so that a busy machine slows both alike; their medians and ratio are reported.
One more run uses the Python converter (``RAGFUNNEL_NATIVE=0``), which shows what
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
import subprocess
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
from ragfunnel.analyzer.store.tables.stage_spans import stage_table

# MergeTree's own defaults: parts over 10 MB are wide.
WIDE_PARTS = "min_bytes_for_wide_part = 10485760, min_rows_for_wide_part = 0"

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


def one_run(store_path: str, traces: str, layout: str) -> None:
    """Child process: ingest ``traces`` into a new embedded store; print its seconds as JSON."""
    with Store.open(f"chdb://{store_path}", create=True) as store:
        if layout == "wide":
            migrate(store)
            for table in (store.traces_table, stage_table(store)):
                store.command(f"ALTER TABLE {table} MODIFY SETTING {WIDE_PARTS}")
        started = time.perf_counter()
        summary = ingest_paths(store, [traces])
        seconds = time.perf_counter() - started
    print(json.dumps({"seconds": seconds, "inserted": summary.inserted,
                      "skipped": len(summary.skipped)}))  # fmt: skip


def timed_run(tmp: str, run: int, traces: Path, layout: str, converter: str) -> dict[str, Any]:
    env = {**os.environ, _native.NATIVE_ENV: "0" if converter == "python" else "1"}
    argv = [sys.executable, __file__, "--child", f"{tmp}/store-{run}", str(traces), layout]
    done = subprocess.run(argv, capture_output=True, text=True, check=False, env=env)
    if done.returncode != 0:
        raise SystemExit(f"run {run + 1} failed:\n{done.stdout}{done.stderr}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--questions", type=int, default=50_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--baseline-spans", type=int, default=20_000)
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        one_run(*args.child)
        return
    if not _native.available():
        raise SystemExit("ragfunnel-native is not installed: pip install ./native")
    with tempfile.TemporaryDirectory() as tmp:
        traces = Path(tmp) / "spans.jsonl"
        started = time.perf_counter()
        spans = write_traces(traces, args.questions)
        size = traces.stat().st_size
        print(
            f"generated {spans:,} spans ({size / 1e6:,.0f} MB, {size / spans:,.0f} B/span) in {time.perf_counter() - started:.1f}s"
        )
        rates: dict[str, list[float]] = {"compact": [], "wide": [], "python": []}
        plan = [("compact", "native"), ("wide", "native")] * args.runs + [("compact", "python")]
        for run, (layout, converter) in enumerate(plan):
            # Each run is a new process and a new store, as a user's `ragfunnel ingest` is. Its
            # store is removed only at the end: on file systems where creating files is costly
            # right after many deletions (store/part_format.py), removing it now would bill
            # its deletions to the next run.
            result = timed_run(tmp, run, traces, layout, converter)
            if result["inserted"] != spans or result["skipped"]:
                raise SystemExit(f"unexpected ingest result: {result}")
            rate = spans / result["seconds"]
            rates["python" if converter == "python" else layout].append(rate)
            print(
                f"run {run + 1} ({converter}, {layout} parts): {result['seconds']:.2f}s, {rate:,.0f} spans/s"
            )
        with Store.open(
            f"chdb://{tmp}/store-baseline", database="bench_baseline", create=True
        ) as store:
            per_span = baseline(store, traces, args.baseline_spans)
        median = statistics.median(rates["compact"])
        wide = statistics.median(rates["wide"])
        print(
            f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}"
        )
        print(
            f"ingest (stage view attached, compact parts): median {median:,.0f} spans/s over "
            f"{args.runs} runs of {spans:,} spans"
        )
        print(
            f"ingest into wide parts: median {wide:,.0f} spans/s over {args.runs} runs "
            f"(compact parts: {median / wide:.2f}x)"
        )
        print(f"ingest (python converter, 1 run): {rates['python'][0]:,.0f} spans/s")
        print(
            f"baseline (json + row insert, {args.baseline_spans:,} spans): {1 / per_span:,.0f} spans/s"
        )
        print(f"ratio: {median * per_span:.1f}x")


if __name__ == "__main__":
    sys.exit(main())
