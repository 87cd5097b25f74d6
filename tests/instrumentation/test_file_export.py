"""``file:PATH`` under a full disk: no corrupt line, failures counted and logged once.

Issue 19, Why 4: the half-written line of a failed batch was glued to the next batch (spans the
app counted as exported became unreadable), each failed batch logged a full traceback and
nothing was counted as an internal error. A file-size limit (``RLIMIT_FSIZE``, with ``SIGXFSZ``
ignored so that writes fail with ``EFBIG``, as on a full disk) stands in for the full disk, in a
child process so that the limit binds nothing else.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import ragfunnel
from ragfunnel.instrumentation import safety
from ragfunnel.instrumentation.file_export import JsonLinesSpanExporter, encode_line
from ragfunnel.testing import capture_spans

CHILD = r"""
import json, os, resource, signal, sys
import ragfunnel

path, room = sys.argv[1], int(sys.argv[2])
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
ragfunnel.configure(exporter=f"file:{path}", run_id="disk", pipeline={})

@ragfunnel.retrieve
def search(query: str) -> list[tuple[str, float]]:
    return [(f"doc-{i}-{query}", 1.0 / (i + 1)) for i in range(20)]

def batch(start: int, n: int) -> None:
    for i in range(start, start + n):
        search(f"q{i}")
    assert ragfunnel.flush(10_000)

batch(0, 30)                                   # fits
soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
resource.setrlimit(resource.RLIMIT_FSIZE, (os.path.getsize(path) + room, hard))
for k in range(6):                             # every one of these batches hits the limit
    batch(1000 + 100 * k, 100)
resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))  # the disk has room again
batch(5000, 30)
stats = ragfunnel.export_stats()
print(json.dumps({"exported": stats.exported, "failed": stats.failed, "queued": stats.queued,
                  "errors": ragfunnel.internal_error_counts()}))
"""


def _spans_in(path: Path) -> int:
    total = 0
    for number, line in enumerate(path.read_bytes().split(b"\n"), 1):
        if not line:
            continue
        try:
            request = json.loads(line)
        except ValueError:
            pytest.fail(f"{path}:{number}: not a complete JSON line: {line[:80]!r}…")
        total += sum(
            len(scope["spans"]) for rs in request["resourceSpans"] for scope in rs["scopeSpans"]
        )
    return total


def test_a_full_disk_never_corrupts_the_file(tmp_path: Path) -> None:
    path = tmp_path / "spans.jsonl"
    # Room for a fraction of one span (about 1 kB): each line's write stops part-way.
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(path), "500"],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    stats = json.loads(done.stdout.strip().splitlines()[-1])
    assert stats["queued"] == 30 + 600 + 30
    assert (stats["exported"], stats["failed"]) == (60, 600), stats
    # Each batch of 100 is at least 4 lines (at most SPANS_PER_LINE spans each), each failing.
    assert set(stats["errors"]) == {"file exporter"}
    assert stats["errors"]["file exporter"] >= 6 * 4
    # Every line is whole, and holds exactly the spans counted as exported.
    assert _spans_in(path) == stats["exported"]
    # Logged once, without a traceback.
    assert done.stderr.count("cannot write spans to") == 1, done.stderr
    assert "File too large" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_batch_never_continues_a_cut_line(tmp_path: Path) -> None:
    path = tmp_path / "spans.jsonl"
    path.write_bytes(b'{"resourceSpans":[]}\n{"resourceSp')  # a writer killed mid-line
    with capture_spans() as spans:

        @ragfunnel.retrieve
        def search(query: str) -> list[str]:
            return ["a", "b"]

        search("q")
    exporter = JsonLinesSpanExporter(path)
    try:
        assert exporter.export(spans.spans).name == "SUCCESS"
        assert exporter.export(spans.spans).name == "SUCCESS"
    finally:
        exporter.shutdown()
    lines = path.read_bytes().split(b"\n")
    assert lines[1] == b'{"resourceSp'  # the fragment stays a line of its own
    line = encode_line(spans.spans)
    assert line is not None
    assert lines[2] + b"\n" == line and lines[3] + b"\n" == line and lines[4] == b""


def test_the_format_is_the_sdk_file_exporters(tmp_path: Path) -> None:
    import io

    from opentelemetry.exporter.otlp.json.file import FileSpanExporter

    with capture_spans() as spans:

        @ragfunnel.retrieve
        def search(query: str) -> list[tuple[str, float]]:
            return [("a", 0.5), ("b", 0.25)]

        search("q")
    theirs = io.StringIO()
    FileSpanExporter(stream=theirs).export(spans.spans)
    assert encode_line(spans.spans) == theirs.getvalue().encode()


def test_export_after_shutdown_fails_quietly(tmp_path: Path) -> None:
    exporter = JsonLinesSpanExporter(tmp_path / "s.jsonl")
    exporter.shutdown()
    exporter.shutdown()
    with capture_spans() as spans:

        @ragfunnel.cut
        def gate(documents: list[str]) -> list[str]:
            return documents[:1]

        gate(["a", "b"])
    assert exporter.export(spans.spans).name == "FAILURE"
    assert safety.internal_error_counts() == {}
