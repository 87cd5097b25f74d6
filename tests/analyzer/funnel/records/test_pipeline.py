"""The batch pipeline (``records/pipeline.py``): its steps in order, the item rows guarded before
the step that builds them, and the answers normalised apart from the records."""

from __future__ import annotations

import polars as pl
import pytest

from ragfunnel.analyzer.funnel.records.answer_checks import normalize_texts
from ragfunnel.analyzer.funnel.records.pipeline import STEPS, Batch, with_normalized_answers


def test_the_steps_run_in_the_documented_order() -> None:
    # docs/architecture.md, "Inside the funnel", reads this list top to bottom.
    assert [step.name for step in STEPS] == [
        "prompt and k",
        "error messages",
        "oracle answers and low-confidence tokens",
        "self-consistency samples",
        "conflicting sources",
        "answer verdicts (facts check)",
        "judges' verdicts",
        "mode (pipeline or oracle run)",
        "index truth",
        "survival codes",
        "item scores",
        "item reasons",
        "first failure",
        "stale cases",
        "oracle runs' verdicts",
        "retriever ranks",
        "evidence lists",
        "retriever names",
        "metrics",
        "record columns",
    ]


def test_a_step_that_reads_item_rows_before_they_exist_fails_loudly() -> None:
    instances = pl.DataFrame({"inst": [0]})
    with pytest.raises(RuntimeError, match="before the step that builds them"):
        Batch(instances).items
    names = [step.name for step in STEPS]
    reads_items = ("first failure", "retriever ranks", "evidence lists")
    assert all(names.index(name) > names.index("item reasons") for name in reads_items)
    # From "item reasons" on the rows are there.
    rows = pl.DataFrame({"inst": [0], "j": [0]})
    assert Batch(instances, rows).items is rows


def test_answers_are_normalised_in_a_column_of_their_own() -> None:
    raw = pl.DataFrame({"gen_answer": ["Firmware 4.2.0 — FÜR alle!", None], "other": [1, 2]})
    out = with_normalized_answers(raw)
    assert out.columns == ["gen_answer", "other", "gen_answer_norm"]
    expected = normalize_texts(raw.get_column("gen_answer")).to_list()
    assert out.get_column("gen_answer_norm").to_list() == expected
    assert expected[0] != raw.item(0, "gen_answer") and expected[1] is None
