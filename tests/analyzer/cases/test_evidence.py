"""Evidence trees (cases/evidence.py): groups, shorthands, document leaves, their parser and errors."""

from __future__ import annotations

import pytest

from ragfunnel.analyzer.cases import (
    AllOf,
    AnyOf,
    Case,
    EvidenceError,
    Leaf,
    Quote,
    Span,
    evidence_to_data,
    parse_evidence,
)
from tests.support.case_files import QUOTE, SPAN


def test_nested_groups_and_shorthands() -> None:
    tree = parse_evidence({"all_of": ["a", {"any_of": ["b", {"all_of": ["c", "d"]}]}]})
    assert tree == AllOf((Leaf("a"), AnyOf((Leaf("b"), AllOf((Leaf("c"), Leaf("d")))))))
    assert parse_evidence(["a", "b"]) == AllOf((Leaf("a"), Leaf("b")))
    assert parse_evidence("a") == Leaf("a")
    assert evidence_to_data(tree) == {"all_of": ["a", {"any_of": ["b", {"all_of": ["c", "d"]}]}]}


def test_evidence_ids_are_distinct_in_order() -> None:
    case = Case("x", "q?", parse_evidence({"all_of": ["b", "a", {"any_of": ["a", "c"]}]}))
    assert case.evidence_ids == ("b", "a", "c")


@pytest.mark.parametrize(
    ("evidence", "message"),
    [
        ({"all_of": []}, "evidence.all_of: empty group"),
        ({"alll_of": ["a"]}, "did you mean 'all_of'"),
        ({"all_of": ["a"], "any_of": ["b"]}, "exactly one key"),
        ({"any_of": "a"}, "evidence.any_of: expected a list"),
        ({"all_of": ["a", None]}, "evidence.all_of[1]"),
        ({"all_of": ["a", ""]}, "empty chunk id"),
    ],
)
def test_bad_evidence_names_the_part(evidence: object, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        parse_evidence(evidence)


def test_a_quote_a_span_and_chunk_ids_mix_in_groups() -> None:
    tree = parse_evidence({"any_of": [QUOTE, {"all_of": ["faq#3", SPAN]}]})
    assert tree == AnyOf(
        (
            Quote("travel-policy-2025", "The hotel allowance is 120 EUR per night"),
            AllOf((Leaf("faq#3"), Span("travel-policy-2025", 1520, 1575))),
        )
    )
    assert evidence_to_data(tree) == {"any_of": [QUOTE, {"all_of": ["faq#3", SPAN]}]}


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"document": "d"}, "a document leaf is {document, quote} or {document, start, end}"),
        ({"document": "d", "quote": " "}, "evidence.quote: expected a non-empty string"),
        ({"document": "", "quote": "x"}, "evidence.document: expected a non-empty document id"),
        ({"document": "d", "start": 5, "end": 5}, "end (5) must be greater than start (5)"),
        ({"document": "d", "start": -1, "end": 5}, "evidence.start: expected a character offset"),
        ({"document": "d", "start": "a", "end": 5}, "evidence.start: expected a character offset"),
        ({"document": "d", "quote": "x", "page": 2}, "unknown key(s) page"),
    ],
)
def test_a_malformed_document_leaf_is_named(data: dict[str, object], message: str) -> None:
    with pytest.raises(EvidenceError, match=None) as caught:
        parse_evidence(data)
    assert message in str(caught.value)
