"""The analyzer on hostile input: broken traces, injection strings, credentials.

Broken traces (no root span, orphans, duplicates, clock skew, one trace split across files in
either order, a 10 MB attribute value) give the verdict of the intact trace or
``incomplete_trace`` with its reason — never a crash. Every user-supplied value reaches SQL as a
bound parameter: injection strings through the public API and the CLI select nothing (or exactly
the record whose id *is* that string) and leave the store intact. A store password never
appears in output, logs or errors.
"""

from __future__ import annotations

import json
import logging
import socket
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.exporter.otlp.json.file.trace_exporter import _encode_spans_to_dict
from typer.testing import CliRunner

from ragfunnel.analyzer.cli import app
from ragfunnel.analyzer.funnel import analyze
from ragfunnel.analyzer.funnel.read.runs import UnknownRun
from ragfunnel.analyzer.ingest import MAX_VALUE_CHARS, ingest_paths
from ragfunnel.analyzer.store import Store, StoreError
from tests.support.decisions import A_ID, B_ID, WRONG, Q, ranked
from tests.support.traces import TraceBuilder

INJECTIONS = [
    "r1' OR '1'='1",
    "x'); DROP TABLE otel_traces; --",
    "\\' OR 1=1 --",
    "q-017' --",
    "{runs:Array(String)}",
    "r1\x00",
]
CASES = f"""\
- id: q-017
  question: {Q}
  evidence: {{all_of: ["{A_ID}", "{B_ID}"]}}
  facts: ["4.2.0", "4.2.1"]
"""
VERDICT = ["question_id", "first_failure", "failure_reason", "failure_item"]


def _trace(
    builder: TraceBuilder, *, qid: str = "q-017", run: str = "r1", root: bool = True
) -> None:
    cands = ranked(50, **{A_ID: 3, B_ID: 41})
    with builder.question(qid, Q, run=run, root=root) as q:
        q.retrieve(cands, name="bm25", top_k=50)
        q.cut(cands[:10], input_ids=cands, k=10)
        q.generate(cands[:10], WRONG)


def _write(path: Path, spans: list[Any]) -> Path:
    document = _encode_spans_to_dict(spans)
    path.write_text(json.dumps(document) + "\n", encoding="utf-8")
    return path


def _verdicts(store: Store, cases: Path, **options: Any) -> list[dict[str, Any]]:
    records = analyze(store, cases, **options).records
    return records.select(VERDICT).sort("question_id").to_dicts()


@pytest.fixture
def cases_file(tmp_path: Path) -> Path:
    path = tmp_path / "cases.yaml"
    path.write_text(CASES, encoding="utf-8")
    return path


@pytest.fixture
def intact(store: Store, cases_file: Path, tmp_path: Path) -> list[dict[str, Any]]:
    """The verdict of the intact trace, ingested from one file."""
    builder = TraceBuilder()
    _trace(builder)
    summary = ingest_paths(store, [_write(tmp_path / "intact.jsonl", builder.spans)])
    assert not summary.skipped
    verdicts = _verdicts(store, cases_file)
    assert len(verdicts) == 1
    return verdicts


# --- Broken traces ---------------------------------------------------------------------------


def test_no_root_span_is_an_incomplete_trace_with_its_reason(
    store: Store, cases_file: Path, tmp_path: Path
) -> None:
    builder = TraceBuilder()
    _trace(builder, root=False)
    ingest_paths(store, [_write(tmp_path / "rootless.jsonl", builder.spans)])
    (record,) = _verdicts(store, cases_file)
    assert record["first_failure"] == "incomplete_trace"
    assert "question span" in record["failure_reason"]


def test_orphans_whose_root_is_elsewhere_are_an_incomplete_trace(
    store: Store, cases_file: Path, tmp_path: Path
) -> None:
    builder = TraceBuilder()
    _trace(builder)
    stages = [s for s in builder.spans if s.name != "question"]  # their parent never arrives
    ingest_paths(store, [_write(tmp_path / "orphans.jsonl", stages)])
    (record,) = _verdicts(store, cases_file)
    assert record["first_failure"] == "incomplete_trace"
    assert record["failure_reason"]


def test_duplicate_spans_change_nothing(
    store: Store, cases_file: Path, tmp_path: Path, intact: list[dict[str, Any]]
) -> None:
    again = (tmp_path / "intact.jsonl").read_text(encoding="utf-8")
    copy = tmp_path / "copy.jsonl"
    copy.write_text(again + again, encoding="utf-8")
    summary = ingest_paths(store, [copy])
    assert summary.inserted == 0 and summary.duplicates == 2 * summary.read // 2
    assert _verdicts(store, cases_file) == intact


@pytest.mark.parametrize("order", ["root first", "stages first"])
def test_a_trace_split_across_files_gives_the_same_verdict_in_either_order(
    order: str,
    store: Store,
    store_path: Path,
    cases_file: Path,
    tmp_path: Path,
    intact: list[dict[str, Any]],
) -> None:
    builder = TraceBuilder()
    _trace(builder)
    root = _write(tmp_path / "root.jsonl", [s for s in builder.spans if s.name == "question"])
    rest = _write(tmp_path / "rest.jsonl", [s for s in builder.spans if s.name != "question"])
    files = [root, rest] if order == "root first" else [rest, root]
    database = f"t_split_{order.replace(' ', '_')}"
    with Store.open(f"chdb://{store_path}", database=database, create=True) as split:
        for path in files:  # two ingests, as when the files arrive at different times
            ingest_paths(split, [path])
        assert _verdicts(split, cases_file) == intact


def test_clock_skew_keeps_the_verdict_and_is_noted(
    store: Store, store_path: Path, cases_file: Path, tmp_path: Path, intact: list[dict[str, Any]]
) -> None:
    builder = TraceBuilder()
    _trace(builder)
    document = _encode_spans_to_dict(builder.spans)
    for rs in document["resourceSpans"]:
        for ss in rs["scopeSpans"]:
            for span in ss["spans"]:
                if span["name"] != "question":  # children start an hour before their root,
                    start = (
                        int(span["startTimeUnixNano"]) - 3600 * 10**9
                    )  # and end before they start
                    span["startTimeUnixNano"] = str(start)
                    span["endTimeUnixNano"] = str(start - 1)
    path = tmp_path / "skewed.jsonl"
    path.write_text(json.dumps(document) + "\n", encoding="utf-8")
    with Store.open(f"chdb://{store_path}", database="t_skewed", create=True) as skewed:
        summary = ingest_paths(skewed, [path])
        assert any("end before start" in str(n) for n in summary.notes)
        assert _verdicts(skewed, cases_file) == intact


def test_a_ten_megabyte_attribute_is_cut_noted_and_analyzed(
    store: Store, cases_file: Path, tmp_path: Path
) -> None:
    builder = TraceBuilder()
    cands = ranked(50, **{A_ID: 3, B_ID: 41})
    with builder.question("q-017", Q, run="r1") as q:
        q.retrieve(cands, name="bm25", top_k=50)
        q.cut(cands[:10], input_ids=cands, k=10)
        q.generate(cands[:10], "4.2.0 and 4.2.1 " + "x" * 10_000_000)
    summary = ingest_paths(store, [_write(tmp_path / "huge.jsonl", builder.spans)])
    assert any("cut" in str(n) for n in summary.notes), summary.notes
    (record,) = _verdicts(store, cases_file)
    assert record["first_failure"]  # a verdict, not a crash
    longest = store.query_arrow(
        f"SELECT max(length(mapValues(SpanAttributes)[1])) AS n FROM {store.traces_table}"
    ).to_pylist()[0]["n"]
    assert longest <= MAX_VALUE_CHARS


# --- SQL injection ---------------------------------------------------------------------------


def _row_count(store: Store) -> int:
    return int(
        store.query_arrow(f"SELECT count() AS n FROM {store.traces_table}").to_pylist()[0]["n"]
    )


@pytest.mark.parametrize("value", INJECTIONS)
def test_injection_strings_through_the_api_select_nothing(
    value: str, store: Store, cases_file: Path, intact: list[dict[str, Any]]
) -> None:
    rows = _row_count(store)
    with pytest.raises(UnknownRun, match="it holds: r1"):  # a run the store does not hold
        analyze(store, cases_file, run=value)
    with pytest.raises(UnknownRun):
        analyze(store, cases_file, run=["r1", value])
    assert analyze(store, cases_file, run=["r1"]).records.height == 1
    assert analyze(store, cases_file, question=value).records.height == 0
    assert _row_count(store) == rows  # nothing dropped, nothing written


def test_an_id_that_is_an_injection_string_round_trips_exactly(
    store: Store, tmp_path: Path
) -> None:
    qid, run, service = INJECTIONS[1], INJECTIONS[0], "svc'); DROP TABLE otel_traces; --"
    builder = TraceBuilder()
    _trace(builder, qid=qid, run=run)
    _trace(builder, qid="q-017", run="r1")
    document = _encode_spans_to_dict(builder.spans)
    for rs in document["resourceSpans"]:
        for attribute in rs["resource"]["attributes"]:
            if attribute["key"] == "service.name":
                attribute["value"] = {"stringValue": service}
    path = tmp_path / "hostile.jsonl"
    path.write_text(json.dumps(document) + "\n", encoding="utf-8")
    ingest_paths(store, [path])
    cases = tmp_path / "hostile.yaml"
    cases.write_text(CASES + CASES.replace("id: q-017", f"id: {json.dumps(qid)}"), encoding="utf-8")
    records = analyze(store, cases, run=run).records
    assert records["question_id"].to_list() == [qid]
    assert records["run_id"].to_list() == [run]
    services = store.query_arrow(
        f"SELECT DISTINCT ServiceName AS s FROM {store.traces_table}"
    ).to_pylist()
    assert {r["s"] for r in services} >= {service}


def _invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def cli_store(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A store of its own (the CLI opens it by DSN), holding the intact trace."""
    path = tmp_path_factory.mktemp("cli-hostile")
    builder = TraceBuilder()
    _trace(builder)
    with Store.open(f"chdb://{path}", create=True) as opened:
        builder.into(opened)
    return f"chdb://{path}"


def _cli_rows(dsn: str) -> int:
    with Store.open(dsn, create=True) as opened:
        return _row_count(opened)


@pytest.mark.parametrize("value", INJECTIONS[:4])
def test_injection_strings_through_the_cli(value: str, cli_store: str, cases_file: Path) -> None:
    rows = _cli_rows(cli_store)
    code, out = _invoke("analyze", "--store", cli_store, "--cases", str(cases_file), "--run", value)
    assert code == 2 and "no run" in out and "it holds: r1" in out, out
    assert "Traceback" not in out and "Code:" not in out and out.strip().count("\n") <= 1, out
    code, out = _invoke("analyze", "--store", cli_store, "--cases", str(cases_file), "--run", "r1")
    assert code == 0 and "1 question record" in out, out
    code, out = _invoke("funnel", value, "--store", cli_store, "--cases", str(cases_file))
    assert code == 2 and "no case in" in out  # an id no case has: a usage error
    assert "Traceback" not in out and "Code:" not in out, out
    assert out.strip().count("\n") <= 2, out  # a one-line message, not an SQL error dump
    assert _cli_rows(cli_store) == rows


def test_an_identifier_that_is_not_one_is_refused(store_path: Path) -> None:
    with pytest.raises(StoreError, match="database"):
        Store.open(f"chdb://{store_path}", database="otel; DROP TABLE otel_traces", create=True)


# --- Credentials -----------------------------------------------------------------------------

SECRET = "s3cret-Pa55"


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_password_never_reaches_errors_logs_or_output(
    cases_file: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    dsn = f"http://alice:{SECRET}@127.0.0.1:{_closed_port()}/otel"
    with caplog.at_level(logging.DEBUG), pytest.raises(StoreError) as caught:
        Store.open(dsn, create=True)
    assert SECRET not in str(caught.value)
    assert SECRET not in repr(caught.value)
    assert "alice" in str(caught.value) or "127.0.0.1" in str(caught.value)
    code, out = _invoke("analyze", "--store", dsn, "--cases", str(cases_file))
    assert code == 1 and SECRET not in out and "127.0.0.1" in out, out
    monkeypatch.setenv("CLICKHOUSE_PASSWORD", SECRET)
    code, out = _invoke(
        "analyze",
        "--store",
        f"http://alice@127.0.0.1:{_closed_port()}/otel",
        "--cases",
        str(cases_file),
    )
    assert code == 1 and SECRET not in out, out
    assert SECRET not in caplog.text
    assert all(SECRET not in str(r.args) for r in caplog.records)


def test_the_records_carry_no_store_address(
    store: Store, cases_file: Path, intact: list[dict[str, Any]]
) -> None:
    records = analyze(store, cases_file).records
    text = str(records.to_dicts())
    assert "chdb://" not in text and store.dsn_redacted not in text
