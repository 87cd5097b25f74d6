"""``ingest/result.py``: what one ingest did, merged over files and told in one line."""

from __future__ import annotations

from ragfunnel.analyzer.ingest.result import IngestSummary, Skip


def test_a_skip_names_its_file_and_line() -> None:
    assert str(Skip("spans.jsonl", 12, "traceId 'x' is not hexadecimal")) == (
        "spans.jsonl:12: traceId 'x' is not hexadecimal"
    )


def test_summaries_merge_counts_and_messages() -> None:
    total = IngestSummary(read=3, inserted=2, duplicates=1, files=1)
    total.merge(
        IngestSummary(
            read=5, inserted=5, skipped=[Skip("b", 1, "x")], notes=[Skip("b", 2, "cut")],
            files=2, unchanged=1,
        )
    )  # fmt: skip
    assert (total.read, total.inserted, total.duplicates) == (8, 7, 1)
    assert (total.files, total.unchanged) == (3, 1)
    assert total.skipped == [Skip("b", 1, "x")] and total.notes == [Skip("b", 2, "cut")]


def test_the_one_line_counts_in_words_singular_and_plural() -> None:
    assert IngestSummary().describe() == "0 spans read: 0 inserted, 0 duplicates"
    one = IngestSummary(read=1, inserted=0, duplicates=1, unchanged=1)
    assert one.describe() == (
        "1 span read: 0 inserted, 1 duplicate; 1 file was already ingested and unchanged"
    )
    many = IngestSummary(
        read=1200, inserted=1000, duplicates=200,
        skipped=[Skip("a", 1, "x"), Skip("a", 2, "y"), Skip("b", 1, "z")],
        notes=[Skip("a", 3, "cut")], unchanged=2,
    )  # fmt: skip
    assert many.describe() == (
        "1,200 spans read: 1,000 inserted, 200 duplicates; 3 problems skipped in 2 files; "
        "1 repaired; 2 files were already ingested and unchanged"
    )
    assert (
        IngestSummary(skipped=[Skip("a", 1, "x")])
        .describe()
        .endswith("; 1 problem skipped in 1 file")
    )
