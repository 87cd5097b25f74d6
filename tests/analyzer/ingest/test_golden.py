"""The same spans give the same otel_traces rows through every input format.

The golden spans (data/golden_spans.py) go in as the SDK's JSON file exporter writes them; as a
collector's fileexporter would (enum names, base64 ids, other key order, pretty-printed, gzip);
as Jaeger v2 (1.76) answered for them on its API v3 and in its UI's JSON (data/jaeger_*.json,
made by a real Jaeger from these spans). Jaeger returns attributes sorted by key, so maps are
compared as key → value; the UI format keeps microseconds only, so its times are compared at
microsecond precision.
"""

from __future__ import annotations

import base64
import gzip
import importlib.util
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.exporter.otlp.json.file.trace_exporter import FileSpanExporter

from ragfunnel.analyzer.ingest import ingest_lines, ingest_paths, ingest_spans, spans_to_arrow
from ragfunnel.analyzer.store import Store
from tests.support.data import DATA

pytestmark = pytest.mark.usefixtures("converter")

_spec = importlib.util.spec_from_file_location("golden_spans", DATA / "golden_spans.py")
assert _spec and _spec.loader
golden = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(golden)

MAP_COLUMNS = ("ResourceAttributes", "SpanAttributes")


@pytest.fixture(scope="module")
def store_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("golden-store")


@pytest.fixture
def store(store_path: Path, request: pytest.FixtureRequest) -> Iterator[Store]:
    database = "golden_" + request.node.name.replace("[", "_").replace("]", "").replace("-", "_")
    with Store.open(f"chdb://{store_path}", database=database, create=True) as opened:
        yield opened


def _rows(store: Store, *, as_dicts: bool) -> list[dict[str, Any]]:
    rows = store.query_arrow(
        f"SELECT * FROM {store.traces_table} ORDER BY TraceId, SpanId"
    ).to_pylist()
    for row in rows:
        for column in MAP_COLUMNS:
            row[column] = dict(row[column]) if as_dicts else list(row[column])
        row["Events.Attributes"] = [
            dict(m) if as_dicts else list(m) for m in row["Events.Attributes"]
        ]
        row["Links.Attributes"] = [
            dict(m) if as_dicts else list(m) for m in row["Links.Attributes"]
        ]
    return rows


def _to_microseconds(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    for row in rows:
        row["Timestamp"] = row["Timestamp"].floor("us")
        row["Duration"] = row["Duration"] // 1000 * 1000
        row["Events.Timestamp"] = [t.floor("us") for t in row["Events.Timestamp"]]
    return rows


def _sdk_lines() -> str:
    stream = io.StringIO()
    FileSpanExporter(stream=stream).export(golden.make_spans())
    return stream.getvalue()


@pytest.fixture(scope="module")
def expected(store_path: Path) -> dict[str, list[dict[str, Any]]]:
    with Store.open(f"chdb://{store_path}", database="golden_expected", create=True) as store:
        summary = ingest_lines(store, _sdk_lines().splitlines())
        assert summary.inserted == 4 and not summary.skipped
        return {"ordered": _rows(store, as_dicts=False), "dicts": _rows(store, as_dicts=True)}


def test_sdk_rows_follow_the_exporter_rules(expected: dict[str, list[dict[str, Any]]]) -> None:
    rows = {row["SpanName"]: row for row in expected["ordered"]}
    retrieve, generate, root = (
        rows["retrieve bm25"],
        rows["generate gpt-4o-mini"],
        rows["question q-1"],
    )
    attributes = dict(retrieve["SpanAttributes"])
    assert attributes["ragfunnel.documents.ids"] == (
        '["doc-1#c0","é-doc","quote\\"d","</script>&","line\\u2028sep","tab\\tx"]'
    )
    assert attributes["ragfunnel.documents.scores"] == "[0.9,0.5,2,1e-7,1e+21,123456789.125]"
    assert attributes["flags"] == "[true,false]"
    assert attributes["ranks"] == "[1,-2]"
    assert attributes["ragfunnel.top_k"] == "6"
    assert dict(root["SpanAttributes"])["ratio"] == "2"
    assert dict(root["SpanAttributes"])["huge"] == "1e+21"
    assert dict(root["SpanAttributes"])["big.int"] == str(2**60)
    assert dict(root["SpanAttributes"])["ragfunnel.answer.abstained"] == "false"
    assert retrieve["Events.Attributes"] == [[("count", "6"), ("tiny", "0.000015")]]
    assert (root["SpanKind"], retrieve["SpanKind"], generate["SpanKind"]) == (
        "Server",
        "Internal",
        "Client",
    )
    assert (root["StatusCode"], retrieve["StatusCode"], generate["StatusCode"]) == (
        "Ok",
        "Unset",
        "Error",
    )
    assert generate["StatusMessage"] == "boom"
    assert root["ParentSpanId"] == "" and retrieve["ParentSpanId"] == root["SpanId"]
    assert retrieve["Links.SpanId"] == [root["SpanId"]]
    assert retrieve["Duration"] == 5_555_555 - 1_001_001
    assert root["ServiceName"] == "golden-rag"
    assert root["ResourceAttributes"][0] == ("service.name", "golden-rag")
    assert (root["ScopeName"], root["ScopeVersion"]) == ("ragfunnel", "0.1.0")
    assert rows["enqueue"]["ScopeName"] == "other.lib"
    assert rows["enqueue"]["TraceId"] == "00000000000000004bf92f3577b34da6"
    assert retrieve["Timestamp"].value == golden.T0 + 1_001_001


def _collector_style(document: dict[str, Any]) -> dict[str, Any]:
    """The SDK document as another writer might put it: enum names, base64 ids, keys reordered."""
    kinds = [
        "SPAN_KIND_UNSPECIFIED",
        "SPAN_KIND_INTERNAL",
        "SPAN_KIND_SERVER",
        "SPAN_KIND_CLIENT",
        "SPAN_KIND_PRODUCER",
    ]

    def b64(hex_id: str) -> str:
        return base64.b64encode(bytes.fromhex(hex_id)).decode()

    for rs in document["resourceSpans"]:
        for ss in rs["scopeSpans"]:
            for span in ss["spans"]:
                span["kind"] = kinds[span["kind"]]
                span["traceId"] = b64(span["traceId"])
                span["spanId"] = b64(span["spanId"])
                span["startTimeUnixNano"] = int(span["startTimeUnixNano"])
                if "status" in span and "code" in span["status"]:
                    span["status"]["code"] = [
                        "STATUS_CODE_UNSET",
                        "STATUS_CODE_OK",
                        "STATUS_CODE_ERROR",
                    ][span["status"]["code"]]
    return json.loads(json.dumps(document, sort_keys=True))


def test_collector_style_otlp_json_gives_the_same_rows(
    store: Store, expected: dict[str, list[dict[str, Any]]], tmp_path: Path
) -> None:
    documents = [_collector_style(json.loads(line)) for line in _sdk_lines().splitlines()]
    path = tmp_path / "collector.json.gz"
    path.write_bytes(gzip.compress("\n".join(json.dumps(d, indent=2) for d in documents).encode()))
    summary = ingest_paths(store, [path])
    assert not summary.skipped, summary.skipped
    assert _rows(store, as_dicts=False) == expected["ordered"]


def test_jaeger_api_v3_answer_gives_the_same_rows(
    store: Store, expected: dict[str, list[dict[str, Any]]]
) -> None:
    summary = ingest_paths(store, [DATA / "jaeger_v3.json"])
    assert not summary.skipped, summary.skipped
    assert summary.inserted == 4
    assert _rows(store, as_dicts=True) == expected["dicts"]


def test_jaeger_ui_export_gives_the_same_rows_to_the_microsecond(
    store: Store, expected: dict[str, list[dict[str, Any]]]
) -> None:
    summary = ingest_paths(store, [DATA / "jaeger_ui.json"])
    assert not summary.skipped, summary.skipped
    assert summary.inserted == 4
    assert _to_microseconds(_rows(store, as_dicts=True)) == _to_microseconds(expected["dicts"])


def test_sdk_spans_and_their_file_give_the_same_rows(
    store: Store, expected: dict[str, list[dict[str, Any]]]
) -> None:
    summary = ingest_spans(store, golden.make_spans())
    assert summary.inserted == 4
    assert _rows(store, as_dicts=False) == expected["ordered"]


def test_spans_to_arrow_needs_no_store() -> None:
    table = spans_to_arrow(golden.make_spans())
    assert table.num_rows == 4
    assert set(table.column("SpanKind").to_pylist()) == {"Server", "Internal", "Client", "Producer"}
    assert spans_to_arrow(_sdk_lines().splitlines()[0]).num_rows == 4
