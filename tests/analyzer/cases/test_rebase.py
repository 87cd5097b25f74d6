"""Rebase (cases/rebase.py): chunk-id evidence rewritten as document leaves, and what could not be."""

from __future__ import annotations

from ragfunnel.analyzer.cases import (
    AllOf,
    AnyOf,
    Case,
    ChunkSource,
    Leaf,
    Quote,
    Span,
    rebase_cases,
)

OLD = {
    "p#0": ChunkSource("policy", "The hotel allowance\n is 120 EUR."),
    "p#1": ChunkSource("policy", None, 40, 80),
    "p#2": ChunkSource("policy"),
}


def test_rebase_rewrites_chunk_ids_and_says_what_it_could_not() -> None:
    cases = [
        Case("q1", "Hotel?", AllOf((Leaf("p#0"), AnyOf((Leaf("p#1"), Quote("faq", "x")))))),
        Case("q2", "Gone?", AnyOf((Leaf("p#2"), Leaf("zz#9")))),
        Case("q3", "Unanswerable?", None, answerable=False),
    ]
    done = rebase_cases(cases, OLD, "v1")
    assert done.cases[0].evidence == AllOf(
        (
            Quote("policy", "The hotel allowance is 120 EUR."),
            AnyOf((Span("policy", 40, 80), Quote("faq", "x"))),
        )
    )
    assert done.cases[1].evidence == cases[1].evidence
    assert done.cases[2] == cases[2]
    assert done.rewritten == 2
    assert [str(p) for p in done.problems] == [
        "case 'q2': p#2: index v1 recorded neither its text nor its offsets (trace the ingest "
        "with capture_content=True, or pass --chunks)",
        "case 'q2': zz#9: not a chunk of index v1",
    ]


def test_blank_text_falls_back_to_offsets_and_an_empty_range_is_no_span() -> None:
    chunks = {
        "a": ChunkSource("doc", "  \n ", 0, 30),  # blank text: its offsets
        "b": ChunkSource("doc", None, 30, 30),  # an empty range: neither
    }
    cases = (c for c in [Case("q1", "Q?", AllOf((Leaf("a"), Leaf("b"))))])  # a generator
    done = rebase_cases(cases, chunks, "")
    assert done.cases[0].evidence == AllOf((Span("doc", 0, 30), Leaf("b")))
    assert done.rewritten == 1
    assert [p.reason.split(" (")[0] for p in done.problems] == [
        "the index recorded neither its text nor its offsets"
    ]
