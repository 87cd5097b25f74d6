"""CaseSet (cases/caseset.py): built from cases or loaded as columns, its checks and lookups."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from ragfunnel.analyzer.cases import (
    Case,
    CaseError,
    CaseSet,
    Leaf,
    load_cases,
)
from ragfunnel.analyzer.funnel.analysis import case_tables
from tests.support.case_files import mixed, plain


def test_caseset_of_checks_and_ambiguous_hashes() -> None:
    a = Case("a", "Same question?", Leaf("x"))
    b = Case("b", "same   QUESTION", Leaf("y"))
    cases = CaseSet.of([a, b])
    assert cases.ambiguous_hashes() == {a.question_hash}
    with pytest.raises(CaseError, match="duplicate id"):
        CaseSet.of([a, a])
    with pytest.raises(CaseError, match="required for an answerable case"):
        CaseSet.of([Case("c", "No evidence?")])


def test_loaded_and_built_sets_give_the_same_tables(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text("\n".join(json.dumps(case) for case in mixed()) + "\n")
    loaded = load_cases(path)
    built = CaseSet(tuple(loaded), loaded.source)
    assert case_tables(loaded)[0].equals(case_tables(built)[0])
    assert loaded.ambiguous_hashes() == built.ambiguous_hashes() == frozenset()
    assert loaded.question_hashes().equals(built.question_hashes())
    assert loaded.by_id("missing") is None and built.by_id("missing") is None
    assert loaded == built
    assert isinstance(loaded.columns.frame, pl.DataFrame)
    assert loaded.columns.frame.height == len(loaded) == len(built)


def test_case_set_of_a_generator_is_checked() -> None:
    cases = CaseSet.of(Case(f"c{i}", f"Q {i}?", Leaf("x")) for i in range(3))
    assert [c.id for c in cases] == ["c0", "c1", "c2"]
    assert case_tables(cases)[0].get_column("question_id").to_list() == ["c0", "c1", "c2"]


def test_many_lookups_in_a_loaded_set(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text("".join(json.dumps(plain(i)) + "\n" for i in range(50)))
    cases = load_cases(path)
    found = [cases.by_id(f"q-{i}") for i in range(49, -1, -1)]  # scans first, then the index
    assert [c.id for c in found if c is not None] == [f"q-{i}" for i in range(49, -1, -1)]
    assert cases.by_id("q-50") is None
    assert cases.ambiguous_hashes() is cases.ambiguous_hashes()  # computed once
