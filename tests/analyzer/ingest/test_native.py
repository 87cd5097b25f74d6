"""The native converter gives exactly the Python converter's rows, counts and messages.

Generated OTLP JSON lines mix what real exporters write with what they should not: ids in
upper case, base64, all zeros or missing; times as numbers, strings, negative or reversed;
values of every kind, strings with escapes, control characters and U+2028, non-canonical
integers, doubles as strings, nested arrays, maps, bytes, nulls; duplicated spans; resources
after their spans; broken JSON. Each line set is read once natively (which takes the lines it
can and leaves the others to Python) and once by Python alone; rows, summaries, skips and notes
must agree. Another test checks that what the SDK writes is taken natively.
"""

from __future__ import annotations

import base64
import importlib.util
import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragfunnel.analyzer.ingest import native as _native
from ragfunnel.analyzer.ingest import otlp
from ragfunnel.analyzer.ingest.chunking import Loader
from ragfunnel.analyzer.ingest.result import IngestSummary
from ragfunnel.analyzer.ingest.rows import MAX_VALUE_CHARS
from ragfunnel.analyzer.store import Store
from tests.support.converters import converter_switch
from tests.support.data import DATA

T0 = 1_800_000_000_000_000_000
_spec = importlib.util.spec_from_file_location("golden_spans", DATA / "golden_spans.py")
assert _spec and _spec.loader
golden = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(golden)

texts = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cs",))
    | st.sampled_from(['"', "\\", "\n", "\x00", "\x1f", "\x7f", "\u2028", "\u2029", "é", "😀"]),
    max_size=12,
)
hex_chars = "0123456789abcdef"


clean = st.shared(st.booleans(), key="clean")
"""Whether an example holds only what exporters write: every line of it must be taken natively."""


def often(
    valid: st.SearchStrategy[Any], rare: st.SearchStrategy[Any], *, odds: int = 40
) -> st.SearchStrategy[Any]:
    """``valid``, and once in ``odds`` draws ``rare`` (never in a clean example): most lines
    must be ones the native path takes, or the test would compare Python with itself."""
    return st.tuples(clean, st.integers(0, odds - 1)).flatmap(
        lambda pick: rare if not pick[0] and pick[1] == 0 else valid
    )


def ids(size: int) -> st.SearchStrategy[Any]:
    digits = st.text(st.sampled_from(hex_chars), min_size=2 * size, max_size=2 * size)
    return often(
        digits.filter(lambda text: text.strip("0")),
        st.one_of(
            digits.map(str.upper),
            st.just("0" * 2 * size),
            st.just(""),
            st.binary(min_size=size, max_size=size).map(lambda b: base64.b64encode(b).decode()),
            st.sampled_from(["xyz", "g" * 2 * size, None, 7]),
        ),
    )


starts = st.integers(T0, T0 + 10**9)
odd_times = st.sampled_from(["0", 0, -5, "-5", " 12", "1_000", "1.5", 1.5, "", None, 2**64, "007"])
times = often(st.one_of(starts.map(str), starts), odd_times)
numbers = st.floats(allow_nan=False, allow_infinity=False) | st.sampled_from(
    [0.0, -0.0, 1e21, 1e-7, 1e-6, 123456789012345680.0, 5e-324, 1.7976931348623157e308]
)
scalars = often(
    st.one_of(
        texts.map(lambda t: {"stringValue": t}),
        st.integers(-(2**63), 2**63 - 1).map(lambda i: {"intValue": str(i)}),
        st.integers(-(2**63), 2**63 - 1).map(lambda i: {"intValue": i}),
        numbers.map(lambda f: {"doubleValue": f}),
        st.integers(-(2**60), 2**60).map(lambda i: {"doubleValue": i}),
        st.booleans().map(lambda b: {"boolValue": b}),
        st.just({}),
    ),
    st.one_of(
        st.sampled_from(["+3", " 4", "1_0", "x", "9" * 20, "-0", "007"]).map(
            lambda t: {"intValue": t}
        ),
        st.sampled_from(["NaN", "Infinity", "1.5"]).map(lambda t: {"doubleValue": t}),
        st.sampled_from(
            [
                {"bytesValue": "aGVsbG8="},
                {"kvlistValue": {"values": [{"key": "b", "value": {"intValue": "1"}}]}},
                {"stringValue": None},
                {"arrayValue": None},
                {"stringValue": "a", "intValue": "1"},
                {"stringValue": "a", "other": 1},
            ]
        ),
    ),
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4).map(lambda items: {"arrayValue": {"values": items}})
        | st.just({"arrayValue": {}})
    ),
    max_leaves=8,
)
key_values = st.lists(
    often(
        st.builds(lambda k, v: {"key": k, "value": v}, texts, values),
        st.one_of(
            st.builds(lambda v: {"value": v, "key": "later"}, values),
            st.sampled_from([{"key": "no value"}, {"key": "null", "value": None}, {}]),
        ),
    ),
    max_size=4,
)


@st.composite
def spans(draw: st.DrawFn) -> dict[str, Any]:
    start = draw(times)
    canonical = isinstance(start, int) or (isinstance(start, str) and start.isdigit())
    end = draw(
        often(st.integers(0, 10**9).map(lambda d: str(int(start) + d)), times)
        if canonical and int(start) > 0
        else times
    )
    span: dict[str, Any] = {
        "traceId": draw(ids(16)),
        "spanId": draw(ids(8)),
        "name": draw(texts),
        "startTimeUnixNano": start,
        "endTimeUnixNano": end,
    }
    optional: dict[str, Any] = {
        "parentSpanId": ids(8),
        "traceState": texts,
        "kind": often(
            st.sampled_from([0, 1, 2, 5]),
            st.sampled_from([9, -1, "SPAN_KIND_SERVER", "server", "2", None]),
        ),
        "attributes": key_values,
        "events": st.lists(
            st.fixed_dictionaries(
                {}, optional={"timeUnixNano": times, "name": texts, "attributes": key_values}
            ),
            max_size=2,
        ),
        "links": st.lists(
            st.fixed_dictionaries(
                {},
                optional={
                    "traceId": ids(16),
                    "spanId": ids(8),
                    "traceState": texts,
                    "attributes": key_values,
                },
            ),
            max_size=2,
        ),
        "status": st.one_of(
            st.none(),
            st.fixed_dictionaries(
                {},
                optional={
                    "code": st.sampled_from([0, 1, 2, 3, "STATUS_CODE_ERROR", "Error"]),
                    "message": texts,
                },
            ),
        ),
        "flags": st.just(256),
    }
    for name, strategy in optional.items():
        if draw(st.booleans()):
            span[name] = draw(strategy)
    return span


@st.composite
def documents(draw: st.DrawFn) -> str:
    pool = draw(st.lists(spans(), min_size=1, max_size=4))
    resource_spans = []
    for _ in range(draw(st.integers(1, 2))):
        chosen = draw(st.lists(st.sampled_from(pool), max_size=5))  # repeats are duplicates
        scope = st.fixed_dictionaries({}, optional={"name": texts, "version": texts}) | st.none()
        scope_spans: dict[str, Any] = {"spans": chosen}
        where = draw(often(st.sampled_from(["before", "none"]), st.just("after"), odds=25))
        if where == "before":
            scope_spans = {"scope": draw(scope), **scope_spans}
        elif where == "after":
            scope_spans["scope"] = draw(scope)  # the native path leaves this to Python
        resource: dict[str, Any] = {"attributes": draw(key_values)}
        if draw(st.booleans()):
            resource["attributes"].append(
                {"key": "service.name", "value": draw(scalars | st.just({"stringValue": "svc"}))}
            )
        entry: dict[str, Any] = {"scopeSpans": [scope_spans]}
        where = draw(often(st.sampled_from(["before", "none"]), st.just("after"), odds=25))
        if where == "before":
            entry = {"resource": resource, **entry}
        elif where == "after":
            entry["resource"] = resource  # the native path leaves this to Python
        resource_spans.append(entry)
    document: Any = {"resourceSpans": resource_spans}
    if draw(st.booleans()):
        document = {"result": document}
    # Compact, as exporters write it (the native path's fast keys), or spaced.
    separators = draw(st.sampled_from([(",", ":"), (", ", ": ")]))
    text = json.dumps(document, ensure_ascii=draw(st.booleans()), separators=separators)
    mangle = draw(often(st.just("none"), st.sampled_from(["cut", "garbage", "spaces"]), odds=8))
    if mangle == "cut":
        text = text[: len(text) * 2 // 3]
    elif mangle == "garbage":
        text += " x"
    elif mangle == "spaces":
        text = " " + text.replace(",", " ,\t") + " "
    return text


def _read(lines: list[bytes], *, native: bool) -> Any:
    with converter_switch(native=native):
        summary = IngestSummary()
        loader = Loader(None, summary, chunk_spans=2**62)
        assert (loader.native is not None) == native
        otlp.read_lines(iter(lines), "<gen>", loader)
        rows = loader.chunk().table.to_pylist()  # dictionary columns decoded
    rows.sort(key=lambda row: (row["TraceId"], row["SpanId"]))
    return (
        rows,
        summary.read,
        summary.duplicates,
        sorted(map(str, summary.skipped)),
        sorted(map(str, summary.notes)),
    )


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(documents(), min_size=1, max_size=3), clean)
def test_native_and_python_give_the_same_rows_and_messages(
    docs: list[str], only_clean: bool
) -> None:
    lines = [doc.encode() + b"\n" for doc in docs]
    python = _read(lines, native=False)
    assert _read(lines, native=True) == python
    if only_clean:
        # A line holding a copy of an earlier span with another start time is the Python
        # path's to name (a pool may draw two spans with the same ids): it may be declined.
        conflicting = {
            int(skip.split(":")[1]) for skip in python[3] if "already read in this ingest" in skip
        }
        converter = _native.converter()
        assert converter is not None
        taken = [converter.add_line(line)[0] for line in lines]
        assert [status for number, status in enumerate(taken, 1) if number not in conflicting] == [
            0
        ] * (len(lines) - len(conflicting))


def _sdk_lines(tmp_path: Path) -> list[bytes]:
    """The golden spans and a decorated pipeline's, as the SDK's JSON file exporter writes them."""
    from opentelemetry.exporter.otlp.json.file.trace_exporter import FileSpanExporter

    import ragfunnel
    from ragfunnel.testing import capture_spans

    @ragfunnel.retrieve(name="keyword")
    def search(query: str) -> list[tuple[str, float]]:
        return [(f"doc-{i}#chunk-{i}", 1.0 / (i + 1)) for i in range(20)]

    @ragfunnel.generate(model="extractive")
    def generate(question: str, context: list[tuple[str, float]]) -> str:
        return f"see {context[0][0]}"

    @ragfunnel.question(id="question_id")
    def answer(question_id: str, question: str) -> str:
        return generate(question, search(question))

    with capture_spans() as captured:
        answer("q-1", "Which firmware fixes the reset loop?")
    path = tmp_path / "sdk.jsonl"
    with path.open("w") as out:
        exporter = FileSpanExporter(stream=out)
        exporter.export(captured.spans)
        exporter.export(golden.make_spans())
    return path.read_bytes().splitlines(keepends=True)


def _one_span_line(attributes: list[dict[str, Any]]) -> bytes:
    span = {
        "traceId": "ab" * 16,
        "spanId": "cd" * 8,
        "startTimeUnixNano": str(T0),
        "endTimeUnixNano": str(T0 + 1),
        "attributes": attributes,
    }
    document = {"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}
    return json.dumps(document).encode() + b"\n"


def test_what_exporters_write_is_taken_natively(tmp_path: Path) -> None:
    converter = _native.converter()
    assert converter is not None, "ragfunnel-native is not installed (pip install ./native)"
    lines = _sdk_lines(tmp_path)
    assert len(lines) == 2
    assert [converter.add_line(line)[0] for line in lines] == [0] * len(lines)
    # and what needs a message is left to Python
    for bad in (
        b'{"resourceSpans": [{"scopeSpans": [{"spans": [{"spanId": "00000000000000aa"}]}]}]}\n',
        b'{"resourceSpans": []',
        b'{"data": []}\n',
    ):
        assert converter.add_line(bad) == (1, 0, 0)
    long_value = "x" * (MAX_VALUE_CHARS + 1)
    line = _one_span_line([{"key": "big", "value": {"stringValue": long_value}}])
    assert converter.add_line(line) == (1, 0, 0)


class _ChunkSizes:
    """A writer that only notes the rows and column bytes of each chunk it is given."""

    def __init__(self) -> None:
        self.chunks: list[tuple[int, int]] = []

    def submit(self, chunk: Any) -> None:
        self.chunks.append((chunk.table.num_rows, chunk.table.nbytes))


def test_a_chunk_of_large_spans_ends_at_chunk_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    # The engine holds about ten times a chunk's column bytes while it inserts it: large spans
    # must end a chunk long before CHUNK_SPANS of them.
    from ragfunnel.analyzer.ingest import chunking

    monkeypatch.setattr(chunking, "CHUNK_BYTES", 200_000)
    writer = _ChunkSizes()
    loader = Loader(writer, IngestSummary())  # type: ignore[arg-type]
    assert loader.native is not None, "ragfunnel-native is not installed (pip install ./native)"
    prompt = {"key": "prompt", "value": {"stringValue": "word " * 2_000}}  # 10 KB a span
    for number in range(100):
        line = _one_span_line([prompt]).replace(b"cd" * 8, f"{number + 1:016x}".encode())
        assert loader.take_line(line, "<gen>", number + 1)
    loader.flush()
    rows = [n for n, _ in writer.chunks]
    assert sum(rows) == 100
    assert len(rows) >= 5, rows  # 1 MB of spans in chunks of at most ~200 KB
    assert all(nbytes <= 200_000 + 20_000 for _, nbytes in writer.chunks), writer.chunks


def test_floats_are_written_as_go_writes_them() -> None:
    samples = [0.1, 2.0, -0.0, 1e20, 1e21, 1e-6, 9.99e-7, 1.5e300, 5e-324, math.pi, 100.0]
    line = _one_span_line(
        [{"key": f"f{i}", "value": {"doubleValue": v}} for i, v in enumerate(samples)]
        + [
            {
                "key": "array",
                "value": {"arrayValue": {"values": [{"doubleValue": v} for v in samples]}},
            }
        ]
    )
    native = _read([line], native=True)
    assert native == _read([line], native=False)
    attributes = dict(native[0][0]["SpanAttributes"])
    assert [attributes[f"f{i}"] for i in range(len(samples))] == [
        "0.1",
        "2",
        "-0",
        "100000000000000000000",
        "1e+21",
        "0.000001",
        "9.99e-7",
        "1.5e+300",
        "5e-324",
        "3.141592653589793",
        "100",
    ]


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        ("0.10", "0.1"),
        ("1.50", "1.5"),
        ("2.0", "2"),
        ("-0.0", "-0"),
        ("-0", "0"),
        ("0.000001", "0.000001"),
        ("0.0000001", "1e-7"),
        ("1E2", "100"),
        ("123456789012345", "123456789012345"),
        ("1234567890123456789", "1234567890123456800"),
        ("0.1234567890123456789", "0.12345678901234568"),
        ("29.123456", "29.123456"),
    ],
)
def test_doubles_are_written_as_go_writes_them_whatever_their_json_text(
    written: str, expected: str
) -> None:
    span = (
        '{"traceId": "' + "ab" * 16 + '", "spanId": "' + "cd" * 8 + '", '
        f'"startTimeUnixNano": "{T0}", "endTimeUnixNano": "{T0 + 1}", '
        f'"attributes": [{{"key": "d", "value": {{"doubleValue": {written}}}}}, '
        f'{{"key": "a", "value": {{"arrayValue": {{"values": [{{"doubleValue": {written}}}]}}}}}}]}}'
    )
    line = ('{"resourceSpans": [{"scopeSpans": [{"spans": [' + span + "]}]}]}\n").encode()
    native = _read([line], native=True)
    assert native == _read([line], native=False)
    assert dict(native[0][0]["SpanAttributes"]) == {"d": expected, "a": f"[{expected}]"}


def test_a_store_filled_natively_equals_one_filled_by_python(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Enough spans for several insert files and chunks, with duplicates across chunks.
    from ragfunnel.analyzer.ingest import chunking, ingest_paths

    monkeypatch.setattr(chunking, "CHUNK_SPANS", 4_000)
    spans_per_line = 100
    path = tmp_path / "many.jsonl"
    with path.open("w") as out:
        for number in range(300):
            batch = [
                {
                    "traceId": f"{number // 3 + 1:032x}",
                    "spanId": f"{number * spans_per_line + i + 1:016x}",
                    "name": f"op {i % 7}",
                    "kind": 1 + i % 3,
                    "startTimeUnixNano": str(T0 + (number * spans_per_line + i) * 10**6),
                    "endTimeUnixNano": str(T0 + (number * spans_per_line + i) * 10**6 + 999),
                    "attributes": [
                        {
                            "key": "ids",
                            "value": {
                                "arrayValue": {
                                    "values": [
                                        {"stringValue": f"doc-{i}"},
                                        {"stringValue": f"doc-{i + 1}"},
                                    ]
                                }
                            },
                        },
                        {"key": "score", "value": {"doubleValue": i / 7}},
                    ],
                }
                for i in range(spans_per_line)
            ]
            document = {
                "resourceSpans": [{"scopeSpans": [{"scope": {"name": "s"}, "spans": batch}]}]
            }
            out.write(json.dumps(document) + "\n")
            if number % 50 == 49:  # a batch delivered twice, far from its first copy
                out.write(json.dumps(document) + "\n")
    tables = []
    for native in (True, False):
        monkeypatch.setenv(_native.NATIVE_ENV, "1" if native else "0")
        with Store.open(
            f"chdb://{tmp_path}/store", database=f"n{int(native)}", create=True
        ) as store:
            summary = ingest_paths(store, [path])
            assert (summary.read, summary.inserted, summary.duplicates) == (30_600, 30_000, 600)
            tables.append(store.query_arrow(f"SELECT * FROM {store.traces_table} ORDER BY SpanId"))
    assert tables[0].to_pylist() == tables[1].to_pylist()
