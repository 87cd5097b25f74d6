"""Cases as columns (cases/case_columns.py): the root kinds, the builder, cases back as values."""

from __future__ import annotations

import polars as pl

from ragfunnel.analyzer.cases import AllOf, AnyOf, Case, Leaf, Quote, Span
from ragfunnel.analyzer.cases.case_columns import ColumnBuilder, root_kind, string_lists


def test_the_root_kind_of_each_shape_of_evidence() -> None:
    assert root_kind(None) is None
    assert root_kind(Leaf("a")) == root_kind(Quote("doc", "q")) == root_kind(Span("doc", 0, 9))
    assert root_kind(AllOf((Leaf("a"), Leaf("b")))) == "all"
    assert root_kind(AnyOf((Leaf("a"), Quote("doc", "q")))) == "any"
    assert root_kind(AllOf((Leaf("a"), AnyOf((Leaf("b"), Leaf("c")))))) == "nested"
    assert root_kind(AnyOf((Leaf("a"), Leaf("a")))) == "nested"  # an id named twice


def test_records_and_cases_come_back_as_the_same_values() -> None:
    builder = ColumnBuilder("cases.jsonl")
    builder.add_record({"id": "q1", "question": "Hotel?", "evidence": ["a", "b"]}, 1)
    builder.add_record(
        {"id": "q2", "question": "Taxi?", "evidence": {"any_of": ["a", {"all_of": ["b", "c"]}]},
         "facts": ["22 Uhr"], "tags": ["travel"]}, 2,
    )  # fmt: skip
    builder.add_case(Case("q3", "Quote?", Quote("policy", "120 EUR"), reference="120 EUR"), 3)
    builder.add_record({"id": "q4", "question": "Refund?", "answerable": False}, None)
    assert len(builder) == 4
    columns = builder.build()
    assert columns is not None and not builder.problems
    assert columns.frame.get_column("root_kind").to_list() == ["all", "nested", "leaf", None]
    assert set(columns.trees) == {1} and columns.extras == {1: {"tags": ["travel"]}}
    q1, q2, q3, q4 = columns.cases()
    assert q1 == Case("q1", "Hotel?", AllOf((Leaf("a"), Leaf("b"))), source="cases.jsonl:1")
    assert q2.evidence == AnyOf((Leaf("a"), AllOf((Leaf("b"), Leaf("c")))))
    assert (q2.facts, dict(q2.extra)) == (("22 Uhr",), {"tags": ["travel"]})
    assert q3.evidence == Quote("policy", "120 EUR") and q3.reference == "120 EUR"
    assert (q4.answerable, q4.evidence, q4.source) == (False, None, "cases.jsonl")


def test_a_bad_record_or_a_repeated_id_builds_nothing() -> None:
    bad = ColumnBuilder("c.jsonl")
    bad.add_record({"id": "q1", "question": "Q?", "evidence": {"all_of": []}}, 1)
    assert bad.build() is None
    assert [p.line for p in bad.problems] == [1] and "empty group" in bad.problems[0].message
    twice = ColumnBuilder("c.jsonl")
    twice.add_records([])
    for line in (1, 2):
        twice.add_record({"id": "q1", "question": "Q?", "evidence": "a"}, line)
    assert not twice.problems and twice.build() is None  # the reference path words it


def test_string_lists_from_offsets_with_null_rows() -> None:
    series = string_lists("items", [0, 2, 2, 3], ["a", "b", "c"], pl.Series([False, True, False]))
    assert series.name == "items"
    assert series.to_list() == [["a", "b"], None, ["c"]]
    assert string_lists("x", [0, 0], []).to_list() == [[]]
