"""``AnswerPages``: ``read_answers`` a page of traces at a time (issue 35, bounded memory)."""

from __future__ import annotations

import polars as pl
import pytest

from ragfunnel.analyzer.judges.answers import AnswerPages, read_answers
from ragfunnel.analyzer.store import Store
from tests.support.judge_pipeline import record_many


def test_the_pages_one_after_the_other_are_read_answers_frame(store: Store) -> None:
    record_many(store, 30)
    whole = read_answers(store, modes=("pipeline", "oracle"))
    pages = AnswerPages(store, modes=("pipeline", "oracle"), traces_at_once=7)
    assert pages.total == 30
    frames = list(pages)
    assert [f.height for f in frames] == [7, 7, 7, 7, 2]
    assert pl.concat(frames).equals(whole)
    assert list(pages) and pl.concat(list(pages)).equals(whole)  # read again from the start
    other_run = AnswerPages(store, runs=["no-such-run"], traces_at_once=7)
    assert other_run.total == 30 and sum(f.height for f in other_run) == 0
    with pytest.raises(ValueError, match="traces_at_once must be 1 or more"):
        AnswerPages(store, traces_at_once=0)


def test_an_empty_store_has_no_page(store: Store) -> None:
    pages = AnswerPages(store)
    assert pages.total == 0 and list(pages) == []
