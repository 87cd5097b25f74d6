"""``ingest/files.py``: which files a PATH means, and how a folder of them is ingested.

Files, folders (recursively, hidden ones left out), quoted globs, each file once; a PATH that
matches nothing stops the ingest before anything is read; files under a folder that are not
trace files are passed over, named ones are not; ``strict`` stops after the first problem;
``rescan`` reads again what the ingest log would pass over.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ragfunnel.analyzer.ingest import IngestError, ingest_paths
from ragfunnel.analyzer.ingest.files import expand_paths
from ragfunnel.analyzer.store import Store
from tests.support.otlp_json import count, line, span


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "traces"
    (root / "day2").mkdir(parents=True)
    (root / ".cache").mkdir()
    (root / "b.jsonl").write_text(line(span(2)) + "\n")
    (root / "a.jsonl").write_text(line(span(1)) + "\n")
    (root / "day2" / "c.json").write_text(line(span(3)) + "\n")
    (root / ".hidden.jsonl").write_text(line(span(4)) + "\n")
    (root / ".cache" / "d.jsonl").write_text(line(span(5)) + "\n")
    (root / "notes.txt").write_text("not a trace file\n")
    return root


def test_a_folder_means_its_visible_files_sorted(folder: Path) -> None:
    files, missing = expand_paths([folder])
    assert [f.relative_to(folder).as_posix() for f in files] == [
        "a.jsonl", "b.jsonl", "day2/c.json", "notes.txt",
    ]  # fmt: skip
    assert missing == []


def test_globs_files_and_repeats_each_file_once(folder: Path) -> None:
    files, missing = expand_paths(
        p for p in [str(folder / "*.jsonl"), folder / "a.jsonl", str(folder / "**" / "c.json")]
    )
    assert [f.name for f in files] == ["a.jsonl", "b.jsonl", "c.json"]
    assert missing == []


def test_paths_that_match_nothing_are_returned(folder: Path, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    files, missing = expand_paths([folder / "nope.jsonl", str(folder / "*.parquet"), empty])
    assert files == []
    assert missing == [str(folder / "nope.jsonl"), str(folder / "*.parquet")]  # a folder is fine


def test_a_path_matching_nothing_stops_the_ingest_before_it_reads(
    store: Store, folder: Path
) -> None:
    with pytest.raises(
        IngestError, match=r"no such file, folder or match: .*nope\.jsonl"
    ) as caught:
        ingest_paths(store, [folder, folder / "nope.jsonl"])
    assert caught.value.argument == "paths"
    assert count(store) == 0


def test_a_folders_other_files_are_passed_over_a_named_one_is_not(
    store: Store, folder: Path
) -> None:
    summary = ingest_paths(store, [folder])
    assert (summary.inserted, summary.files, summary.skipped) == (3, 3, [])
    named = ingest_paths(store, [folder / "notes.txt"])
    assert [s.file for s in named.skipped] == [str(folder / "notes.txt")]


def test_strict_stops_after_the_first_file_with_a_problem(store: Store, tmp_path: Path) -> None:
    (tmp_path / "1.jsonl").write_text(line(span(1)) + "\n{broken\n")
    (tmp_path / "2.jsonl").write_text(line(span(2)) + "\n")
    files = [tmp_path / "1.jsonl", tmp_path / "2.jsonl"]
    summary = ingest_paths(store, files, strict=True)
    assert summary.inserted == 1 and len(summary.skipped) == 1  # what was read is kept
    assert ingest_paths(store, files).inserted == 1  # without strict: the next file too


def test_rescan_reads_again_what_the_log_passes_over(store: Store, folder: Path) -> None:
    ingest_paths(store, [folder])
    again = ingest_paths(store, [folder])
    assert (again.read, again.unchanged) == (0, 3)
    rescanned = ingest_paths(store, [folder], rescan=True)
    assert (rescanned.read, rescanned.duplicates, rescanned.inserted) == (3, 3, 0)
