"""Issue 35 acceptance: the chunk cache changes no verdict row of ``judge_store``.

Twelve traced answers whose prompts take three of the worked example's four chunks, in other
orders, so every chunk comes back in many prompts; the verdict rows of a run whose judge keeps
no chunk (``chunk_cache=0``) and of one with the default cache are the same.
"""

from __future__ import annotations

import itertools

from ragfunnel.analyzer.ingest import ingest_spans
from ragfunnel.analyzer.judges.offline import OfflineJudge
from ragfunnel.analyzer.judges.run.batch import judge_store
from ragfunnel.analyzer.store import Store
from ragfunnel.testing import capture_spans
from tests.support.judge_pipeline import ANY_TIME, BOTH, CASES, CHUNKS, REFUSAL, ask

REPLIES = [
    ANY_TIME,
    BOTH,
    REFUSAL,
    "Parkgebühren am Flughafen werden bis 20 EUR pro Tag erstattet.",
    "Parkgebühren werden bis 50 EUR pro Tag erstattet; ein Taxi ist ab 22 Uhr erlaubt.",
    "Zugriffsrechte beantragt man per E-Mail beim Vorgesetzten.",
]


def test_the_chunk_cache_changes_no_verdict_row(store: Store) -> None:
    orders = itertools.islice(itertools.permutations(CHUNKS, 3), 0, 24, 2)
    with capture_spans(capture_content=True, run_id="r1") as spans:
        for n, order in enumerate(orders):
            ranking = [(chunk, 0.9 - 0.1 * i) for i, chunk in enumerate(order)]
            ask(f"q{n}", f"Frage {n}?", ranking, REPLIES[n % len(REPLIES)])
    ingest_spans(store, spans.spans)
    cached = OfflineJudge(multilingual=False)
    with_cache = judge_store(store, cases=CASES, write=False, screen=cached)
    without = judge_store(
        store, cases=CASES, write=False, screen=OfflineJudge(multilingual=False, chunk_cache=0)
    )
    assert with_cache.judged == 12 and with_cache.rows == without.rows
    assert cached.chunks is not None and cached.chunks.hits > cached.chunks.misses
    labels = {label for row in with_cache.rows for label in row["ClaimLabels"]}
    assert {"supported", "unsupported"} <= labels
