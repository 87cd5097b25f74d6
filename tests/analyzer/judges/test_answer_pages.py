"""``AnswerPages``: ``read_answers`` a page of traces at a time (issue 35, bounded memory)."""

from __future__ import annotations

import polars as pl
import pytest

from ragfunnel.analyzer.judges.answers import AnswerPages, read_answers
from ragfunnel.analyzer.store import Store
from tests.support.judge_pipeline import record_many

KEY = ["trace_id", "question_key", "mode"]


def test_the_pages_hold_read_answers_rows_their_traces_in_the_order_they_started(
    store: Store,
) -> None:
    # In start order, so that a page's spans lie close together in the store: pages of traces
    # in id order (random in time) each read the whole table's attributes.
    record_many(store, 30)
    whole = read_answers(store, modes=("pipeline", "oracle"))
    pages = AnswerPages(store, modes=("pipeline", "oracle"), traces_at_once=7)
    assert pages.total == 30
    frames = list(pages)
    assert [f.height for f in frames] == [7, 7, 7, 7, 2]
    paged = pl.concat(frames)
    assert paged.sort(KEY).equals(whole.sort(KEY))
    first = whole.group_by("trace_id").agg(pl.col("started").min()).sort("started", "trace_id")
    by_start = first.get_column("trace_id").to_list()
    assert by_start != sorted(by_start)  # (trace ids are random: not the order they started in)
    for n, frame in enumerate(frames):  # the next 7 traces to start, in read_answers' order
        traces = by_start[7 * n : 7 * n + 7]
        assert frame.equals(whole.filter(pl.col("trace_id").is_in(traces)))
    assert pl.concat(list(pages)).equals(paged)  # read again from the start
    other_run = AnswerPages(store, runs=["no-such-run"], traces_at_once=7)
    assert other_run.total == 30 and sum(f.height for f in other_run) == 0
    with pytest.raises(ValueError, match="traces_at_once must be 1 or more"):
        AnswerPages(store, traces_at_once=0)


def test_an_empty_store_has_no_page(store: Store) -> None:
    pages = AnswerPages(store)
    assert pages.total == 0 and list(pages) == []
