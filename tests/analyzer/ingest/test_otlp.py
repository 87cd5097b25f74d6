"""``ingest/otlp.py``: trace files opened whatever their compression, recognised by content, and
read line by line or as documents, a growing file's cut last line left for the next ingest."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import zstandard

from ragfunnel.analyzer.ingest.otlp import (
    TRUNCATED,
    open_trace_file,
    opens_document,
    read_lines,
    sniff,
    starts_mid_line,
)
from tests.support.otlp_json import line, span
from tests.support.sink import Collected

TWO_LINES = (line(span(1)) + "\n" + line(span(2)) + "\n").encode()
IDS = [f"{1:016x}", f"{2:016x}"]


@pytest.mark.parametrize(
    ("name", "encode", "compressed"),
    [
        ("plain", lambda b: b, False),
        ("gzip", gzip.compress, True),
        ("zstd", lambda b: zstandard.ZstdCompressor().compress(b), True),
    ],
)
def test_a_file_is_read_whatever_its_compression_by_magic_bytes(
    tmp_path: Path, name: str, encode: object, compressed: bool
) -> None:
    path = tmp_path / "spans.txt"  # the name says nothing
    path.write_bytes(encode(TWO_LINES))  # type: ignore[operator]
    with open_trace_file(path) as (stream, consumed, was_compressed):
        assert stream.read() == TWO_LINES
        assert was_compressed is compressed
        assert consumed() == path.stat().st_size  # of the file, not of what it holds


@pytest.mark.parametrize(
    ("head", "may_hold_traces", "mid_line"),
    [
        (b'  {"resourceSpans": []}', True, False),
        (b"[\n  {", True, False),
        (b'ceId":"ab","spanId":"cd"}]}]}', True, True),  # cut at its start: reported
        (b"# a README\n", False, False),
        (b"", False, False),
    ],
)
def test_files_are_recognised_by_content(
    head: bytes, may_hold_traces: bool, mid_line: bool
) -> None:
    assert sniff(head) is may_hold_traces
    assert starts_mid_line(head) is mid_line


@pytest.mark.parametrize(
    ("first", "opens"),
    [
        (b"{\n", True),
        (b"[\n", True),
        (b'{"data": [\n', True),
        (b'{"resourceSpans": []}\n', False),  # a whole line
        (b"{ garbage\n", False),
    ],
)
def test_a_first_line_opening_a_pretty_printed_document(first: bytes, opens: bool) -> None:
    assert opens_document(first) is opens


def read(data: list[bytes], **kw: bool) -> tuple[Collected, object]:
    sink = Collected()
    return sink, read_lines(data, "f.jsonl", sink, **kw)


def test_lines_are_read_and_counted() -> None:
    sink, reading = read(TWO_LINES.splitlines(keepends=True))
    assert sink.span_ids == IDS and sink.skipped == []
    assert (reading.lines, reading.tail, reading.document) == (2, 0, False)  # type: ignore[attr-defined]


def test_a_pretty_printed_document_is_read_whole() -> None:
    pretty = json.dumps(json.loads(line(span(1), span(2))), indent=2).encode()
    sink, reading = read(pretty.splitlines(keepends=True))
    assert sink.span_ids == IDS and reading.document  # type: ignore[attr-defined]


def test_a_growing_files_cut_last_line_is_left_or_reported_once_settled() -> None:
    cut = [TWO_LINES.splitlines(keepends=True)[0], line(span(2)).encode()[:40]]
    sink, reading = read(cut, growing=True)
    assert sink.span_ids == IDS[:1] and sink.skipped == []
    assert reading.tail == 40  # type: ignore[attr-defined]  # read again, whole, next time
    assert "left for the next ingest" in sink.notes[0][2]
    settled, _ = read(cut, growing=True, settled=True)
    assert settled.skipped == [("f.jsonl", 2, TRUNCATED)]
    whole, _ = read([line(span(1)).encode()], growing=True)  # a whole value without a newline
    assert whole.span_ids == IDS[:1]


def test_a_file_cut_at_its_start_skips_only_its_first_line() -> None:
    cut = TWO_LINES[TWO_LINES.index(b"traceId") + 3 :].splitlines(keepends=True)  # "ceId"…
    sink, _ = read(cut)
    assert sink.span_ids == IDS[1:]
    assert sink.skipped[0][1] == 1 and "starts in the middle of a line" in sink.skipped[0][2]


def test_a_stream_that_breaks_ends_the_source_with_one_problem() -> None:
    def broken() -> Iterator[bytes]:
        yield TWO_LINES.splitlines(keepends=True)[0]
        raise EOFError("Compressed file ended before the end-of-stream marker was reached")

    sink = Collected()
    reading = read_lines(broken(), "f.jsonl.gz", sink)
    assert sink.span_ids == IDS[:1] and reading.broken
    [(_, number, reason)] = sink.skipped
    assert number == 2 and reason.startswith("cannot read further, truncated or corrupt file?")
