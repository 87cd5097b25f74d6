"""A file still being written loses no line: ingest stops at its last complete line.

Issue 19, Why 2: the reader met the end mid-line, skipped the fragment as truncated, read the
rest of the line when it arrived as invalid JSON, and the next ingest started after both.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from ragfunnel.analyzer.ingest import ingest_paths
from ragfunnel.analyzer.store import Store
from tests.support.otlp_json import count, line, span

pytestmark = pytest.mark.usefixtures("converter")


def test_a_line_still_being_written_is_left_for_the_next_ingest(
    store: Store, tmp_path: Path
) -> None:
    path = tmp_path / "spans.jsonl"
    second = line(span(3), span(4)) + "\n"
    path.write_text(line(span(1), span(2)) + "\n" + second[:40])
    first = ingest_paths(store, [path])
    assert first.skipped == [] and count(store) == 2
    assert [(n.line, "no newline yet" in n.reason) for n in first.notes] == [(2, True)]
    with path.open("a") as out:
        out.write(second[40:] + line(span(5)) + "\n")
    later = ingest_paths(store, [path])
    assert later.skipped == [] and (later.read, later.inserted) == (3, 3)
    assert count(store) == 5


def test_a_whole_last_value_without_a_newline_is_read(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "download.json"
    path.write_text(line(span(1)))  # as a saved download ends: no newline
    assert ingest_paths(store, [path]).inserted == 1


def test_ingesting_while_a_writer_appends_in_pieces_loses_no_line(
    store: Store, tmp_path: Path
) -> None:
    path = tmp_path / "spans.jsonl"
    path.write_text("")
    ingest_paths(store, [path])  # the store is prepared before the writer starts
    lines = [line(span(n, trace=n + 1)) + "\n" for n in range(1, 201)]
    done = threading.Event()

    def write() -> None:
        with path.open("a") as out:
            for text in lines:
                # Each line in two writes, as a buffered writer flushing mid-line does.
                out.write(text[:30])
                out.flush()
                time.sleep(0.005)
                out.write(text[30:])
                out.flush()
                time.sleep(0.005)
        done.set()

    writer = threading.Thread(target=write)
    writer.start()
    problems = []
    ingests = 0
    while not done.is_set() or ingests == 0:
        problems += ingest_paths(store, [path]).skipped
        ingests += 1
    writer.join()
    problems += ingest_paths(store, [path]).skipped
    assert problems == []
    assert count(store) == len(lines)
    assert ingests > 1
