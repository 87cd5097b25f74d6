"""Reading trace files: decompression, format detection by content, and per-line recovery.

Formats, told apart by what the bytes say, never by the file name:

- OTLP JSON lines: one ``{"resourceSpans": [...]}`` per line, as the Python SDK's JSON file
  exporter and the collector's fileexporter write them; Jaeger API v3 answers
  (``{"result": {"resourceSpans": [...]}}``) one per line are read the same way.
- A JSON document that spans several lines (pretty-printed), or several documents in a row:
  Jaeger UI downloads (``{"data": [trace, ...]}``, a bare trace, or a list of traces), Jaeger
  API v3 answers, or OTLP JSON.
- gzip or zstd around either, recognised by their magic bytes.

Each line is decoded straight into typed structs; a line that does not fit is read again slowly
to keep its good spans and name its bad ones (file:line: reason). A reader never raises on bad
input: it reports and goes on.
"""

from __future__ import annotations

import gzip
import io
import re
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Protocol, cast

import msgspec

from ragfunnel.analyzer.ingest.deep_lines import read_deep_line
from ragfunnel.analyzer.ingest.otlp_structs import ResourceSpans, decode_envelope
from ragfunnel.analyzer.ingest.salvage import dispatch, salvage

__all__ = [
    "Reading",
    "Sink",
    "open_trace_file",
    "opens_document",
    "read_document",
    "read_lines",
    "sniff",
]

GZIP_MAGIC = b"\x1f\x8b"
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
_BUFFER = 4 << 20
MAX_DOCUMENT_BYTES = 256 << 20
"""A multi-line (pretty-printed) document is read whole: past this size it is refused, with a
message. Reading an OTLP one takes about 2.5 times its size in memory above the ~530 MiB any
ingest takes (774 MiB peak for a 110 MB pretty-printed document,
tests/analyzer/ingest/test_document_memory.py), so this bounds an ingest near 1.2 GB. A Jaeger
download is decoded generically first, which takes several times more."""
SETTLED_AFTER_S = 60
"""A plain file unchanged for longer than this is written no more: a cut last line is truncated."""
TRUNCATED = (
    f"the last line is cut short (no newline, not whole JSON) and the file has not changed for "
    f"over {SETTLED_AFTER_S} s: truncated by a writer that stopped mid-line? Its spans are not "
    "read"
)
_TRAILING = re.compile(r"trailing characters \(byte (\d+)\)")


class Sink(Protocol):
    """Where a reader delivers spans and problems (the loader)."""

    def take_line(self, line: bytes, source: str, number: int) -> bool:
        """Take a whole undecoded line, or return False to have it decoded and added."""

    def add(self, resource_spans: list[ResourceSpans], source: str, line: int) -> None:
        """Take the spans of one decoded document."""

    def skip(self, source: str, line: int, reason: str) -> None:
        """Record something that could not be read."""

    def note(self, source: str, line: int, reason: str) -> None:
        """Record a repair that kept the data."""


@contextmanager
def open_trace_file(path: Path) -> Iterator[tuple[IO[bytes], Callable[[], int], bool]]:
    """Open ``path`` for reading, undoing gzip or zstd.

    Yields the stream, a function giving how many bytes *of the file* have been consumed (for
    progress bars), and whether the file was compressed.
    """
    # Lines are often megabytes (a batch of 512 spans): with the default buffer, reading a
    # plain file costs a third of converting it natively.
    with path.open("rb", buffering=_BUFFER) as raw:
        magic = raw.read(4)
        raw.seek(0)
        if magic[:2] == GZIP_MAGIC:
            with gzip.GzipFile(fileobj=raw) as unzipped:
                yield cast("IO[bytes]", unzipped), raw.tell, True
        elif magic == ZSTD_MAGIC:
            import zstandard

            reader = zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True)
            with io.BufferedReader(reader, buffer_size=1 << 20) as unzstd:
                yield unzstd, raw.tell, True
        else:
            yield raw, raw.tell, False


def sniff(head: bytes) -> bool:
    """Whether a file starting with ``head`` (decompressed) may hold JSON traces.

    A file cut at its start (``tail -c``, a rotated copy) begins in the middle of a line: it
    counts when trace keys show in its head, so that its first line is reported, not the file
    passed over.
    """
    return head.lstrip()[:1] in (b"{", b"[") or starts_mid_line(head)


_TRACE_KEYS = (b'"traceId"', b'"spanId"', b'"resourceSpans"', b'"scopeSpans"', b'"traceID"')


def starts_mid_line(head: bytes) -> bool:
    """A head that is not the start of a JSON value but holds trace keys: a cut-off line."""
    return head.lstrip()[:1] not in (b"{", b"[") and any(key in head for key in _TRACE_KEYS)


@dataclass
class Reading:
    """How reading a source ended."""

    lines: int = 0
    """The number of the last line read."""
    tail: int = 0
    """Bytes of a last line without a newline (cut off: read it again next time)."""
    document: bool = False
    """The source was read as one or more multi-line documents, not as lines."""
    broken: bool = False
    """The stream itself failed (a cut or corrupt compressed file)."""


def read_lines(
    lines: Iterable[bytes],
    source: str,
    sink: Sink,
    *,
    first_line: int = 1,
    growing: bool = False,
    settled: bool = False,
) -> Reading:
    """Read OTLP JSON lines (or, if the first line opens a multi-line document, the document).

    Input errors are reported to ``sink``; a decompression error of the underlying stream
    (a cut gzip file) ends the source with one last problem, after everything before it.

    With ``growing`` (a plain file, which a writer may still be appending to), reading stops at
    the last complete line: a last line without its newline that is not a whole JSON value is
    left, with a note, for the next ingest to read whole (``Reading.tail`` says how long it
    was), and nothing the writer appends meanwhile is read this time. (A whole value without a
    newline, as a saved Jaeger download ends, is read.) With ``settled`` (the file has not
    changed for a while: no writer is writing it) that cut last line is a problem, not a note:
    truncated by a writer that died mid-line, it would otherwise never be read.
    """
    iterator = iter(lines)
    number = first_line - 1
    first = True
    reading = Reading(lines=number)
    while True:
        try:
            line = next(iterator)
        except StopIteration:
            return reading
        except Exception as exc:  # noqa: BLE001 - gzip, zlib and zstd each raise their own errors
            sink.skip(
                source, number + 1, f"cannot read further, truncated or corrupt file? ({exc})"
            )
            reading.broken = True
            return reading
        number += 1
        reading.lines = number
        reading.tail = 0 if line.endswith(b"\n") else len(line)
        if reading.tail and growing and not _whole_value(line):
            if settled:
                sink.skip(source, number, TRUNCATED)
            else:
                sink.note(
                    source,
                    number,
                    "the last line has no newline yet (a writer is still writing it?): left for "
                    "the next ingest, which reads it once it is whole",
                )
            return reading
        if first:
            if not line.strip():
                continue
            first = False
            if number == 1 and starts_mid_line(line[:4096]):
                sink.skip(
                    source,
                    number,
                    "the file starts in the middle of a line (cut with tail -c, or a rotated "
                    "copy?): that line skipped",
                )
                continue
            if opens_document(line):
                reading.document = True
                try:
                    # A stream's rest in one read: joining its lines held them all (millions
                    # of small objects for a pretty-printed document, several times its size).
                    read = getattr(iterator, "read", None)
                    rest = read() if read is not None else b"".join(iterator)
                except Exception as exc:  # noqa: BLE001 - as above
                    sink.skip(
                        source,
                        number,
                        f"cannot read the whole document, truncated or corrupt file? ({exc})",
                    )
                    reading.broken = True
                    return reading
                if len(line) + len(rest) > MAX_DOCUMENT_BYTES:
                    sink.skip(
                        source,
                        number,
                        f"a multi-line JSON document of {(len(line) + len(rest)) >> 20:,} MiB, "
                        f"over the {MAX_DOCUMENT_BYTES >> 20} MiB limit of one document: not read "
                        "(write OTLP JSON lines, one document per line, or split the export)",
                    )
                    return reading
                rest = line + rest  # one copy of the document alive while it is read
                read_document(rest, source, sink, first_line=number)
                return reading
        _read_line(line, source, number, sink)


_OPENER = re.compile(rb'(?:[\[{]\s*)+|\{\s*"[^"\\]*"\s*:\s*(?:[\[{]\s*)+')


def _whole_value(line: bytes) -> bool:
    """Whether ``line`` is one whole JSON value (a line cut short is not)."""
    stripped = line.strip()
    if not stripped:
        return True
    try:
        msgspec.json.decode(stripped, type=msgspec.Raw)  # checks it is JSON, builds nothing
    except msgspec.DecodeError:
        return False
    except RecursionError:  # read span by span, which names what is wrong
        return stripped[-1:] in (b"}", b"]")
    return True


def opens_document(line: bytes) -> bool:
    """A first line that opens a pretty-printed document: ``{``, ``[`` or ``{"key": [``.

    Anything else that is not a whole JSON value (``{`` and garbage, a cut line) is a bad
    line: it is reported, and the lines after it are read as lines.
    """
    stripped = line.strip()
    if stripped[-1:] not in (b"}", b"]"):
        return _OPENER.fullmatch(stripped) is not None
    try:
        msgspec.json.decode(stripped, type=msgspec.Raw)  # checks it is JSON, builds nothing
    except msgspec.DecodeError:
        return stripped in (b"{", b"[")
    except RecursionError:  # a whole line, read span by span (too deep to parse in one piece)
        return False
    return False


def _read_line(line: bytes, source: str, number: int, sink: Sink) -> None:
    if not line.strip() or sink.take_line(line, source, number):
        return
    try:
        envelope = decode_envelope(line)
    except RecursionError:  # nested too deep to decode in one piece: span by span
        read_deep_line(line, source, number, sink)
        return
    except msgspec.DecodeError:
        salvage(line, source, number, sink, last_line_unterminated=not line.endswith(b"\n"))
        return
    spans = envelope.resource_spans
    if spans is not None:
        sink.add(spans, source, number)
    else:
        salvage(line, source, number, sink, last_line_unterminated=False)


def read_document(data: bytes, source: str, sink: Sink, *, first_line: int = 1) -> None:
    """Read one or more JSON documents (pretty-printed or not) from ``data``."""
    start = 0
    line = first_line
    end = len(data)
    while True:
        while start < end and data[start : start + 1].isspace():
            if data[start : start + 1] == b"\n":
                line += 1
            start += 1
        if start >= end:
            return
        chunk = data[start:]
        if _read_otlp_document(chunk, source, line, sink):
            return
        try:
            obj = msgspec.json.decode(chunk)
        except RecursionError:  # nested too deep to decode in one piece: span by span
            read_deep_line(chunk, source, line, sink)
            return
        except msgspec.DecodeError as exc:
            found = _TRAILING.search(str(exc))
            if not found:
                salvage(chunk, source, line, sink, last_line_unterminated=not chunk.endswith(b"\n"))
                return
            # msgspec names the (1-based) byte where the next document begins.
            chunk = chunk[: int(found.group(1)) - 1]
            try:
                obj = msgspec.json.decode(chunk)
            except msgspec.DecodeError:
                salvage(data[start:], source, line, sink, last_line_unterminated=False)
                return
        try:
            dispatch(obj, chunk, source, line, sink)
        except RecursionError:  # a document nested too deep for the Jaeger mapping
            read_deep_line(chunk, source, line, sink)
        line += chunk.count(b"\n")
        start += len(chunk)


def _read_otlp_document(data: bytes, source: str, line: int, sink: Sink) -> bool:
    """Read ``data`` if it is exactly one well-formed OTLP document; False to read it otherwise.

    Decoded straight into typed structs, a pretty-printed OTLP document never becomes the
    generic tree of dicts and lists, which took about ten times the document's size.
    """
    try:
        envelope = decode_envelope(data)
    except (msgspec.DecodeError, RecursionError):  # several documents, a bad span, too deep
        return False
    if envelope.resource_spans is None:
        return False  # a Jaeger export or an error answer
    sink.add(envelope.resource_spans, source, line)
    return True
