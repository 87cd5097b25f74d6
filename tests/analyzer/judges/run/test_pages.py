"""pages.py: the offline policy page by page (issue 35): rows written and handed on per page.

A page's rows are those of the whole run, in order, whatever the page size, in process or on
workers; handed to ``on_rows`` and not kept when asked, and written to the verdicts table.
"""

from __future__ import annotations

import functools
from operator import itemgetter

import pytest

from ragfunnel.analyzer.judges import tables
from ragfunnel.analyzer.judges.answers import AnswerPages
from ragfunnel.analyzer.judges.run import batch
from ragfunnel.analyzer.judges.run.batch import judge_store
from ragfunnel.analyzer.store import Store
from tests.support.judge_pipeline import CASES, record_many, without_time

ANSWERS = 480


@pytest.mark.parametrize("workers", [1, 2])
def test_pages_hand_on_and_write_the_rows_of_the_whole_run(
    store: Store, monkeypatch: pytest.MonkeyPatch, workers: int
) -> None:
    record_many(store, ANSWERS)
    alone = judge_store(store, cases=CASES, write=False, workers=1)
    # Small pages (the last one short), rows handed on page by page, written, and not kept.
    monkeypatch.setattr(batch, "AnswerPages", functools.partial(AnswerPages, traces_at_once=100))
    pages: list[list[dict[str, object]]] = []
    paged = judge_store(
        store, cases=CASES, workers=workers, runs=iter(["r1"]), keep_rows=False,
        on_rows=pages.append,
    )  # fmt: skip
    assert paged.rows == [] and paged.row_count == ANSWERS
    assert [len(page) for page in pages] == [100, 100, 100, 100, 80]
    # The same rows; the pages take the traces in the order they started (``AnswerPages``).
    order = ("TraceId", "QuestionKey", "Mode")
    handed = sorted(without_time(r for page in pages for r in page), key=itemgetter(*order))
    assert handed == sorted(without_time(alone.rows), key=itemgetter(*order))
    # Summed in another order: equal but for the last bits of the float sums.
    assert paged.faithfulness == pytest.approx(alone.faithfulness, rel=1e-12)
    assert paged.confidence == pytest.approx(alone.confidence, rel=1e-12)
    assert paged.judged == alone.judged and paged.abstained == alone.abstained
    stored = tables.read_verdicts(store).sort(["TraceId", "QuestionKey"])
    expected = sorted(without_time(alone.rows), key=lambda r: (r["TraceId"], r["QuestionKey"]))
    assert without_time(stored.iter_rows(named=True)) == expected
