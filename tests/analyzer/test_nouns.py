"""Counted nouns agree in number, in Python and column-wise (``ragfunnel.analyzer.nouns``)."""

from __future__ import annotations

import polars as pl

from ragfunnel.analyzer.nouns import count, count_expr, plural
from ragfunnel.analyzer.report import wording


def test_one_is_singular_every_other_count_plural() -> None:
    assert [count(n, "answer") for n in (0, 1, 2, 12_000)] == [
        "0 answers", "1 answer", "2 answers", "12,000 answers"
    ]  # fmt: skip
    assert count(1, "retry", "retries") == "1 retry" and count(3, "retry", "retries") == (
        "3 retries"
    )
    assert plural(2, "was") == "were" and plural(1, "has") == "has" and plural(4, "has") == "have"


def test_the_column_form_is_the_same_rule() -> None:
    frame = pl.DataFrame({"n": [0, 1, 2, 1_000]})
    texts = frame.select(count_expr(pl.col("n"), "candidate")).to_series().to_list()
    assert texts == ["0 candidates", "1 candidate", "2 candidates", "1000 candidates"]
    many = frame.select(count_expr(pl.col("n"), "retry", "retries")).to_series().to_list()
    assert many[:2] == ["0 retries", "1 retry"]


def test_the_report_uses_the_same_helper() -> None:
    assert wording.count is count and wording.plural is plural
