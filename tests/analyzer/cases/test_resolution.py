"""Resolution (cases/resolution.py): a quote or a span to the chunk ids of one index version."""

from __future__ import annotations

from ragfunnel.analyzer.cases import (
    AllOf,
    AnyOf,
    DocumentChunks,
    Leaf,
    Quote,
    Resolver,
    Span,
)

POLICY = DocumentChunks(
    ("p#0", "p#1", "p#2"),
    (
        "Travel policy.  The hotel allowance is\n120 EUR",
        "per night in every city. Taxis are refunded",
        "up to 40 EUR. Meals are paid per diem.",
    ),
    (0, 45, 89),
    (45, 89, 127),
)


def _resolve(leaf: Quote | Span, chunks: DocumentChunks = POLICY) -> tuple[object, tuple[str, ...]]:
    found = Resolver({"p": chunks}, "v2").resolve(leaf)
    return found.evidence, found.stale


def test_a_quote_in_one_chunk_is_that_chunk_whitespace_and_case_folded() -> None:
    assert _resolve(Quote("p", "TAXIS   are refunded")) == (Leaf("p#1"), ())


def test_a_quote_across_a_chunk_border_needs_both_chunks() -> None:
    assert _resolve(Quote("p", "allowance is 120 EUR per night")) == (
        AllOf((Leaf("p#0"), Leaf("p#1"))),
        (),
    )
    three = Quote("p", "120 EUR per night in every city. Taxis are refunded up to 40")
    assert _resolve(three)[0] == AllOf((Leaf("p#0"), Leaf("p#1"), Leaf("p#2")))


def test_overlapping_chunks_are_alternatives_and_overlap_is_not_counted_twice() -> None:
    overlapping = DocumentChunks(
        ("o#0", "o#1"),
        ("The hotel allowance is 120 EUR per night in every", "120 EUR per night in every city."),
    )
    assert _resolve(Quote("p", "120 EUR per night"), overlapping)[0] == AnyOf(
        (Leaf("o#0"), Leaf("o#1"))
    )
    # Across the border: the repeated words are one text, not two.
    assert _resolve(Quote("p", "allowance is 120 EUR per night in every city"), overlapping)[
        0
    ] == AllOf((Leaf("o#0"), Leaf("o#1")))


def test_a_span_is_the_chunks_its_range_overlaps() -> None:
    assert _resolve(Span("p", 50, 60)) == (Leaf("p#1"), ())
    assert _resolve(Span("p", 40, 100))[0] == AllOf((Leaf("p#0"), Leaf("p#1"), Leaf("p#2")))
    assert _resolve(Span("p", 500, 600))[1] == (
        "span 500-600 overlaps no chunk of document p in index v2",
    )


def test_what_cannot_be_resolved_keeps_its_label_and_says_why() -> None:
    assert _resolve(Quote("p", "Business class")) == (
        Leaf('p "Business class"'),
        ('quote "Business class" found in no chunk of document p in index v2',),
    )
    # Chunks recorded without text (or offsets): nothing wrong with the label, nothing to
    # look in. Unreadable, not stale.
    bare = Resolver({"p": DocumentChunks(("p#0",))}, "v2")
    quote, span = bare.resolve(Quote("p", "hotel")), bare.resolve(Span("p", 1, 2))
    assert (quote.evidence, quote.stale) == (Leaf('p "hotel"'), ())
    assert quote.unreadable == ("chunk text of document p in index v2 (to find a quote in)",)
    assert (span.evidence, span.stale) == (Leaf("p[1:2]"), ())
    assert span.unreadable == ("chunk offsets of document p in index v2 (to place a span in)",)
    missing = Resolver({}, "v2").resolve(AllOf((Quote("hr", "leave"), Leaf("x"))))
    assert missing.evidence == AllOf((Leaf('hr "leave"'), Leaf("x")))
    assert (missing.stale, missing.missing) == ((), ("hr",))
