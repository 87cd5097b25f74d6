"""One case (cases/case.py): its question hash is the span contract's, its evidence ids distinct."""

from __future__ import annotations

from ragfunnel.analyzer.cases import Case, Quote, parse_evidence
from ragfunnel.instrumentation.contract import question_hash


def test_the_question_hash_is_the_one_traces_carry() -> None:
    case = Case("q-1", "  Which firmware versions need a RESET? ")
    assert case.question_hash == question_hash("Which firmware versions need a reset?")
    assert case.question_hash != Case("q-2", "Which firmware needs a reset?").question_hash


def test_evidence_ids_in_order_once_each_and_none_without_evidence() -> None:
    evidence = parse_evidence({"any_of": ["b", {"all_of": ["a", "b"]}, "c"]})
    assert Case("q", "Q?", evidence).evidence_ids == ("b", "a", "c")
    assert Case("q", "Q?", None, answerable=False).evidence_ids == ()
    quote = Quote("policy", "120 EUR")
    assert Case("q", "Q?", quote).evidence_ids == (quote.id,)
